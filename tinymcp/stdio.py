"""The stdio transport (every revision, transports-stdio "stdio"): a pump between fds and a Session.

The server reads JSON-RPC messages from stdin and writes them to stdout; it MUST NOT
write anything to stdout that is not a valid MCP message, and MAY log to stderr. So
while serving, the wire keeps a private duplicate of fd 1, and fd 1 and ``sys.stdout``
point at stderr: a stray ``print()`` (or a child process) cannot corrupt the stream.
"""

import os
import stat
import sys

from .loop import Loop
from .pump import Hub, StreamPump, stderr_log
from .session import no_log

__all__ = ["serve_stdio", "stderr_log", "StreamPump"]


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


def serve_stdio(server, in_fd=0, out_fd=1, source=None):
    """Serve one session on stdin/stdout until EOF or SIGTERM/SIGINT; return 0.

    ``source`` (a ``reload.ConfigFile``) reloads the config on SIGHUP and, when watched,
    on change; ``Server.replace_config`` from any thread reaches the session too.
    """
    if server.log is no_log:
        server.log = stderr_log
    sys.stdout.flush()
    wire = os.dup(out_fd)
    saved_out = os.dup(out_fd)
    os.dup2(2, out_fd)
    saved_stdout, sys.stdout = sys.stdout, sys.stderr
    in_blocking = _nonblocking_if_pipe(in_fd)
    # (the wire shares fd 1's open file: its flag must be put back, or whatever writes to
    # that pipe after us gets EAGAIN)
    out_blocking = _nonblocking_if_pipe(wire)
    loop = Loop()
    hub = Hub(loop, server)
    try:
        def closed(pump):
            hub.discard(pump)
            loop.stop()

        hub.add(StreamPump(loop, server.session(), in_fd, wire, closed, log=server.log,
                           name="stdio"))
        hub.run(source)
    finally:
        hub.close()  # (hub.run did, unless something failed before it)
        loop.close()
        if out_blocking is not None:
            try:
                os.set_blocking(wire, out_blocking)
            except OSError:
                pass
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
