"""``--connect PATH``: stdio bridged to a ``--socket`` service, for hosts that only start
stdio servers (Claude Desktop, VS Code, Claude Code): one shared server, many hosts.

Bytes are relayed as they are, both ways (the socket speaks the stdio framing), with a
bounded buffer each way and ``poll()``, so neither side can stall the other: stdin's
end is passed on as a half-close, and the bridge exits when the server closes its side
(or stdout is gone), giving the host what is left for as long as it reads (a bounded
flush, as the server's). The ids of requests on their way are kept from the lines going
by: when the server goes away first, each is answered -32000 and the exit status is 1,
so the host sees it. Errors go to stderr; stdout carries only frames.
"""

import errno
import os
import select
import socket

from ..codec import encode, loads
from ..errors import ParseError
from ..io.disk import looked_for
from ..io.log import stderr_log
from ..io.loop import HALF_CLOSED
from ..io.pump import DRAIN_SECONDS, QUIET_ERRORS, read_some
from ..io.stdio import nonblocking_pipes, restore_blocking
from ..model.limits import Limits
from ..protocol.jsonrpc import error, is_notification, read_line
from .unix import peer_credentials

#: bytes held for the slower side, each way, before the faster one is read no more
BUFFERED = 1024 * 1024
#: the longest line read whole (of a longer one, its first ``_HEAD`` bytes, where the id of
#: a reply of ours is: a prompts/list page may be longer; a request that long goes untracked)
TRACKED, _HEAD = 64 * 1024 * 1024, 4096
#: how every reply the server writes begins: only the id after it is decoded (a rendered
#: prompt of 8 MiB costs pure-Python JSON, as on python3-minimal, seconds to decode whole)
_REPLY = b'{"jsonrpc":"2.0","id":'
#: what bounds the decoding of a line, as the server's defaults bound it (a host's line of millions of values,
#: which the server refuses unread, took the bridge to 500 MB and past a capped memory to a MemoryError)
_BOUNDS = Limits()


def bridge(path, in_fd=0, out_fd=1, log=stderr_log):
    """Relay ``in_fd`` to the socket at ``path`` and the socket to ``out_fd``; returns the
    exit status: 0 when the host ended it (or stdout went away), 1 when it cannot connect
    or the server went away first."""
    if not hasattr(socket, "AF_UNIX"):
        log("error", "Unix sockets are not available on this platform")
        return 1
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
        # (whoever can write the socket's folder can put a server there: one not run by us,
        # root or the folder's owner may be anybody's, as in a shared /tmp)
        uid = (peer_credentials(sock) or (0, 0))[1]  # (none to read: the file mode is the gate)
        if uid and uid not in (os.geteuid(), os.stat(os.path.dirname(os.path.abspath(path))).st_uid):
            raise OSError("its server runs as uid %d, not as you, root or the owner of its folder" % uid)
    except OSError as exc:
        sock.close()
        hint = ("its mode or group keeps you out: --socket-mode, --socket-group" if exc.errno == errno.EACCES else
                ("is `tinymcp --socket %s` running? " % path + looked_for(path)).rstrip() if exc.errno else "")
        log("error", "cannot connect to %s: %s%s" % (path, exc.strerror or exc, hint and " (%s)" % hint))
        return 1
    sock.setblocking(False)
    restore = nonblocking_pipes((in_fd, out_fd))
    relay = _Relay(in_fd, out_fd, sock, log)
    try:
        relay.run()
    finally:
        sock.close()
        restore_blocking(restore)
    if relay.server_first:
        log("error", "the server at %s closed the connection%s%s" % (path, " (%s)" % relay.why if relay.why else "", (
            ": %d request%s answered -32000" % (len(relay.asked), "" if len(relay.asked) == 1 else "s"))
            if relay.asked else ""))
    return 1 if relay.server_first else 0


class _Relay:
    def __init__(self, in_fd, out_fd, sock, log):
        self.in_fd, self.out_fd, self.sock, self.log = in_fd, out_fd, sock, log
        self.to_server, self.to_host, self.half_closed = bytearray(), bytearray(), False
        self.in_open = True     # stdin not at its end yet
        self.server_first = False  # the server closed first: host input still open, or requests unanswered
        self.mid_line = False      # what came from the server last ends in the middle of a line
        self.asked = {}  # the requests not answered yet: key -> (id, the number of its line)
        self.lines = {"host": bytearray(), "server": bytearray()}  # each way's unfinished line
        self.counted = {"host": 0, "server": 0}  # each way's lines so far
        self.refused = set()  # host lines refused unread before the bridge had them whole
        self.why = None  # the service's refusal of this client ("Connection refused: ..."), when it sent one

    def run(self):
        sock_fd = self.sock.fileno()
        while True:
            poller = select.poll()
            if self.in_open:  # (holding its fill for the server: still told of the host's end, then read to it)
                poller.register(self.in_fd, select.POLLIN if len(self.to_server) < BUFFERED else HALF_CLOSED)
            # (registered even with no flags: poll still reports the server's hang-up)
            poller.register(sock_fd, (select.POLLIN if len(self.to_host) < BUFFERED else 0)
                            | (select.POLLOUT if self.to_server else 0))
            if self.to_host:
                poller.register(self.out_fd, select.POLLOUT)
            ready = poller.poll(DRAIN_SECONDS * 1000 if not self.in_open and self.to_host else None)
            if not ready:  # (after the host's end, as the server's own bounded flush)
                self.log("warning", "--connect: closed: none of the output read for %g s after the "
                         "end of input" % DRAIN_SECONDS)
                return
            for fd, events in ready:
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
        if data == b"":  # (the last line, unended, is served too: one line more)
            self.in_open, data = False, b"\n" if self.lines["host"] else b""
        elif data:
            self.to_server += data
        for msg, line, in_array in self._messages("host", data or b""):
            if line in self.refused:  # (refused as too long before the bridge had all of it)
                continue
            if "method" in msg and "id" in msg and (not in_array or type(msg["id"]) in (int, str)):
                self.asked[_key(msg["id"])] = msg["id"], line
            elif is_notification(msg) and msg["method"] == "notifications/cancelled" \
                    and type(msg.get("params")) is dict:
                self.asked.pop(_key(msg["params"].get("requestId")), None)  # (never answered)

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
        data = read_some(self.sock.fileno())
        if data:  # (None: nothing to read now; b"": its end, where nothing is left to relay)
            self.to_host += data
            self.mid_line = not data.endswith(b"\n")
            for msg, _, in_array in self._messages("server", data):
                if "method" in msg or "id" not in msg:
                    continue
                if msg["id"] is not None:
                    self.asked.pop(_key(msg["id"]), None)
                elif not in_array and type(msg.get("error")) is dict and msg["error"].get("code") == -32000:
                    self.why = str(msg["error"].get("message"))  # (its answers and the host's log say it)
                elif not in_array and type(msg.get("error")) is dict and type(msg["error"].get("data")) is dict:
                    # a line refused unread, id null (not JSON, too long or too deep, no valid
                    # id, a batch refused whole): the server names the line (``data.line``)
                    line = msg["error"]["data"].get("line")
                    self.asked = {key: asked for key, asked in self.asked.items() if asked[1] != line}
                    if type(line) is int and line > self.counted["host"]:
                        self.refused.add(line)
        return data != b""

    def _messages(self, side, data):
        """``(message, line, in an array)`` for each message (an array's one by one) of the
        lines ``data`` completes on ``side``; ``line``: the number of its line on that side,
        as the server numbers the lines it reads (blank ones too)."""
        rest = self.lines[side]
        end = data.rfind(b"\n")
        if end < 0:
            rest += data
            if len(rest) > TRACKED:  # (a line past every bound: its head kept, where a reply's id is)
                del rest[_HEAD:]
            return ()
        lines = (bytes(rest) + data[:end]).split(b"\n")
        rest[:] = data[end + 1:]
        out = []
        for line in lines:
            self.counted[side] += 1
            try:
                # (a reply of ours, or a batch's array of them: each id, not its result, decoded, where a
                # reply starts (quotes in strings are escaped: only a config's _meta could spell one); an
                # error with id null whole, unless in an array, where none names a line)
                array, at = line.startswith(b"[" + _REPLY), len(_REPLY)
                if side == "server" and (array or line.startswith(_REPLY) and not line.startswith(b"null", at)):
                    for part in line[at + array:].split(b"}," + _REPLY) if array else [line[at:]]:
                        head = min((part.partition(after)[0] for after in (b',"result":', b',"error":')), key=len)
                        if len(head) < len(part) and head != b"null":
                            out.append(({"id": loads(head.decode("utf-8"))}, self.counted[side], array))
                    continue
                msg = read_line(line, _BOUNDS)  # (Refused: not tracked, as the server refuses it)
            except (ValueError, ParseError, RecursionError):  # (a reply's id nested past the stack: left untracked)
                continue
            array = type(msg) is list
            out.extend((m, self.counted[side], array) for m in (msg if array else (msg,)) if type(m) is dict)
        return out

    def _to_host(self):
        """Write what waits for the host; False when stdout is gone."""
        try:
            del self.to_host[:os.write(self.out_fd, self.to_host)]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError as exc:  # (gone, or unwritable: ENOSPC, EIO spun the loop for good)
            if exc.errno not in QUIET_ERRORS:
                self.log("warning", "--connect: closed: writing to stdout failed: %s" % exc)
            return False
        return True

    def _flush_host(self):
        """The server closed: when it went first (the host's input still open, or requests
        unanswered), answer what it left unanswered (-32000, as the SDKs call a closed
        connection); give the host the rest while it reads (a line the server left
        unfinished ended first, so the next is whole), then end."""
        self.server_first = self.in_open or bool(self.asked)
        if self.mid_line:
            self.to_host += b"\n"
        if self.server_first:
            closed = {"code": -32000, "message": self.why or "Connection closed: the tinymcp server went away "
                                                               "before answering"}
            # (an id of 1e400, read as an infinity JSON cannot write, is answered as the server would: id null)
            unsent = [None if rid in (float("inf"), float("-inf")) else rid for rid, _ in self.asked.values()]
            self.to_host += b"".join(encode(error(rid, closed)) for rid in unsent)
        while self.to_host:
            if not select.select([], [self.out_fd], [], DRAIN_SECONDS)[1]:
                self.log("warning", "--connect: closed: none of the output read for %g s after "
                         "the server's end" % DRAIN_SECONDS)
                return
            if not self._to_host():
                return


def _key(rid):
    """What tells ids apart: 1 and "1" are two ids."""
    return (type(rid).__name__, rid if type(rid) in (int, str) else repr(rid))
