"""The loop: timers in order (cancelled ones never), thread-safe wake-ups, turns in the next round."""

import signal
import threading
import time

import pytest

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


def test_timers_due_in_one_round_run_in_the_order_they_fall_due(monkeypatch):
    from tinymcp.io.loop import Loop
    now = moved_clock(monkeypatch)
    loop = Loop()
    ran = []
    try:
        loop.call_later(0.2, lambda: ran.append("late"))
        loop.call_later(0.1, lambda: ran.append("early"))
        now[0] += 1.0  # (both due by the next round)
        loop.run_once(0)
        assert ran == ["early", "late"]
    finally:
        loop.close()


def test_run_once_waits_only_until_the_earliest_timer_and_never_past_its_timeout():
    from tinymcp.io.loop import Loop
    loop = Loop()
    ran = []
    try:
        loop.call_later(GUARD, lambda: ran.append("later"))
        loop.run_once(0)  # (a timeout of 0: returns at once, the timer not due)
        assert ran == []
        loop.call_later(0.0, lambda: ran.append("now"))
        loop.run_once(None)  # (no fd ready: returns when the earliest timer is due)
        assert ran == ["now"]
    finally:
        loop.close()


def test_a_reader_taken_away_leaves_the_loop_waiting_not_spinning():
    # with no callback left for a ready fd, poll() must not keep returning for it: the
    # loop sleeps until its timer (one round or two, never thousands)
    import os
    from tinymcp.io.loop import Loop
    loop = Loop()
    r, w = os.pipe()
    fired, rounds = [], 0
    try:
        loop.add_reader(r, lambda: None)
        os.write(w, b"x")  # (never read: ready for as long as the test runs)
        loop.add_reader(r, None)
        loop.call_later(0.2, lambda: fired.append(1))
        while not fired:
            loop.run_once(None)
            rounds += 1
            assert rounds < 50, "the loop spun on an fd nobody waits for"
    finally:
        loop.close()
        os.close(r)
        os.close(w)


def test_a_reader_and_a_writer_on_one_fd_are_both_kept():
    # (a socket is one fd both ways: taking up reading again must keep the pending write)
    import socket
    from tinymcp.io.loop import Loop
    loop = Loop()
    ours, peer = socket.socketpair()
    ran = []
    try:
        loop.add_writer(ours.fileno(), lambda: ran.append("write"))
        loop.add_reader(ours.fileno(), lambda: ran.append("read"))
        peer.send(b"x")
        loop.run_once(0)
        assert ran == ["read", "write"]
    finally:
        loop.close()
        ours.close()
        peer.close()


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="no SIGUSR1 here")
def test_a_signal_queued_many_times_before_the_loop_turns_is_handled_once_in_its_last_place():
    # Bug: each of a storm of SIGHUPs queued while a reload ran reloaded again, one after the other
    # (200 of them held a ping 6 s and SIGTERM behind them)
    from tinymcp.io.loop import Loop
    loop, handled = Loop(), []
    try:
        loop.add_signal_handler(signal.SIGUSR1, handled.append)
        loop.add_signal_handler(signal.SIGUSR2, handled.append)
        for signum in (signal.SIGUSR1, signal.SIGUSR1, signal.SIGUSR2, signal.SIGUSR1):
            signal.getsignal(signum)(signum, None)  # (as the process's handler takes each: queued)
        loop.run_once(0)
        assert handled == [signal.SIGUSR2, signal.SIGUSR1]
    finally:
        loop.close()
