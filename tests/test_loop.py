"""The loop: timers in order (cancelled ones never), thread-safe wake-ups, turns in the next round."""

import threading
import time

from transport_helpers import GUARD, moved_clock


def test_loop_timers_run_in_order_and_cancelled_ones_never(monkeypatch):
    from tinymcp.io.loop import Loop
    now = moved_clock(monkeypatch)
    loop = Loop()
    ran = []
    try:
        loop.call_later(1.0, lambda: ran.append("b"))
        for i in range(3):  # (due at the same instant: run in the order they were asked for)
            loop.call_later(0.0, lambda i=i: ran.append(i))
        loop.call_later(0.5, lambda: ran.append("never")).cancel()
        loop.run_once(0)
        assert ran == [0, 1, 2]
        now[0] += 1.0
        loop.run_once(0)
        assert ran == [0, 1, 2, "b"]
    finally:
        loop.close()


def test_loop_call_soon_threadsafe_wakes_the_loop_and_refuses_after_close():
    from tinymcp.io.loop import Loop
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


def test_call_next_round_runs_after_the_next_rounds_fd_callbacks_and_never_waits():
    import os
    from tinymcp.io.loop import Loop
    loop = Loop()
    r, w = os.pipe()
    ran = []
    try:
        def again():
            ran.append("turn")
            if ran.count("turn") < 3:
                loop.call_next_round(again)  # not in this round: the reader goes first

        def reader():
            ran.append("fd")
            if ran == ["fd"]:
                loop.call_next_round(again)  # asked by an fd callback: the next round too

        loop.add_reader(r, reader)
        os.write(w, b"x")  # (never read: ready every round)
        for _ in range(4):
            loop.run_once(None)  # returns at once: the fd is ready
        assert ran == ["fd", "fd", "turn", "fd", "turn", "fd", "turn"]
    finally:
        loop.close()
        os.close(r)
        os.close(w)
