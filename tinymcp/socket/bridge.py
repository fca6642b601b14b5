"""``--connect PATH``: stdio bridged to a ``--socket`` service, for hosts that only start
stdio servers (Claude Desktop, VS Code, Claude Code): one shared server, many hosts.

Bytes are relayed as they are, both ways (the socket speaks the stdio framing), with a
bounded buffer each way and ``poll()``, so neither side can stall the other: stdin's
end is passed on as a half-close, and the bridge exits when the server closes its side
(or stdout is gone). Errors go to stderr; stdout carries only what the server sent.
"""

import errno
import os
import select
import socket

from ..io.log import stderr_log
from ..io.pump import READ_SIZE, read_some
from ..io.stdio import nonblocking_if_pipe, restore_blocking

#: bytes held for the slower side, each way, before the faster one is read no more
BUFFERED = 1024 * 1024


def bridge(path, in_fd=0, out_fd=1, log=stderr_log):
    """Relay ``in_fd`` to the socket at ``path`` and the socket to ``out_fd``; returns the
    exit status: 0 when the server ended it (or stdout went away), 1 when it cannot
    connect."""
    if not hasattr(socket, "AF_UNIX"):
        log("error", "Unix sockets are not available on this platform")
        return 1
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as exc:
        sock.close()
        log("error", "cannot connect to %s: %s (is `tinymcp --socket %s` running?)"
            % (path, exc.strerror or exc, path))
        return 1
    sock.setblocking(False)
    restore = [(fd, nonblocking_if_pipe(fd)) for fd in (in_fd, out_fd)]
    try:
        _Relay(in_fd, out_fd, sock).run()
    finally:
        sock.close()
        for fd, was in restore:
            restore_blocking(fd, was)
    return 0


class _Relay:
    def __init__(self, in_fd, out_fd, sock):
        self.in_fd, self.out_fd, self.sock = in_fd, out_fd, sock
        self.to_server, self.to_host = bytearray(), bytearray()
        self.in_open = True     # stdin not at its end yet
        self.half_closed = False

    def run(self):
        sock_fd = self.sock.fileno()
        while True:
            poller = select.poll()
            if self.in_open and len(self.to_server) < BUFFERED:
                poller.register(self.in_fd, select.POLLIN)
            flags = (select.POLLIN if len(self.to_host) < BUFFERED else 0) | \
                (select.POLLOUT if self.to_server else 0)
            if flags:
                poller.register(sock_fd, flags)
            if self.to_host:
                poller.register(self.out_fd, select.POLLOUT)
            for fd, events in poller.poll():
                if fd == self.in_fd:
                    self._from_host()
                elif fd == sock_fd:
                    if events & (select.POLLIN | select.POLLHUP | select.POLLERR) and not self._from_server():
                        return self._flush_host()
                    if events & select.POLLOUT:
                        self._to_server()
                elif not self._to_host():
                    return  # stdout is gone
            if not self.in_open and not self.to_server and not self.half_closed:
                self.half_closed = True
                self.sock.shutdown(socket.SHUT_WR)  # the host's end, passed on

    def _from_host(self):
        data = read_some(self.in_fd)
        if data is None:
            return
        if data:
            self.to_server += data
        else:
            self.in_open = False

    def _to_server(self):
        try:
            del self.to_server[:self.sock.send(self.to_server)]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self.to_server.clear()  # the server is gone: its end comes as EOF
            self.in_open = False

    def _from_server(self):
        """Read what the server sent; False at its end."""
        try:
            data = self.sock.recv(READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            data = b""
        self.to_host += data
        return bool(data)

    def _to_host(self):
        """Write what waits for the host; False when stdout is gone."""
        try:
            del self.to_host[:os.write(self.out_fd, self.to_host)]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError as exc:
            return exc.errno not in (errno.EPIPE, errno.EBADF, errno.ECONNRESET)
        return True

    def _flush_host(self):
        """The server closed: give the host the rest, then end."""
        while self.to_host:
            select.select([], [self.out_fd], [])
            if not self._to_host():
                return
