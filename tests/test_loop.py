"""The loop: timers in order (cancelled ones never), and thread-safe wake-ups."""

import threading
import time

from transport_helpers import GUARD


def test_loop_timers_run_in_order_and_cancelled_ones_never():
    from tinymcp.loop import Loop
    loop = Loop()
    ran = []
    try:
        # "b" is due a whole second after "a": order by due time holds however long the
        # test is preempted between these lines (a 20 ms gap once could flip them)
        loop.call_later(1.0, lambda: ran.append("b"))
        loop.call_later(0.0, lambda: ran.append("a"))
        loop.call_later(0.5, lambda: ran.append("never")).cancel()
        deadline = time.monotonic() + GUARD
        while len(ran) < 2 and time.monotonic() < deadline:
            loop.run_once(GUARD)  # returns when a timer is due, not after GUARD
        assert ran == ["a", "b"]
    finally:
        loop.close()


def test_loop_call_soon_threadsafe_wakes_the_loop_and_refuses_after_close():
    from tinymcp.loop import Loop
    loop = Loop()
    ran = []
    t = threading.Thread(target=lambda: loop.call_soon_threadsafe(lambda: ran.append(1)))
    t.start()
    deadline = time.monotonic() + GUARD
    while not ran and time.monotonic() < deadline:
        loop.run_once(GUARD)
    t.join()
    assert ran == [1]
    loop.close()
    assert loop.call_soon_threadsafe(lambda: ran.append(2)) is False
    assert ran == [1]
