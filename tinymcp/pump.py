"""What every transport shares: one pump per connection between fds and a Session, and
the hub that hands prompt changes to every session and drains them all at shutdown.

Backpressure, per pump: what one read brings is handed to the session with a budget,
the room left below ``high`` in the output backlog; the session serves lines only while
the replies it made are within that budget (at least one line a call) and holds the rest
back. Above ``high`` the pump neither feeds nor reads until the peer has taken the
backlog down to ``low``, and it never reads while the session still holds lines. So a
peer that sends without reading holds at most ``high`` + one reply (a reply is bounded
by the server's limits), one read (``READ_SIZE``) of lines not served yet and one
partial line (the server's line limit), and costs the loop nothing more, however large
its replies. (Whole reads, not single lines, so that a ``notifications/cancelled`` read
together with its request can still drop the reply the session has queued.)
Output the server pushes on its own (list_changed notifications, the end of listen
streams: at most ``max_listen_streams`` messages an event) may grow the backlog past
``high``, up to ``hard`` bytes, paused or not; past that the connection is closed with a
line in the log. A peer's lines are served for ``TURN_SECONDS`` at most (at least one
line), then the pump holds the rest until the loop's next round, so every other peer
ready by then is served first.
"""

import errno
import os
import select
import sys
from _thread import allocate_lock
from time import monotonic

from .server import no_log

try:  # the signal functions and numbers without signal.py's enum wrappers (and imports)
    import _signal as signal
except ImportError:  # pragma: no cover
    import signal

__all__ = ["StreamPump", "Hub", "stderr_log", "READ_SIZE", "DRAIN_SECONDS"]

READ_SIZE = 65536
#: stdio defaults: stop reading input while this much output waits for the peer ...
HIGH_WATER = 4 * 1024 * 1024
#: ... and read again once it is down to this much.
LOW_WATER = 1024 * 1024
#: After SIGTERM/SIGINT or EOF, give pending output this long to drain.
DRAIN_SECONDS = 2.0
#: One peer's lines are served for about this long (at least one line) before every other
#: peer ready gets its turn (the loop's next round).
TURN_SECONDS = 0.02

_QUIET_ERRORS = frozenset((errno.EPIPE, errno.ECONNRESET, errno.EBADF, errno.ENOTCONN))


#: log lines waiting for a full stderr are kept up to this many bytes; past it they are
#: dropped and counted (the count is logged once stderr takes lines again)
LOG_BUFFER_BYTES = 64 * 1024
#: tracebacks logged per TRACEBACK_PERIOD seconds; past that, a failure's line comes alone
TRACEBACK_BURST, TRACEBACK_PERIOD = 20, 10.0


class _Stderr:
    """Writes log lines to stderr without ever blocking the loop: a line is written only
    while stderr's fd polls writable, 4 KiB at a time (a pipe then takes it whole); the
    rest waits in a bounded buffer, flushed with the next line."""

    def __init__(self):
        self.lock = allocate_lock()  # (worker threads log too)
        self.pending = bytearray()
        self.dropped = 0
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
            data = text.encode("utf-8", "replace")
            if len(self.pending) + len(data) > LOG_BUFFER_BYTES:
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
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # (stderr closed: nothing more can be said)
                self.pending = bytearray()
                return
            if not self.pending and self.dropped:
                self.pending += b"tinymcp: warning: %d log line%s dropped while stderr was full\n" % (
                    self.dropped, b"" if self.dropped == 1 else b"s")
                self.dropped = 0


class Throttle:
    """At most ``burst`` events per ``period`` seconds: ``allow()`` says whether this one
    is; ``take_dropped()`` the count refused since it was last asked."""

    def __init__(self, burst, period, clock=None):
        self.burst, self.period = burst, period
        self.clock = clock or monotonic
        self.start = None
        self.count = self.dropped = 0

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


_STDERR = _Stderr()


def stderr_log(level, message, exc=None):
    """The CLI's log hook: one line on stderr, plus the traceback when there is one (at
    most ``TRACEBACK_BURST`` tracebacks per ``TRACEBACK_PERIOD`` s). Never blocks."""
    try:
        text = "tinymcp: %s: %s\n" % (level, message)
        if exc is not None and _STDERR.tracebacks.allow():
            import traceback
            text += "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        _STDERR.write(text)
    except (OSError, ValueError):
        pass


class StreamPump:
    """Moves bytes between a readable fd, a writable fd (the same one for a socket) and a
    Session on a Loop, with the backpressure described in the module docstring.

    ``on_close(pump)`` is called once, after the fds are unregistered (never closed here:
    the transport owns them). ``hard=None`` means never close for backlog (stdio, where
    pausing alone bounds memory and closing would end the server).
    """

    def __init__(self, loop, session, in_fd, out_fd, on_close, high=HIGH_WATER,
                 low=LOW_WATER, hard=None, log=None, name="peer"):
        self.loop = loop
        self.session = session
        self.in_fd = in_fd
        self.out_fd = out_fd
        self.on_close = on_close
        self.high = high
        self.low = low
        self.hard = hard
        #: seconds output may go unread after EOF (None: no bound; stdio sets one)
        self.eof_drain = None
        self._drained_at = 0.0  # (after EOF: when the peer last read some output)
        self.log = log or no_log
        self.name = name
        self.out = bytearray()
        #: no more input will be read (the peer's EOF, or shutdown)
        self.eof = False
        #: the backlog went over ``high``: neither read nor feed until it is down to ``low``
        self.paused = False
        self.closed = False
        self._in = b""  # read but not yet fed to the session
        self._eof_fed = False
        self._reading = False
        self._writing = False
        #: the turn ends at this time (``monotonic``): lines still held wait for the next one
        self._turn_ends = 0.0
        #: lines are held until the loop's next round (``_next_turn``)
        self._waiting = False
        session.on_ready = self._on_ready  # (a deferred answer, a live notification)
        self._progress()

    # --- loop callbacks --------------------------------------------------------------

    def on_readable(self):
        try:
            data = os.read(self.in_fd, READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""  # e.g. ECONNRESET: the peer is gone, serve what was read
        if data:
            self._in = data
        else:
            self.eof = True
            if self.eof_drain is not None:
                self._drained_at = monotonic()
                self.loop.call_later(self.eof_drain, self._drain_over)
        self._progress()

    def _drain_over(self):
        """``eof_drain`` seconds after EOF, or after the peer last read some of the output:
        output it has not read for that long is dropped."""
        if self.closed or not (self.out or self._has_input()):
            return
        left = self._drained_at + self.eof_drain - monotonic()
        if left > 0:  # (it read meanwhile: a slow reader still gets every answer)
            self.loop.call_later(left, self._drain_over)
            return
        self.log("warning", "%s: closed: none of the output read for %g s after the end of input"
                 % (self.name, self.eof_drain))
        self.close()

    def on_writable(self):
        self._progress()

    # --- what the transport and the hub call ---------------------------------------

    def _on_ready(self):
        self.send(self.session.data_to_send())

    def send(self, data):
        """Queue bytes the server sends on its own (notifications)."""
        if not data or self.closed:
            return
        if self.hard is not None and len(self.out) + len(data) > self.hard:
            self.log("warning", "%s: closed: more than %d bytes of output waiting while it "
                     "does not read" % (self.name, self.hard))
            self.close()
            return
        self.out += data
        if len(self.out) > self.high:
            self.paused = True
        self._progress()

    def shutdown(self):
        """Stop reading (unread input is dropped), end the session's listen streams, and
        close once the output is flushed (the caller bounds how long that may take)."""
        if self.closed:
            return
        self.eof = self._eof_fed = True
        self._in = b""
        try:
            self.session.discard_pending()
            data = self.session.end_streams()
        except Exception as exc:  # never let one session stop the others' shutdown
            self.log("error", "%s: ending its streams failed: %s" % (self.name, exc), exc)
            data = b""
        self.out += data
        self._progress()

    def close(self):
        if self.closed:
            return
        self.closed = True
        self.loop.forget(self.in_fd)
        if self.out_fd != self.in_fd:
            self.loop.forget(self.out_fd)
        self._reading = self._writing = False
        self.out = bytearray()
        self._in = b""
        self.on_close(self)

    # --- the state machine ----------------------------------------------------------

    def _has_input(self):
        """Input the session has not been given or has not served yet."""
        return bool(self._in or self.session.pending or (self.eof and not self._eof_fed))

    def _progress(self):
        """Feed, write and (un)register until nothing more can happen right now, within
        one turn (``TURN_SECONDS`` of serving, however many feeds it takes)."""
        self._turn_ends = monotonic() + TURN_SECONDS
        while not self.closed:
            if not self.paused and not self._waiting and self._has_input():
                self._feed()
                if self.closed:
                    return
            if self.out:
                self._write()
                if self.closed:
                    return
            if self.paused and len(self.out) <= self.low:
                self.paused = False
            if not self.paused and not self._waiting and self._has_input():
                continue  # the session held lines back, and there is room for their replies now
            break
        if self.closed:
            return
        if self.eof and self._eof_fed and not self.out and not self.session.busy:
            self.close()  # (every request read has had its answer)
            return
        self._want(not (self.eof or self.paused or self._has_input()), bool(self.out))

    def _feed(self):
        """One call into the session: what was read, else the lines it held back, else
        its EOF, with the room left below ``high`` as its budget."""
        session = self.session
        budget = max(self.high - len(self.out), 1)
        try:
            if self._in:
                data, self._in = self._in, b""
                reply = session.receive_data(data, budget, self._turn_over)
            elif session.pending:
                reply = session.resume(budget, self._turn_over)
            else:
                self._eof_fed = True
                reply = session.receive_data(b"", budget, self._turn_over)
        except Exception as exc:
            # Session turns every request's failure into an error reply; reaching here is
            # a bug, and it ends this connection only, never the server's other sessions.
            self.log("error", "%s: closed after an internal error: %s" % (self.name, exc), exc)
            self.close()
            return
        if reply:
            self.out += reply
            if len(self.out) > self.high:
                self.paused = True
        if session.pending and self._turn_over():
            self._waiting = True
            self.loop.call_next_round(self._next_turn)

    def _turn_over(self):
        return monotonic() >= self._turn_ends

    def _next_turn(self):
        self._waiting = False
        if not self.closed:
            self._progress()

    def _write(self):
        try:
            n = os.write(self.out_fd, self.out)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            if exc.errno not in _QUIET_ERRORS:
                self.log("warning", "%s: closed: write failed: %s" % (self.name, exc))
            self.close()  # the peer went away: end quietly
            return
        del self.out[:n]
        if n and self.eof:
            self._drained_at = monotonic()

    def _want(self, read, write):
        loop = self.loop
        if read != self._reading:
            self._reading = read
            if read:
                loop.add_reader(self.in_fd, self.on_readable)
            else:
                loop.remove_reader(self.in_fd)
        if write != self._writing:
            self._writing = write
            if write:
                loop.add_writer(self.out_fd, self.on_writable)
            else:
                loop.remove_writer(self.out_fd)


class Hub:
    """The live sessions of one server on one loop.

    Registers a change hook on the server so ``Server.replace_config`` (from any thread,
    or from a reload on the loop) is applied from the loop, and every session gets its
    ``prompts_changed()`` bytes when the prompts really changed (``Server.apply_config``
    decides). ``log`` is the transport's log hook.
    """

    def __init__(self, loop, server, log=no_log):
        self.loop = loop
        self.server = server
        self.log = log
        self.pumps = {}  # pump -> None: an ordered set
        self._seen = server.config  # the config this hub's sessions were last told of
        self._hook = self._on_replace
        server.add_change_hook(self._hook)
        self._stop = lambda: loop.call_soon_threadsafe(loop.stop)  # (Server.stop, any thread)
        server.add_stop_hook(self._stop)

    def add(self, pump):
        self.pumps[pump] = None

    def discard(self, pump):
        self.pumps.pop(pump, None)

    def _on_replace(self, new):
        # any thread: hand the validated config to the loop through its wake-up pipe
        if not self.loop.call_soon_threadsafe(lambda: self.apply(new)):
            self.server.apply_config(new)  # the loop is gone: no session to tell

    def apply(self, new):
        """Swap the config in (loop thread) and, when the prompts changed, notify every
        session that asked."""
        seen, self._seen = self._seen, new
        if not self.server.apply_config(new, since=seen):
            self.log("info", "prompts unchanged (%d): no session told" % len(new.prompts))
            return
        told = 0
        for pump in list(self.pumps):
            data = pump.session.prompts_changed()
            if data:
                told += 1
                pump.send(data)
        self.log("info", "prompts changed (%d now): notified %d session%s" % (
            len(new.prompts), told, "" if told == 1 else "s"))
        for pump in list(self.pumps):  # logging: a reload is one of the server's events
            pump.send(pump.session.log_event("notice", {"message": "prompts reloaded",
                                                        "prompts": len(new.prompts)}))

    def report_config_error(self, message, problems):
        """A reload was refused and the old prompts stay (the caller logged it on stderr):
        tell every handshake-era session whose log level admits errors, with
        ``notifications/message`` (logging "Log Message Notifications"; the core decides
        who gets it, see ``Session.log_event``)."""
        data = {"message": message,
                "problems": [{"path": path, "message": msg} for path, msg in problems]}
        for pump in list(self.pumps):
            pump.send(pump.session.log_event("error", data))

    def run(self, source=None, before_drain=None, ready=None):
        """Serve until SIGTERM/SIGINT or ``loop.stop()``, with ``source`` (a
        ``reload.ConfigFile``) reloading meanwhile; then ``before_drain()`` (e.g. stop
        accepting), ``shutdown()``, and stop taking config changes. ``ready()`` is called
        once the signal handlers are in place (so a SIGTERM sent after it is handled)."""
        loop = self.loop
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, lambda signum: loop.stop())
        if source is not None:
            source.attach(loop, self.server, self.report_config_error, self.log)
        try:
            if ready is not None:
                ready()
            loop.run()
            if before_drain is not None:
                before_drain()
            if source is not None:
                source.detach()  # no reload during the drain
            self.shutdown()
        finally:
            if source is not None:
                source.detach()  # (again, when serving failed)
            self.close()

    def shutdown(self, seconds=DRAIN_SECONDS):
        """End every session's streams, give output ``seconds`` to drain, close the rest."""
        for pump in list(self.pumps):
            pump.shutdown()
        deadline = self.loop.now() + seconds
        while self.pumps:
            left = deadline - self.loop.now()
            if left <= 0:
                break
            self.loop.run_once(left)
        for pump in list(self.pumps):
            pump.close()

    def close(self):
        """Stop receiving config changes and stop requests (call before the loop closes)."""
        for remove, hook in ((self.server.remove_change_hook, self._hook),
                             (self.server.remove_stop_hook, self._stop)):
            try:
                remove(hook)
            except ValueError:
                pass
