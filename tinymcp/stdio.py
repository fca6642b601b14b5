"""The stdio transport (every revision, transports-stdio "stdio"): a pump between fds and a Session.

The server reads JSON-RPC messages from stdin and writes them to stdout; it MUST NOT
write anything to stdout that is not a valid MCP message, and MAY log to stderr. So
while serving, the wire keeps a private duplicate of fd 1, and fd 1 and ``sys.stdout``
point at stderr: a stray ``print()`` (or a child process) cannot corrupt the stream.
"""

import errno
import os
import signal
import stat
import sys

from .loop import Loop
from .session import no_log

__all__ = ["serve_stdio", "stderr_log", "StreamPump"]

READ_SIZE = 65536
#: Stop reading input while this much output waits for the peer (backpressure).
HIGH_WATER = 4 * 1024 * 1024
#: After SIGTERM/SIGINT or EOF, give pending output this long to drain.
DRAIN_SECONDS = 2.0

_QUIET_ERRORS = (errno.EPIPE, errno.ECONNRESET, errno.EBADF)


def stderr_log(level, message, exc=None):
    """The CLI's log hook: one line on stderr, plus the traceback when there is one."""
    try:
        err = sys.__stderr__ or sys.stderr
        err.write("tinymcp: %s: %s\n" % (level, message))
        if exc is not None:
            import traceback
            traceback.print_exception(type(exc), exc, exc.__traceback__, file=err)
        err.flush()
    except (OSError, ValueError):
        pass


class StreamPump:
    """Moves bytes between a readable fd, a writable fd and a Session on a Loop."""

    def __init__(self, loop, session, in_fd, out_fd, on_close):
        self.loop = loop
        self.session = session
        self.in_fd = in_fd
        self.out_fd = out_fd
        self.on_close = on_close
        self.out = bytearray()
        self.reading = True
        self.eof = False
        self.closed = False
        loop.add_reader(in_fd, self.on_readable)

    def on_readable(self):
        try:
            data = os.read(self.in_fd, READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.eof = True
            self.pause_reading()
        self.send(self.session.receive_data(data))
        if self.eof and not self.out:
            self.close()

    def pause_reading(self):
        if self.reading:
            self.reading = False
            self.loop.remove_reader(self.in_fd)

    def resume_reading(self):
        if not self.reading and not self.eof and not self.closed:
            self.reading = True
            self.loop.add_reader(self.in_fd, self.on_readable)

    def send(self, data):
        if not data or self.closed:
            return
        if self.out:
            self.out += data
        else:
            self.out = bytearray(data)
            self.on_writable()
            if self.closed:
                return
        if self.out:
            self.loop.add_writer(self.out_fd, self.on_writable)
            if len(self.out) > HIGH_WATER:
                self.pause_reading()

    def on_writable(self):
        try:
            n = os.write(self.out_fd, self.out)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            if exc.errno in _QUIET_ERRORS:
                self.close()  # the peer went away: end quietly
                return
            raise
        del self.out[:n]
        if not self.out:
            self.loop.remove_writer(self.out_fd)
            if self.eof:
                self.close()
            else:
                self.resume_reading()

    def close(self):
        if not self.closed:
            self.closed = True
            self.loop.forget(self.in_fd)
            self.loop.forget(self.out_fd)
            self.on_close(self)


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


def serve_stdio(server, in_fd=0, out_fd=1):
    """Serve one session on stdin/stdout until EOF or SIGTERM/SIGINT; return 0."""
    if server.log is no_log:
        server.log = stderr_log
    sys.stdout.flush()
    wire = os.dup(out_fd)
    saved_out = os.dup(out_fd)
    os.dup2(2, out_fd)
    saved_stdout, sys.stdout = sys.stdout, sys.stderr
    in_blocking = _nonblocking_if_pipe(in_fd)
    _nonblocking_if_pipe(wire)
    loop = Loop()
    try:
        pump = StreamPump(loop, server.session(), in_fd, wire, lambda p: loop.stop())

        def stop(signum):
            pump.pause_reading()
            pump.eof = True
            if not pump.out:
                pump.close()
            else:
                loop.stop()

        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop)
        loop.run()
        _drain(loop, pump)
    finally:
        loop.close()
        os.close(wire)
        os.dup2(saved_out, out_fd)
        os.close(saved_out)
        sys.stdout = saved_stdout
        if in_blocking is not None:
            try:
                os.set_blocking(in_fd, in_blocking)
            except OSError:
                pass
    return 0


def _drain(loop, pump):
    """Give output still pending after a stop a bounded time to reach the peer."""
    import time
    deadline = time.monotonic() + DRAIN_SECONDS
    while pump.out and not pump.closed:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        loop.add_writer(pump.out_fd, pump.on_writable)
        loop.run_once(left)
