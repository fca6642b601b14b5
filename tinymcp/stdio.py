"""The stdio transport (every revision, transports-stdio "stdio"): stdin and stdout to a Session.

The server reads JSON-RPC messages from stdin and writes them to stdout; it MUST NOT
write anything to stdout that is not a valid MCP message, and MAY log to stderr. So
while serving, the wire keeps a private duplicate of fd 1, and fd 1 and ``sys.stdout``
point at stderr: a stray ``print()`` (or a child process) cannot corrupt the stream.

Three ways to serve, by what is needed: ``_Direct`` (one session, ``poll()`` on stdin
and a wake-up pipe: signals, reloads, changes from other threads), the loop path
(``loop`` and ``pump``, when a timer is needed: ``--watch``), and a plain blocking loop
where pipes cannot be polled (Windows).
"""

import os
import select
import stat
import sys
import time

from .pump import (_QUIET_ERRORS, DRAIN_SECONDS, HIGH_WATER, READ_SIZE, Hub, StreamPump, signal,
                   stderr_log)
from .workers import Workers

try:
    from _collections import deque
except ImportError:  # pragma: no cover
    from collections import deque

__all__ = ["serve_stdio", "stderr_log", "StreamPump"]

#: Windows cannot poll pipes (select takes sockets only): stdio is served there by a
#: plain blocking read-serve-write loop instead (no --watch, SIGHUP or run-time changes).
CAN_POLL_PIPES = os.name != "nt"
#: ``poll()`` on any fd stdin may be (macOS's refuses terminals: the loop's kqueue serves there)
CAN_POLL_ANY = hasattr(select, "poll") and sys.platform != "darwin"


def _nonblocking_if_pipe(fd):
    """Make ``fd`` non-blocking when it is a pipe or socket (never a shared terminal)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return None
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        was = os.get_blocking(fd)
        os.set_blocking(fd, False)
        return was
    return None


def _serve_blocking(server, in_fd, wire, source, log):
    """Read, serve, write, until EOF, Ctrl-C or a closed stdout (where pipes cannot be polled)."""
    if source is not None and source.watch:
        log("warning", "--watch needs a system that can poll pipes: serving %s as loaded"
            % source.path)
    # nothing here could deliver a change: never promise listChanged
    session = server.session(log=log, list_changed=False)
    try:
        while True:
            data = os.read(in_fd, READ_SIZE)
            out = session.receive_data(data)
            while out:
                out = out[os.write(wire, out):]
            if not data:
                return 0
    except (KeyboardInterrupt, BrokenPipeError):
        return 0  # Ctrl-C, or the host closed stdout: end quietly
    except OSError as exc:
        log("warning", "stdio: %s" % exc)
        return 0


def serve_stdio(server, in_fd=0, out_fd=1, source=None, poll=None, log=None):
    """Serve one session on stdin/stdout until EOF or SIGTERM/SIGINT; return 0.

    ``source`` (a ``reload.ConfigFile``) reloads the config on SIGHUP and, when watched,
    on change; ``Server.replace_config`` from any thread reaches the session too. With
    ``poll`` false (the default on Windows) a blocking loop serves instead, without those.
    ``log``: the diagnostics hook (default: the server's, else stderr). The ``server`` is
    never changed.
    """
    if poll is None:
        poll = CAN_POLL_PIPES
    log = log or server.log or stderr_log
    sys.stdout.flush()
    wire = os.dup(out_fd)
    saved_out = os.dup(out_fd)
    os.dup2(2, out_fd)
    saved_stdout, sys.stdout = sys.stdout, sys.stderr
    try:
        if not poll:
            return _serve_blocking(server, in_fd, wire, source, log)
        if (source is not None and source.watch) or not CAN_POLL_ANY:
            return _serve_polled(server, in_fd, wire, source, log)
        return _serve_direct(server, in_fd, wire, source, log)
    finally:
        os.close(wire)
        os.dup2(saved_out, out_fd)
        os.close(saved_out)
        sys.stdout = saved_stdout


def _serve_polled(server, in_fd, wire, source, log):
    """The session's pump on a selectors loop, with signals, reloads and run-time changes."""
    from .loop import Loop
    in_blocking = _nonblocking_if_pipe(in_fd)
    # (the wire shares fd 1's open file: its flag must be put back, or whatever writes to
    # that pipe after us gets EAGAIN)
    out_blocking = _nonblocking_if_pipe(wire)
    loop = Loop()
    hub = Hub(loop, server, log)
    workers = Workers(loop.call_soon_threadsafe, loop.call_later, log)
    try:
        def closed(pump):
            hub.discard(pump)
            loop.stop()

        session = server.session(log=log, executor=workers)
        pump = StreamPump(loop, session, in_fd, wire, closed, log=log, name="stdio")
        pump.eof_drain = DRAIN_SECONDS  # (security.md: a bounded flush after EOF)
        hub.add(pump)
        hub.run(source)
    finally:
        workers.close()
        hub.close()  # (hub.run did, unless something failed before it)
        loop.close()
        for fd, was in ((wire, out_blocking), (in_fd, in_blocking)):
            if was is not None:
                try:
                    os.set_blocking(fd, was)
                except OSError:
                    pass
    return 0


def _serve_direct(server, in_fd, wire, source, log):
    """One session with ``_Direct``, the fds' blocking modes put back afterwards."""
    in_blocking = _nonblocking_if_pipe(in_fd)
    out_blocking = _nonblocking_if_pipe(wire)
    direct = _Direct(server, in_fd, wire, log)
    try:
        return direct.run(source)
    finally:
        direct.close()
        for fd, was in ((wire, out_blocking), (in_fd, in_blocking)):
            if was is not None:
                try:
                    os.set_blocking(fd, was)
                except OSError:
                    pass


class _Direct:
    """Serves one session on the calling thread: ``poll()`` waits for stdin or the
    wake-up pipe; what a read makes is written at once, and stdin is read again only
    when it is all written (backpressure: the session serves within ``HIGH_WATER`` at a
    time). Signals (SIGTERM/SIGINT stop, SIGHUP reloads; where Python allows handlers:
    the main thread) and work handed over by other threads (``Server.replace_config``)
    arrive through the wake-up pipe, as do the answers of callables run on worker threads
    (``workers``). To the ``Hub``, ``reload.ConfigFile`` and ``Workers`` it is both the
    loop (``add_signal_handler``, ``call_soon_threadsafe``, ``call_later``) and the one pump
    (``session``, ``send``)."""

    def __init__(self, server, in_fd, wire, log):
        self.server, self.in_fd, self.wire, self.log = server, in_fd, wire, log
        self.workers = Workers(self.call_soon_threadsafe, self.call_later, log)
        self.session = server.session(log=log, executor=self.workers)
        self.session.on_ready = lambda: self.send(self.session.data_to_send())
        self.out = bytearray()
        self.stopping = False
        self.gone = False  # stdout cannot be written to any more
        self._eof_deadline = None  # (set at EOF: output must drain before it)
        self._timers = []  # [when, callback] (callback None: cancelled)
        self._wake_r, self._wake_w = os.pipe()
        for fd in (self._wake_r, self._wake_w):
            os.set_blocking(fd, False)
        self._signals, self._calls = deque(), deque()
        self._handlers, self._saved, self._old_wakeup = {}, {}, None
        self._poll = select.poll()
        self._poll.register(in_fd, select.POLLIN)
        self._poll.register(self._wake_r, select.POLLIN)
        self._hub = Hub(self, server, log)
        self._hub.add(self)

    # --- the loop and the pump, to the Hub and the config file --------------------------

    def add_signal_handler(self, signum, callback):
        """Run ``callback(signum)`` from the serving loop (not in the signal handler);
        ignored off the main thread, where Python allows no signal handlers."""
        try:
            if self._old_wakeup is None:
                self._old_wakeup = signal.set_wakeup_fd(self._wake_w)
            self._saved.setdefault(signum, signal.signal(signum, self._on_signal))
        except ValueError:
            return
        self._handlers[signum] = callback

    def _on_signal(self, signum, frame):
        self._signals.append(signum)

    def call_soon_threadsafe(self, callback):
        self._calls.append(callback)
        try:
            os.write(self._wake_w, b"\0")
        except OSError:
            pass  # the pipe is full: a wake-up is pending anyway
        return True

    def send(self, data):
        self.out += data  # (written by the serving loop, after the callback that sent it)

    def call_later(self, delay, callback):
        """Run ``callback()`` from the serving loop after ``delay`` seconds; returns a
        handle with ``cancel()``."""
        timer = _Timer(time.monotonic() + delay, callback)
        self._timers.append(timer)
        return timer

    def _poll_timeout(self):
        """Milliseconds to the next timer, for ``poll()`` (None: no timer)."""
        timers = self._timers = [t for t in self._timers if t.callback is not None]
        if not timers:
            return None
        return max(0.0, min(t.when for t in timers) - time.monotonic()) * 1000

    def _run_timers(self):
        now = time.monotonic()
        for timer in [t for t in self._timers if t.callback is not None and t.when <= now]:
            callback, timer.callback = timer.callback, None
            callback()

    # --- serving ---------------------------------------------------------------------

    def run(self, source):
        for signum in (signal.SIGTERM, signal.SIGINT):
            self.add_signal_handler(signum, self._stop)
        if source is not None:
            source.attach(self, self.server, self._hub.report_config_error, self.log)
        try:
            self._serve()
        finally:
            if source is not None:
                source.detach()
        if self.stopping:
            self.session.discard_pending()
            self.out += self.session.end_streams()
            self._flush(time.monotonic() + DRAIN_SECONDS)
        return 0

    def _serve(self):
        session, in_fd, wake_r, poll = self.session, self.in_fd, self._wake_r, self._poll.poll
        reading = True
        while not (self.stopping or self.gone) and (reading or session.busy):
            # (after EOF, until every request read has had its answer)
            for fd, _ in poll(self._poll_timeout() if self._timers else None):
                if fd == wake_r:
                    self._run_calls()
                    self._flush()
                    continue
                try:
                    data = os.read(in_fd, READ_SIZE)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""  # the host is gone: serve what was read
                self._send(session.receive_data(data, HIGH_WATER))
                while session.pending and not (self.stopping or self.gone):
                    self._send(session.resume(HIGH_WATER))
                if not data:
                    reading = False
                    self._poll.unregister(in_fd)
                    self._drain_from_now()
            if self._timers:
                self._run_timers()
                self._flush()

    def _send(self, data):
        """Write ``data`` now when nothing waits before it (the common case: no copy into
        ``out``), else after what waits; then flush."""
        if data and not self.out:
            try:
                written = os.write(self.wire, data)
            except (BlockingIOError, InterruptedError):
                written = 0
            except OSError:
                written = 0  # (_flush says why, and gives up)
            if written and self._eof_deadline is not None:
                self._drain_from_now()  # (it read some: see _flush)
            if written == len(data):
                return
            data = data[written:]
        self.out += data
        self._flush()

    def _flush(self, deadline=None):
        """Write all output; while stdout is full, wait for it (and for wake-ups). Gives
        up at ``deadline``, or on a stop when there is none, or when stdout is gone
        (the output is then dropped, and ``out`` left non-empty)."""
        out = self.out
        given = deadline
        while out:
            # (after EOF, or stdin hung up meanwhile, a bounded flush: security.md; bounded
            # by the peer's reading nothing for DRAIN_SECONDS, so one that reads slowly
            # still gets every answer)
            deadline = given if given is not None else self._eof_deadline
            try:
                del out[:os.write(self.wire, out)]
                if self._eof_deadline is not None:
                    self._drain_from_now()
                continue
            except (BlockingIOError, InterruptedError):
                pass
            except OSError as exc:
                if exc.errno not in _QUIET_ERRORS:
                    self.log("warning", "stdio: closed: write failed: %s" % exc)
                self.gone = True
                return
            if self._wait_writable(deadline):
                if given is None and deadline is not None:
                    self.log("warning", "stdio: closed: none of the output read for %g s after "
                             "the end of input" % DRAIN_SECONDS)
                    self.gone = True
                return

    def _drain_from_now(self):
        """Output may go unread for ``DRAIN_SECONDS`` from now: set at EOF (or when stdin
        hangs up), and again each time the peer reads some of it."""
        self._eof_deadline = time.monotonic() + DRAIN_SECONDS

    def _wait_writable(self, deadline):
        """Wait until stdout takes more; True when the wait should end the flush."""
        waiting = select.poll()
        waiting.register(self.wire, select.POLLOUT)
        waiting.register(self._wake_r, select.POLLIN)
        if self._eof_deadline is None:
            waiting.register(self.in_fd, 0)  # (only its hang-up: the host closed stdin)
        left = None if deadline is None else max(0, deadline - time.monotonic())
        if left == 0:
            return True
        for fd, events in waiting.poll(None if left is None else left * 1000):
            if fd == self._wake_r:
                self._run_calls()
            elif fd == self.in_fd and events & select.POLLHUP and self._eof_deadline is None:
                # the host closed stdin while not reading stdout: the flush is bounded from
                # now, as after EOF (what it sent before is still served while it lasts)
                self._drain_from_now()
                return False
        return deadline is None and self.stopping

    def _run_calls(self):
        try:
            while os.read(self._wake_r, 4096):
                pass
        except OSError:
            pass
        while self._signals:
            signum = self._signals.popleft()
            if signum in self._handlers:
                self._handlers[signum](signum)
        while self._calls:
            self._calls.popleft()()

    def _stop(self, signum):
        self.stopping = True

    def stop(self):  # (the Hub's loop.stop, from Server.stop through the wake-up pipe)
        self.stopping = True

    def close(self):
        self.workers.close()
        self._hub.close()
        for signum, old in self._saved.items():
            signal.signal(signum, old)
        if self._old_wakeup is not None:
            signal.set_wakeup_fd(self._old_wakeup)
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)


class _Timer:
    __slots__ = ("when", "callback")

    def __init__(self, when, callback):
        self.when, self.callback = when, callback

    def cancel(self):
        self.callback = None
