"""The operator's log: one line on stderr per event, never blocking the loop, never the
wire; a missing or closed stderr never stops the server."""

import os
import select
import sys
from time import monotonic

from ..errors import shown
from .loop import SERVING

#: log lines waiting for a full stderr are kept up to this many bytes; past it they are
#: dropped and counted (the count is logged once stderr takes lines again). One line is
#: always taken when none waits, however long (a refused reload lists every problem).
LOG_BUFFER_BYTES = 64 * 1024
#: tracebacks logged per TRACEBACK_PERIOD seconds; past that, a failure's line comes alone
TRACEBACK_BURST, TRACEBACK_PERIOD = 20, 10.0
#: seconds between a serving loop's tries at writing what stderr did not take at once
RETRY_SECONDS = 0.05


class Throttle:
    """At most ``burst`` events per ``period`` seconds: ``allow()`` says whether this one
    is; ``take_dropped()`` the count refused since it was last asked."""

    def __init__(self, burst, period, clock=None):
        self.burst, self.period, self.clock = burst, period, clock or monotonic
        self.start, self.count, self.dropped = None, 0, 0

    def allow(self):
        now = self.clock()
        if self.start is None or now - self.start >= self.period:
            self.start, self.count = now, 0
        if self.count < self.burst:
            self.count += 1
            return True
        self.dropped += 1
        return False

    def take_dropped(self):
        dropped, self.dropped = self.dropped, 0
        return dropped


class _Stderr:
    """Writes log lines to stderr only while its fd polls writable, 4 KiB at a time (a
    pipe then takes it whole); the rest waits in a bounded buffer, flushed with the next
    line, or by the serving loop's timer (``loop.SERVING``) every RETRY_SECONDS meanwhile."""

    def __init__(self):
        import threading  # (made with the first line logged)
        self.lock = threading.Lock()  # (worker threads log too)
        self.pending, self.dropped, self.retrying = bytearray(), 0, False
        self.tracebacks = Throttle(TRACEBACK_BURST, TRACEBACK_PERIOD)

    def write(self, text):
        err = sys.__stderr__ or sys.stderr
        if err is None:  # (no stderr at all: a log line has nowhere to go)
            return
        try:
            fd = err.fileno()
            err.flush()  # (whatever was written through the file object goes first)
        except (AttributeError, OSError, ValueError):
            fd = None  # (a file object with no fd, e.g. a test's capture)
        if fd is None or not hasattr(select, "poll"):
            err.write(text)
            err.flush()
            return
        with self.lock:
            data = text.encode("utf-8", "backslashreplace")
            if self.pending and len(self.pending) + len(data) > LOG_BUFFER_BYTES:
                self.dropped += 1
            else:
                self.pending += data
            self._flush(fd)

    def _flush(self, fd):
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        while self.pending and poller.poll(0):
            try:
                del self.pending[:os.write(fd, self.pending[:4096])]
            except BlockingIOError:
                break
            except OSError:  # (stderr closed: nothing more can be said)
                self.pending = bytearray()
                return
            if not self.pending and self.dropped:
                self.pending += b"tinymcp: warning: %d log line%s dropped while stderr was full\n" % (
                    self.dropped, b"" if self.dropped == 1 else b"s")
                self.dropped = 0
        loop = SERVING[0]
        if self.pending and loop is not None and not self.retrying:
            self.retrying = loop.call_soon_threadsafe(
                lambda: loop.call_later(RETRY_SECONDS, lambda: self._retry(fd)))

    def _retry(self, fd):
        with self.lock:
            self.retrying = False
            self._flush(fd)


_STDERR = []


def stderr_log(level, message, exc=None):
    """The CLI's log hook: one line on stderr, plus the traceback when there is one (at
    most ``TRACEBACK_BURST`` tracebacks per ``TRACEBACK_PERIOD`` s). Never blocks."""
    try:
        if not _STDERR:
            _STDERR.append(_Stderr())  # (two threads may make one each: one is kept)
        text = "tinymcp: %s\n" % shown("%s: %s" % (level, message))
        if exc is not None and _STDERR[0].tracebacks.allow():
            import traceback
            text += "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        _STDERR[0].write(text)
    except Exception:  # (a closed stderr, or one replaced by what cannot take it: the line is lost)
        pass
