"""The Unix socket transport: many clients on one stream socket, each connection its own
Session (either protocol era, chosen by how the client opens), with the stdio framing
(newline-delimited JSON-RPC; 2026-07-28 transports "Custom Transports": a custom
transport over a reliable byte stream SHOULD reuse the stdio framing).

Everything runs on one non-blocking ``Loop``; each connection is a ``StreamPump`` with
socket-sized backpressure bounds (see ``pump``), so a client that stops reading, or
stalls in the middle of a line, costs the others nothing.

The socket file is made in a 0700 folder of its own and linked into place with its group
and mode (0600 unless asked), so it is never more open than asked, and no link swapped in
at the path can redirect a chmod; an existing path is replaced only when it is a socket nobody
answers on, and the file is removed on exit only if it is still ours. Peers are checked
with SO_PEERCRED where the platform has it: the server's own uid and root, plus any
``allow_uids``.
"""

import errno
import itertools
import os
import socket
import stat
import struct
import sys
from contextlib import suppress

from ..codec import encode
from ..errors import ListenError, UsageError
from ..io.disk import looked_for
from ..io.log import Throttle, stderr_log
from ..io.loop import Loop
from ..io.pump import Hub, StreamPump, read_some
from ..io.workers import Workers
from ..protocol.jsonrpc import error
from ..protocol.session import Session, log_hook

DEFAULT_MAX_CLIENTS = 1024
#: Per connection: stop reading a client while this much output waits for it ...
HIGH_WATER = 64 * 1024
#: ... read again once it is down to this much ...
LOW_WATER = 16 * 1024
#: ... and close it if notifications pushed while it does not read pass this.
HARD_LIMIT = 1024 * 1024
#: Connections accepted per loop round, so a connection storm cannot starve the others.
ACCEPTS_PER_ROUND = 64
#: After accept() fails for want of file descriptors, wait this long before retrying.
ACCEPT_RETRY = 0.1

_OUT_OF_FDS = frozenset((errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM))


# --- peer credentials -------------------------------------------------------------------

def _peercred_option():
    """SO_PEERCRED, or None where the platform has none. Some builds (Debian's PyPy 3.9)
    leave the constant out on Linux, where it is 17 on the common architectures."""
    opt = getattr(socket, "SO_PEERCRED", None)
    return 17 if opt is None and sys.platform.startswith("linux") and os.uname().machine in (
        "x86_64", "i686", "i386", "aarch64", "armv7l", "armv6l", "riscv64") else opt


def peer_credentials(sock):
    """``(pid, uid)`` of a connected peer, or None where the platform has no SO_PEERCRED
    (raises OSError when it has but the call fails: the caller refuses the peer)."""
    opt = _peercred_option()
    if opt is None:
        return None
    # struct ucred (Linux) is {pid, uid, gid}; struct sockpeercred (OpenBSD) {uid, gid, pid}
    layout = "IIi" if sys.platform.startswith("openbsd") else "iII"
    fields = struct.unpack(layout, sock.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize(layout)))
    return fields[:2] if layout == "iII" else (fields[2], fields[0])


# --- the socket file ----------------------------------------------------------------------

def _clear_path(path, log):
    """Leave ``path`` free for bind: nothing there, or a stale socket removed."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ListenError("cannot inspect %s: %s" % (path, exc.strerror or exc))
    if not stat.S_ISSOCK(st.st_mode):
        raise ListenError("%s exists and is not a socket; not replacing it" % path)
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.setblocking(False)
        probe.connect(path)
    except ConnectionRefusedError:
        pass  # nothing answers: a stale socket left by a server that died
    except FileNotFoundError:
        return
    except (BlockingIOError, InterruptedError):
        raise ListenError("another server is listening on %s (its backlog is full)" % path)
    except OSError as exc:
        raise ListenError("cannot tell whether a server answers on %s (%s); not replacing it"
                          % (path, exc.strerror or exc))
    else:
        raise ListenError("another server is listening on %s" % path)
    finally:
        probe.close()
    try:
        os.unlink(path)
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            raise ListenError("cannot remove the stale socket %s: %s" % (path, exc.strerror or exc))
    log("info", "removed a stale socket at %s (nothing answered on it)" % path)


def listen(path, log=stderr_log, mode=0o600, gid=None):
    """A non-blocking listening socket bound at ``path``, and what identifies the file
    (``_identity``) so that only this very file is removed at exit.

    The file is bound in a folder of its own (0700, beside ``path``: nobody else can reach
    it or swap it there), given group ``gid`` and ``mode``, then linked at ``path`` (which
    fails if anything came to be there): it is never more open than asked, and a chmod by
    path never follows a link somebody put there (nor is the process's umask touched).
    """
    if not hasattr(socket, "AF_UNIX"):
        raise ListenError("Unix sockets are not available on this platform; serve on stdio instead")
    _clear_path(path, log)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # (bound at a longer path than ``path``: a path too long to connect to is refused, as bind refuses it)
    private = "%s.%07d" % (path, os.getpid())  # (7 digits whatever the pid: the longest path it takes is one)
    inner = os.path.join(private, "s")
    try:
        os.mkdir(private, 0o700)
        try:
            sock.bind(inner)
            os.chown(inner, -1, -1 if gid is None else gid)
            os.chmod(inner, mode)
            sock.listen(socket.SOMAXCONN)
            sock.setblocking(False)
            st = os.lstat(inner)
            os.link(inner, path)  # (last: a group or mode it could not set leaves no socket behind)
        finally:
            with suppress(OSError):
                os.unlink(inner)
            os.rmdir(private)
    except OSError as exc:  # (where it failed, when not at the path: bind's own error names no file)
        sock.close()
        at = exc.filename or (inner if "too long" in str(exc) else path)
        note = looked_for(path) if exc.errno == errno.ENOENT else "" if at == path else "at %s, %d bytes" % (
            at, len(os.fsencode(at)))
        if exc.errno == errno.EPERM and gid is not None and (exc.filename, exc.filename2) == (inner, None):  # (chown's)
            note = "--socket-group names a group this user is not in"
        raise ListenError("cannot listen on %s: %s%s" % (path, exc.strerror or exc, note and " (%s)" % note))
    return sock, _identity(st)


def _identity(st):
    """A socket file's identity: device and inode are reused once a file is deleted (a
    regular file put in its place can get the same inode), so its type and modification
    time are part of it."""
    return (stat.S_ISSOCK(st.st_mode), st.st_dev, st.st_ino, st.st_mtime_ns)


class RefusalLog:
    """Logs a repeating event (a refused connection, a failed accept), at most ``burst``
    lines per ``period`` seconds; the ones past that are counted, and the count is logged
    with the first event of a later period (and at exit), ``summary % (count, plural)``."""

    def __init__(self, log, burst=20, period=10.0, clock=None,
                 summary="refused %d more connection%s without a line each"):
        self.log, self.summary, self.throttle = log, summary, Throttle(burst, period, clock)

    def __call__(self, message):
        if self.throttle.allow():  # (past the burst, only the first of a later period is)
            self.flush()
            self.log("warning", message)

    def flush(self):
        if (dropped := self.throttle.take_dropped()):
            self.log("warning", self.summary % (dropped, "" if dropped == 1 else "s"))


#: JSON-RPC 2.0 section 5.1: -32000 to -32099 are for implementation-defined server errors.
REFUSED = -32000
#: A refused connection is kept (reading and dropping what it sends) until its peer
#: closes, for at most this long: closing while its input is unread would make its
#: next read fail (ECONNRESET) before it could read why it was refused ...
LINGER_SECONDS = 2.0
#: ... and at most this many at once (past that, a connect flood is closed at once).
LINGER_MOST = 64


def _raise_fd_limit(need, log):
    """Lift the soft open-files limit towards ``need`` (within the hard limit)."""
    with suppress(ImportError, ValueError, OSError):
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < need:
            new = need if hard == resource.RLIM_INFINITY else min(need, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
            if new < need:
                log("warning", "open-files limit %d is below the %d that --max-clients needs" % (new, need))


# --- serving -----------------------------------------------------------------------------

class _Acceptor:
    """Accepts connections on a listening socket and gives each admitted peer a pump."""

    def __init__(self, loop, hub, listener, max_clients, allow_uids, log):
        self.loop, self.hub, self.listener, self.log = loop, hub, listener, log
        #: the clients' callables run on these threads (shared: a few per server)
        self.workers = Workers(loop.call_soon_threadsafe, loop.call_later, log)
        self.fd = listener.fileno()
        self.max_clients = max_clients
        self.own_uid = os.geteuid() if hasattr(os, "geteuid") else None
        self.allow = frozenset(allow_uids)
        self.refusals = RefusalLog(log)
        self.accept_failures = RefusalLog(log, summary="%d more failed accept%s without a line each")
        self.numbers = itertools.count(1)
        self.sockets = {}  # pump -> its socket
        self.others = set()  # the pumps of peers with neither our uid nor root's (--allow-uid)
        self.lingering = {}  # fd -> a refused connection, until its peer closes

    def start(self):
        self.loop.add_reader(self.fd, self.accept)

    def stop(self):
        """Stop accepting (before the shutdown drain)."""
        self.loop.forget(self.fd)
        self.listener.close()

    def close(self):
        self.workers.close()
        self.refusals.flush()
        self.accept_failures.flush()
        for sock in list(self.sockets.values()) + list(self.lingering.values()):
            sock.close()
        self.sockets.clear()
        self.lingering.clear()
        self.listener.close()

    def refuse(self, conn, name, message, reason):
        """A connection we will not serve (the client ``name``): "refused NAME: message"
        in the log (``RefusalLog``), and "Connection refused: reason" told to the peer in
        one JSON-RPC error line (id null) before our end closes; what it sends meanwhile
        is read and dropped (see ``LINGER_SECONDS``)."""
        self.refusals("refused %s: %s" % (name, message))
        with suppress(OSError):  # (a full buffer, a peer gone: the close still follows)
            conn.setblocking(False)
            conn.send(encode(error(None, {"code": REFUSED, "message": "Connection refused: " + reason})))
            conn.shutdown(socket.SHUT_WR)
        if len(self.lingering) >= LINGER_MOST:
            conn.close()
            return
        fd = conn.fileno()
        self.lingering[fd] = conn
        self.loop.add_reader(fd, lambda: self._end_linger(fd, conn, read_some(fd)))
        self.loop.call_later(LINGER_SECONDS, lambda: self._end_linger(fd, conn))

    def _end_linger(self, fd, conn, read=b""):
        """Close a refused connection at its time, or once ``read`` (what was read from it,
        dropped) is its end or an error (``b""``: ``read_some``)."""
        if read == b"" and self.lingering.get(fd) is conn:
            del self.lingering[fd]
            self.loop.forget(fd)
            conn.close()

    def accept(self):
        for _ in range(ACCEPTS_PER_ROUND):
            try:
                conn = self.listener.accept()[0]
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno == errno.ECONNABORTED:
                    continue
                if exc.errno in _OUT_OF_FDS:
                    self.accept_failures("cannot accept a connection: %s; retrying in %g s"
                                         % (exc.strerror, ACCEPT_RETRY))
                    self.loop.add_reader(self.fd, None)
                    self.loop.call_later(ACCEPT_RETRY, self._resume)
                    return
                raise
            self.admit(conn)

    def _resume(self):
        if not self.loop.closed and self.listener.fileno() >= 0:
            self.start()

    def admit(self, conn):
        name = "client %d" % next(self.numbers)
        try:
            creds = peer_credentials(conn)
        except OSError as exc:
            return self.refuse(conn, name, "cannot read its credentials: %s" % exc,
                               "the server cannot tell who you are")
        # (a peer with neither our uid nor root's must be one --allow-uid names)
        other = creds is not None and creds[1] not in (self.own_uid, 0)
        if creds is not None:
            name += " (pid %d, uid %d)" % creds
            if other and creds[1] not in self.allow:
                return self.refuse(conn, name, "uid %d may not connect (see --allow-uid)" % creds[1],
                                   "uid %d may not connect to this server (its operator can allow "
                                   "it with --allow-uid)" % creds[1])
        # --allow-uid peers together hold at most half the places (one at least), so theirs
        # alone cannot lock out the server's own user
        most, held, whose = self.max_clients, self.hub.pumps, ""
        if other and len(held) < most:
            most, held, whose = max(1, most // 2), self.others, " of other users"
        if len(held) >= most:
            busy = "already serving %d client%s%s" % (most, "" if most == 1 else "s", whose)
            return self.refuse(conn, name, busy + " (--max-clients)",
                               "the server is %s (--max-clients); try again later" % busy)
        conn.setblocking(False)
        fd = conn.fileno()
        pump = StreamPump(self.loop, Session(self.hub.server, log=self.log, executor=self.workers), fd, fd,
                          self._closed, high=HIGH_WATER, low=LOW_WATER, hard=HARD_LIMIT, log=self.log, name=name)
        self.sockets[pump] = conn
        if other:
            self.others.add(pump)
        self.hub.add(pump)

    def _closed(self, pump):
        self.workers.forget(pump.session)  # (its callables not begun: nobody reads their answers)
        self.hub.discard(pump)
        self.others.discard(pump)
        sock = self.sockets.pop(pump, None)  # (a close after the acceptor's own, at shutdown, finds none)
        if sock is not None:
            sock.close()


def serve_unix(server, path, max_clients=DEFAULT_MAX_CLIENTS, allow_uids=(), source=None, log=None,
               mode=0o600, gid=None):
    """Serve every connection to the Unix socket ``path`` until SIGTERM/SIGINT; return 0.

    Raises ``ListenError`` before serving when the path cannot be used. At shutdown:
    stop accepting, end each session's listen streams, give pending output
    ``pump.DRAIN_SECONDS``, close every connection, remove the socket file. ``log``: the
    diagnostics hook (default: the server's, else stderr). The ``server`` is never changed.
    ``mode`` and ``gid``: the socket file's permissions and group (see ``listen``); the
    peer check (own uid, root, ``allow_uids``) still gates every connection.
    """
    log = log_hook(log, server, stderr_log)
    if (gid is not None and not mode & 0o020) or (allow_uids and not mode & 0o022):  # (connect needs write)
        log("warning", "socket mode %04o lets no other user in (connecting needs write permission)" % mode)
    listener, ident = listen(path, log, mode=mode, gid=gid)
    loop = Loop()
    hub = Hub(loop, server, log)
    acceptor = _Acceptor(loop, hub, listener, max_clients, allow_uids, log)
    try:
        _raise_fd_limit(max_clients + 64 + LINGER_MOST, log)
        if _peercred_option() is None:
            log("info", "no SO_PEERCRED on this platform: access rests on the socket "
                "file's mode, %04o" % mode)
        acceptor.start()
        hub.run(source, before_drain=acceptor.stop, ready=lambda: log("info", "listening on %s" % path))
    finally:
        hub.close()
        acceptor.close()
        loop.close()
        with suppress(OSError):  # (ours only: what another server put there since stays)
            if _identity(os.lstat(path)) == ident:
                os.unlink(path)
    return 0


def serve_options(opts, server, source):
    """``serve_unix`` as the command line's options ask (``cli.parse_args``; the values of
    the socket's own options are read here: ``UsageError`` for one that is no value)."""
    for text in opts["allow_uids"]:
        if not all(part.strip().isascii() and part.strip().isdigit() for part in text.split(",")):
            raise UsageError("--allow-uid needs numeric uids separated by commas, got %r" % text)
    uids = {int(part) for text in opts["allow_uids"] for part in text.split(",")}
    text = opts["socket_mode"] or "600"  # (never "": cli refuses an empty value; as chmod reads it, octal digits)
    mode = -1 if text.strip("01234567") else int(text, 8)
    if not 0 <= mode <= 0o777:
        raise UsageError("--socket-mode needs an octal mode such as 0660, got %r" % text)
    gid = None if opts["socket_group"] is None else _gid(opts["socket_group"])
    return serve_unix(server, opts["socket"], max_clients=opts["max_clients"] or DEFAULT_MAX_CLIENTS,
                      allow_uids=uids, source=source, mode=mode, gid=gid)


def _gid(group):
    """The gid of ``group`` (a name, or a number), which must exist (root may give a file
    any number: one no group has would be a mistake nobody sees)."""
    try:
        import grp
    except ImportError:
        raise ListenError("groups are not available on this platform")
    number = group.isascii() and group.isdigit()
    try:
        return grp.getgrgid(int(group)).gr_gid if number else grp.getgrnam(group).gr_gid
    except (KeyError, OverflowError):
        raise ListenError("--socket-group: no group %s %r (see /etc/group)"
                          % ("numbered" if number else "named", group))
