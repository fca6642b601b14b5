"""The stdio transport (every revision, transports-stdio "stdio"): a pump between fds and a Session.

The server reads JSON-RPC messages from stdin and writes them to stdout; it MUST NOT
write anything to stdout that is not a valid MCP message, and MAY log to stderr. So
while serving, the wire keeps a private duplicate of fd 1, and fd 1 and ``sys.stdout``
point at stderr: a stray ``print()`` (or a child process) cannot corrupt the stream.
"""

import os
import stat
import sys

from .pump import READ_SIZE, Hub, StreamPump, stderr_log

__all__ = ["serve_stdio", "stderr_log", "StreamPump"]

#: Windows cannot poll pipes (select takes sockets only): stdio is served there by a
#: plain blocking read-serve-write loop instead (no --watch, SIGHUP or run-time changes).
CAN_POLL_PIPES = os.name != "nt"


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
        if poll:
            return _serve_polled(server, in_fd, wire, source, log)
        return _serve_blocking(server, in_fd, wire, source, log)
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
    try:
        def closed(pump):
            hub.discard(pump)
            loop.stop()

        hub.add(StreamPump(loop, server.session(log=log), in_fd, wire, closed, log=log,
                           name="stdio"))
        hub.run(source)
    finally:
        hub.close()  # (hub.run did, unless something failed before it)
        loop.close()
        for fd, was in ((wire, out_blocking), (in_fd, in_blocking)):
            if was is not None:
                try:
                    os.set_blocking(fd, was)
                except OSError:
                    pass
    return 0
