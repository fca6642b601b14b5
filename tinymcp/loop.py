"""A small single-threaded ``selectors`` loop: fd callbacks, signals, thread-safe wakeups.

Knows nothing of MCP. Signals and other threads wake the loop through a self-pipe
(``signal.set_wakeup_fd``), never by polling a flag on a timer.
"""

import os
import selectors
import signal
from collections import deque

__all__ = ["Loop"]


class Loop:
    def __init__(self):
        self.selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self.selector.register(self._wake_r, selectors.EVENT_READ, (self._drain_wakeup, None))
        self._pending = deque()
        self._signals = deque()
        self._signal_handlers = {}
        self._saved = {}
        self._old_wakeup = None
        self.running = False

    # --- fds -------------------------------------------------------------------------

    def _set(self, fd, reader, writer):
        mask = (selectors.EVENT_READ if reader else 0) | (selectors.EVENT_WRITE if writer else 0)
        try:
            key = self.selector.get_key(fd)
        except KeyError:
            if mask:
                self.selector.register(fd, mask, (reader, writer))
            return
        if mask:
            self.selector.modify(fd, mask, (reader, writer))
        else:
            self.selector.unregister(fd)
        del key

    def _callbacks(self, fd):
        try:
            return self.selector.get_key(fd).data
        except KeyError:
            return (None, None)

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
        """Run ``callback(signum)`` from the loop (not inside the signal handler)."""
        if not self._saved:
            self._old_wakeup = signal.set_wakeup_fd(self._wake_w)
        self._signal_handlers[signum] = callback
        self._saved.setdefault(signum, signal.signal(signum, self._on_signal))

    def _on_signal(self, signum, frame):
        self._signals.append(signum)

    def call_soon_threadsafe(self, callback):
        self._pending.append(callback)
        try:
            os.write(self._wake_w, b"\0")
        except (BlockingIOError, OSError):
            pass  # the pipe is full: the loop is waking anyway

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
        for key, events in self.selector.select(timeout):
            # look the callbacks up again: an earlier callback may have changed them
            reader, writer = self._callbacks(key.fd)
            if events & selectors.EVENT_READ and reader is not None:
                reader()
                writer = self._callbacks(key.fd)[1]
            if events & selectors.EVENT_WRITE and writer is not None:
                writer()
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
        for signum, old in self._saved.items():
            signal.signal(signum, old)
        if self._saved:
            signal.set_wakeup_fd(self._old_wakeup if self._old_wakeup is not None else -1)
        self._saved = {}
        self.selector.close()
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
