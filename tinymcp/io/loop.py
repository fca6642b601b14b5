"""A small single-threaded loop on ``poll()``: fd callbacks, timers, signals, thread-safe wakeups.

Knows nothing of MCP. Signals and other threads wake the loop through a self-pipe
(``signal.set_wakeup_fd``), never by polling a flag on a timer. Timers (``call_later``)
only bound the wait; with none pending the loop sleeps until an fd is ready. ``poll()``
takes any fd (pipes, sockets, terminals, files) and needs no ``selectors`` (whose import
costs 5% of a start); where it has none, or cannot poll terminals (macOS), the
``selectors`` default serves (``selector``).
"""

import os
import select
import signal
import sys
import time
from collections import deque

#: select.POLLIN, select.POLLOUT (what io.selector is given too), and what a hang-up watch
#: asks: a socket's peer that shuts its sending side only (socat at the end of its input)
#: raises no POLLHUP, which Linux sets once both sides are shut, but POLLRDHUP (PyPy's select
#: lacks the name: Linux's value)
READ, WRITE, HALF_CLOSED = 1, 4, getattr(select, "POLLRDHUP", 0x2000 if sys.platform.startswith("linux") else 0)
_NONE = (None, None)
#: the loop a server serves on now (``pump.Hub``): where the log (``io.log``, loaded by the
#: first line logged) retries writing what a full stderr did not take
SERVING = [None]


class Timer:
    """A ``call_later`` handle; ``cancel()`` before it fires and it never runs."""

    __slots__ = ("when", "callback")

    def __init__(self, when, callback):
        self.when, self.callback = when, callback

    def cancel(self):
        self.callback = None

    def __lt__(self, other):
        return self.when < other.when


class Loop:
    def __init__(self):
        if hasattr(select, "poll") and sys.platform != "darwin":
            self.selector = select.poll()
        else:
            from .selector import Selector
            self.selector = Selector()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._handlers = {}  # fd -> (reader, writer)
        self._pending = deque()  # callbacks for this round (``call_soon_threadsafe``)
        self._next_round, self._timers = [], []
        self._signals, self._signal_handlers, self._saved = deque(), {}, {}
        self.closed = self.running = False
        self._set(self._wake_r, self._drain_wakeup, None)

    # --- fds -------------------------------------------------------------------------

    def _set(self, fd, reader, writer, hangup=False):
        mask = ((HALF_CLOSED if hangup else READ) if reader else 0) | (WRITE if writer else 0)
        if reader is None and writer is None:
            if self._handlers.pop(fd, None) is not None:
                self.selector.unregister(fd)
            return
        (self.selector.modify if fd in self._handlers else self.selector.register)(fd, mask)
        self._handlers[fd] = (reader, writer)

    def add_reader(self, fd, callback, hangup=False):
        """``callback()`` when ``fd`` is readable (None: no more); with ``hangup``, only when
        its peer hangs up (``poll()`` says so whatever is asked, and of a socket's half-close
        where it has POLLRDHUP; elsewhere never)."""
        self._set(fd, callback, self._handlers.get(fd, _NONE)[1], hangup)

    def add_writer(self, fd, callback):
        """``callback()`` when ``fd`` is writable (None: no more)."""
        self._set(fd, self._handlers.get(fd, _NONE)[0], callback)

    def forget(self, fd):
        self._set(fd, None, None)

    # --- signals and other threads --------------------------------------------------

    def add_signal_handler(self, signum, callback):
        """Run ``callback(signum)`` from the loop (not inside the signal handler). Off the
        main thread, where Python allows no signal handlers, nothing happens."""
        try:
            if not self._saved:
                self._saved[None] = signal.set_wakeup_fd(self._wake_w)
            self._saved.setdefault(signum, signal.signal(signum, lambda n, frame: self._signals.append(n)))
        except ValueError:
            return
        self._signal_handlers[signum] = callback

    def call_soon_threadsafe(self, callback):
        """Run ``callback()`` from the loop soon; callable from any thread. Returns False
        (and queues nothing) once the loop is closed, so a caller in another thread can
        fall back to doing the work itself."""
        with self._lock():
            if self.closed:
                return False
            self._pending.append(callback)
            try:
                os.write(self._wake_w, b"\0")
            except OSError:
                pass  # the pipe is full: the loop is waking anyway
        return True

    def _lock(self):
        """What keeps a write to the wake-up pipe from coming after it is closed (another fd
        may have its number by then). Made at first use: a thread able to race exists only
        once ``threading`` is imported, which a start then never pays for; ``setdefault``
        keeps one lock for threads that make theirs at the same time."""
        import threading
        return self.__dict__.setdefault("_wake_lock", threading.Lock())

    def call_next_round(self, callback):
        """Run ``callback()`` in the next round, after that round's fd callbacks: every peer
        whose fd is ready then is served before it (loop thread)."""
        self._next_round.append(callback)

    def _drain_wakeup(self):
        try:
            while os.read(self._wake_r, 4096):
                pass
        except OSError:
            pass

    # --- timers ----------------------------------------------------------------------

    def call_later(self, delay, callback):
        """Run ``callback()`` from the loop after ``delay`` seconds; returns a ``Timer``."""
        timer = Timer(time.monotonic() + max(delay, 0.0), callback)
        self._timers.append(timer)
        return timer

    # --- running ---------------------------------------------------------------------

    def run(self):
        """Serve callbacks until ``stop()``."""
        self.running = True
        while self.running:
            self.run_once(None)

    def run_once(self, timeout):
        """Wait up to ``timeout`` seconds (None: forever) and serve what is ready."""
        turns, timers, handlers = self._next_round, self._timers, self._handlers
        if timers:
            timers = self._timers = [t for t in timers if t.callback is not None]  # (a few at most)
        if turns or self._pending or self._signals:
            timeout = 0
        elif timers:
            left = max(min(timers).when - time.monotonic(), 0.0)
            timeout = left if timeout is None else min(left, timeout)
        self._next_round = []  # (those asked for during this round wait for the next)
        # (the wait in ms rounded up: PyPy's poll() cuts it down, woke early, and spun until a timer was due)
        for fd, events in self.selector.poll(None if timeout is None else -(-timeout * 1000 // 1)):
            # the callbacks are looked up again: an earlier one may have changed them (a
            # hang-up or an error wakes both, so they see the EOF or the failing write)
            if events & ~WRITE:
                reader = handlers.get(fd, _NONE)[0]
                if reader is not None:
                    reader()
            if events & ~READ:
                writer = handlers.get(fd, _NONE)[1]
                if writer is not None:
                    writer()
        if timers:
            now = time.monotonic()
            for timer in sorted(t for t in timers if t.when <= now):
                callback, timer.callback = timer.callback, None
                if callback is not None:
                    callback()
        for callback in turns:
            callback()
        while self._signals:
            signum = self._signals.popleft()
            if signum not in self._signals:  # (one queued again comes later: a storm of SIGHUPs is one reload)
                self._signal_handlers[signum](signum)
        while self._pending:
            self._pending.popleft()()

    def stop(self):
        self.running = False

    def close(self):
        with self._lock():
            self.closed = True
        self._pending.clear()
        self._next_round, self._timers = [], []
        old_wakeup = self._saved.pop(None, None)
        for signum, old in self._saved.items():
            signal.signal(signum, old)
        if old_wakeup is not None:
            signal.set_wakeup_fd(old_wakeup)
        self._saved = {}
        if hasattr(self.selector, "close"):
            self.selector.close()
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
