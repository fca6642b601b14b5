"""The stdio transport (every revision, transports-stdio "stdio"): stdin and stdout to a Session.

The server reads JSON-RPC messages from stdin and writes them to stdout; it MUST NOT
write anything to stdout that is not a valid MCP message, and MAY log to stderr. So
while serving, the wire keeps a private duplicate of fd 1, and fd 1 and ``sys.stdout``
point at stderr: a stray ``print()`` (or a child process) cannot corrupt the stream.

One session's pump on the loop, with signals, reloads and changes from other threads.
Where pipes cannot be polled (Windows), a blocking read-serve-write of the same session
serves instead, without run-time changes.
"""

import os
import stat
import sys

from ..protocol.session import Session, log_hook
from .loop import Loop
from .pump import DRAIN_SECONDS, READ_SIZE, Hub, StreamPump


#: Windows cannot poll pipes (select takes sockets only)
CAN_POLL_PIPES = os.name != "nt"


def nonblocking_pipes(fds):
    """Make each of ``fds`` non-blocking when it is a pipe or socket (never a shared
    terminal); returns ``[(fd, its old blocking mode)]`` of those made so, in order, for
    ``restore_blocking``."""
    modes = []
    for fd in fds:
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            modes.append((fd, os.get_blocking(fd)))
            os.set_blocking(fd, False)
    return modes


def restore_blocking(modes):
    """Put back the blocking modes ``nonblocking_pipes`` changed, the last changed first
    (stdin and stdout may share one open file, a socket under inetd: the first mode wins)."""
    for fd, was in reversed(modes):
        try:
            os.set_blocking(fd, was)
        except OSError:
            pass


def stderr_log(level, message, exc=None):
    """``io.log.stderr_log``, loaded by the first line logged (a session that goes well
    logs none)."""
    from .log import stderr_log
    stderr_log(level, message, exc)


def valid_std_fds():
    """Started with ``0<&-``, ``1>&-`` or ``2>&-``, the process has a free fd 0, 1 or 2 that
    the next file opened would take (the config file, the socket, the protocol stream):
    each one closed is made ``/dev/null`` first, and ``sys.stdin/stdout/stderr`` with it, where
    Python left it None (a program's own object stays: the log writes to it) (the command line's
    first step, and ``serve_stdio``'s: with fd 2 free, the wire's copy of fd 1 took it, and what a
    callable wrote to fd 1 went out on the wire)."""
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        try:
            os.fstat(fd)
        except OSError:  # (opened at the lowest free fd: this one, those below it open by now; else a
            # thread of the program took it meanwhile, and it stays that thread's)
            if os.open(os.devnull, os.O_RDWR) == fd:
                os.set_inheritable(fd, True)  # (a std fd: a callable's child process has it too)
                if getattr(sys, name) is None:
                    setattr(sys, name, open(fd, mode, closefd=False))
                    setattr(sys, "__%s__" % name, getattr(sys, name))


def serve_stdio(server, in_fd=0, out_fd=1, source=None, log=None, poll=None):
    """Serve one session on stdin/stdout until EOF or SIGTERM/SIGINT; return 0.

    ``source`` (a ``source.ConfigFile``) reloads the config on SIGHUP and, when watched,
    on change; ``Server.replace_config`` from any thread reaches the session too. ``log``:
    the diagnostics hook (default: the server's, else stderr). The ``server`` is never
    changed.
    """
    log = log_hook(log, server, stderr_log)
    poll = CAN_POLL_PIPES if poll is None else poll
    valid_std_fds()
    sys.stdout.flush()
    wire, saved_out = os.dup(out_fd), os.dup(out_fd)
    os.dup2(2, out_fd)
    saved_stdout, sys.stdout = sys.stdout, sys.stderr
    try:
        if not poll:
            if source is not None and source.watch:  # (nothing here could wake for a change)
                log("warning", "--watch: pipes cannot be polled here, so the prompts are never reloaded")
            return _serve_blocking(server, in_fd, wire, log)
        # (the wire shares fd 1's open file: its mode is put back, or whatever writes to
        # that pipe after us gets EAGAIN)
        modes = nonblocking_pipes((in_fd, wire))
        loop = Loop()
        hub = Hub(loop, server, log)
        workers = _Executor(loop, log)
        try:
            def closed(pump):
                hub.discard(pump)
                loop.stop()

            # (eof_drain, security.md: a bounded flush after EOF)
            hub.add(StreamPump(loop, Session(server, log=log, executor=workers), in_fd, wire, closed,
                               log=log, name="stdio", eof_drain=DRAIN_SECONDS))
            hub.run(source)
        finally:
            workers.close()
            hub.close()
            loop.close()
            restore_blocking(modes)
        return 0
    finally:
        os.close(wire)
        os.dup2(saved_out, out_fd)
        os.close(saved_out)
        sys.stdout = saved_stdout


class _Executor:
    """The session's executor: ``workers.Workers``, made (and imported) by the first
    callable that runs (a JSON config has none)."""

    def __init__(self, loop, log):
        self.loop, self.log, self.workers, self.post = loop, log, None, loop.call_soon_threadsafe

    def submit(self, work, done, timeout=None, owner=None):
        if self.workers is None:
            from .workers import Workers
            self.workers = Workers(self.post, self.loop.call_later, self.log)
        self.workers.submit(work, done, timeout, owner)

    def close(self):
        if self.workers is not None:
            self.workers.close()


def _serve_blocking(server, in_fd, wire, log):
    """Read, serve, write, until EOF, Ctrl-C or a closed stdout (where pipes cannot be
    polled: nothing could deliver a change, so none is promised)."""
    session = Session(server, log=log, list_changed=False)
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
