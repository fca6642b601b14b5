"""A small single-threaded ``selectors`` loop: fd callbacks, timers, signals, thread-safe wakeups.

Knows nothing of MCP. Signals and other threads wake the loop through a self-pipe
(``signal.set_wakeup_fd``), never by polling a flag on a timer. Timers (``call_later``)
only bound the ``select`` timeout; with none pending the loop sleeps until an fd is ready.
"""

import os
import select
import time

# The C parts their modules wrap, without those modules' imports; each falls back alone
# (PyPy has all but _heapq, and its threading and collections imports cost it milliseconds).
try:
    from _collections import deque
except ImportError:  # pragma: no cover
    from collections import deque
try:
    from _heapq import heappop, heappush
except ImportError:  # pragma: no cover - PyPy
    from heapq import heappop, heappush
try:
    from _thread import allocate_lock
except ImportError:  # pragma: no cover
    from threading import Lock as allocate_lock
try:
    import _signal as signal
except ImportError:  # pragma: no cover
    import signal

__all__ = ["Loop", "Timer"]

READ, WRITE = 1, 2  # selectors.EVENT_READ, selectors.EVENT_WRITE


class _Epoll:
    """``select.epoll`` used directly, with the ``selectors`` masks: the loop's select is
    on every round trip, and ``selectors.EpollSelector.select`` adds a key lookup and a
    tuple per event in Python."""

    def __init__(self):
        self._epoll = select.epoll()

    @staticmethod
    def _flags(mask):
        return (select.EPOLLIN if mask & READ else 0) | (select.EPOLLOUT if mask & WRITE else 0)

    def register(self, fd, mask):
        self._epoll.register(fd, self._flags(mask))

    def modify(self, fd, mask):
        self._epoll.modify(fd, self._flags(mask))

    def unregister(self, fd):
        self._epoll.unregister(fd)

    def select(self, timeout):
        # As selectors does: hang-ups and errors wake both directions, so the callbacks
        # see EOF or the failing write.
        out_only, in_only = ~select.EPOLLIN, ~select.EPOLLOUT
        return [(fd, (WRITE if ev & out_only else 0) | (READ if ev & in_only else 0))
                for fd, ev in self._epoll.poll(-1 if timeout is None else timeout)]

    def close(self):
        self._epoll.close()


class _Selector:
    """Any other platform: the ``selectors`` default, answering ``(fd, mask)`` pairs."""

    def __init__(self):
        import selectors
        self._selector = selectors.DefaultSelector()
        self.register = self._selector.register
        self.modify = self._selector.modify
        self.unregister = self._selector.unregister
        self.close = self._selector.close

    def select(self, timeout):
        return [(key.fd, mask) for key, mask in self._selector.select(timeout)]


class Timer:
    """A ``call_later`` handle; ``cancel()`` before it fires and it never runs."""

    __slots__ = ("when", "callback")

    def __init__(self, when, callback):
        self.when = when
        self.callback = callback

    def cancel(self):
        self.callback = None

    def __lt__(self, other):
        return self.when < other.when


class Loop:
    def __init__(self):
        self.selector = _Epoll() if hasattr(select, "epoll") else _Selector()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        #: fd -> (reader, writer): the callbacks, looked up per event (a dict, not
        #: selector.get_key, which costs more per round trip)
        self._handlers = {}
        #: fds the selector refused (regular files): always ready, polled each round
        self._ready = {}
        self._set(self._wake_r, self._drain_wakeup, None)
        self._pending = deque()
        #: callbacks for the next round (``call_next_round``)
        self._next_round = []
        self._timers = []
        #: guards the wake-up pipe against a write from another thread after close()
        self._lock = allocate_lock()
        self.closed = False
        self._signals = deque()
        self._signal_handlers = {}
        self._saved = {}
        self._old_wakeup = None
        self.running = False

    # --- fds -------------------------------------------------------------------------

    def _set(self, fd, reader, writer):
        handlers = self._handlers
        mask = (READ if reader else 0) | (WRITE if writer else 0)
        if fd in self._ready:  # not in the selector: see below
            if mask:
                handlers[fd] = self._ready[fd] = (reader, writer)
            else:
                del handlers[fd], self._ready[fd]
            return
        if fd not in handlers:
            if mask:
                try:
                    self.selector.register(fd, mask)
                except PermissionError:
                    # epoll refuses regular files and /dev/null (stdin redirected from a
                    # file): they never block, so treat them as always ready
                    self._ready[fd] = (reader, writer)
                handlers[fd] = (reader, writer)
            return
        if mask:
            self.selector.modify(fd, mask)
            handlers[fd] = (reader, writer)
        else:
            self.selector.unregister(fd)
            del handlers[fd]

    def _callbacks(self, fd):
        return self._handlers.get(fd, (None, None))

    def add_reader(self, fd, callback):
        self._set(fd, callback, self._callbacks(fd)[1])

    def remove_reader(self, fd):
        self._set(fd, None, self._callbacks(fd)[1])

    def add_writer(self, fd, callback):
        self._set(fd, self._callbacks(fd)[0], callback)

    def remove_writer(self, fd):
        self._set(fd, self._callbacks(fd)[0], None)

    def forget(self, fd):
        self._set(fd, None, None)

    # --- signals and other threads --------------------------------------------------

    def add_signal_handler(self, signum, callback):
        """Run ``callback(signum)`` from the loop (not inside the signal handler). Off the
        main thread, where Python allows no signal handlers, nothing happens: False."""
        try:
            if not self._saved:
                self._old_wakeup = signal.set_wakeup_fd(self._wake_w)
            self._saved.setdefault(signum, signal.signal(signum, self._on_signal))
        except ValueError:
            return False
        self._signal_handlers[signum] = callback
        return True

    def _on_signal(self, signum, frame):
        self._signals.append(signum)

    def call_soon_threadsafe(self, callback):
        """Run ``callback()`` from the loop soon; callable from any thread.

        Returns False (and queues nothing) once the loop is closed, so a caller in
        another thread can fall back to doing the work itself.
        """
        with self._lock:
            if self.closed:
                return False
            self._pending.append(callback)
            try:
                os.write(self._wake_w, b"\0")
            except OSError:
                pass  # the pipe is full: the loop is waking anyway
        return True

    def call_soon(self, callback):
        """Run ``callback()`` from the loop after the fd callbacks of this round (loop thread)."""
        self._pending.append(callback)

    def call_next_round(self, callback):
        """Run ``callback()`` in the next round, after that round's fd callbacks: every peer
        whose fd is ready then is served before it (loop thread)."""
        self._next_round.append(callback)

    # --- timers ----------------------------------------------------------------------

    @staticmethod
    def now():
        """The loop's clock (monotonic seconds), the one ``call_later`` counts in."""
        return time.monotonic()

    def call_later(self, delay, callback):
        """Run ``callback()`` from the loop after ``delay`` seconds; returns a ``Timer``."""
        timer = Timer(time.monotonic() + max(delay, 0.0), callback)
        heappush(self._timers, timer)
        return timer

    def _timeout(self, timeout):
        timers = self._timers
        while timers and timers[0].callback is None:
            heappop(timers)
        if self._pending or self._signals:
            return 0
        if not timers:
            return timeout
        left = max(timers[0].when - time.monotonic(), 0.0)
        return left if timeout is None else min(left, timeout)

    def _run_timers(self):
        timers = self._timers
        now = time.monotonic()
        while timers and timers[0].when <= now:
            timer = heappop(timers)
            callback, timer.callback = timer.callback, None
            if callback is not None:
                callback()

    def _drain_wakeup(self):
        try:
            while os.read(self._wake_r, 4096):
                pass
        except (BlockingIOError, InterruptedError):
            pass

    # --- running ---------------------------------------------------------------------

    def run(self):
        """Serve callbacks until ``stop()``."""
        self.running = True
        while self.running:
            self.run_once(None)

    def run_once(self, timeout):
        """Wait up to ``timeout`` seconds (None: forever) and serve what is ready."""
        handlers = self._handlers
        ready = [(fd, READ | WRITE) for fd in self._ready]
        turns = self._next_round  # (those asked for during this round wait for the next)
        if turns:
            self._next_round = []
        else:
            turns = ()
        events = self.selector.select(0 if ready or turns else self._timeout(timeout))
        for fd, mask in ready + events if ready else events:
            # look the callbacks up again: an earlier callback may have changed them
            reader, writer = handlers.get(fd, (None, None))
            if mask & READ and reader is not None:
                reader()
                writer = handlers.get(fd, (None, None))[1]
            if mask & WRITE and writer is not None:
                writer()
        self._run_timers()
        for callback in turns:
            callback()
        self._run_pending()

    def _run_pending(self):
        while self._signals:
            signum = self._signals.popleft()
            self._signal_handlers[signum](signum)
        while self._pending:
            self._pending.popleft()()

    def stop(self):
        self.running = False

    def close(self):
        with self._lock:
            self.closed = True
        self._pending.clear()
        self._next_round = []
        self._timers = []
        for signum, old in self._saved.items():
            signal.signal(signum, old)
        if self._saved:
            signal.set_wakeup_fd(self._old_wakeup if self._old_wakeup is not None else -1)
        self._saved = {}
        self.selector.close()
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
