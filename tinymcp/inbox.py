"""The inbox: lines read but not served yet, the counterpart of the outbox.

A read's complete lines wait here (``LineBuffer`` framing, with the ``max_line_bytes``
in force as each piece arrives) until the session serves them; a budget may hold some
back. Items are ``bytes`` (a line), ``TooLong``, a ``Decoded`` line (already read while
looking for early cancels, never decoded again), or the ``ParseError`` that reading met.
"""

from .errors import ParseError
from .jsonrpc import LineBuffer, decode, flatten_if_deeper, too_many_values

try:
    from _collections import deque  # (what collections re-exports, without its imports)
except ImportError:  # pragma: no cover
    from collections import deque

__all__ = ["Inbox", "Decoded"]


class Decoded:
    """A held-back line already decoded: never decoded again."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class Inbox(deque):
    """The items waiting, in order (a deque: its length and truth are asked per line, at
    C speed), with the framing of what comes next."""

    __slots__ = ("_lines", "eof")

    def __init__(self):
        deque.__init__(self)
        self._lines = LineBuffer()
        #: the peer's end of input has been read
        self.eof = False

    def feed(self, data, max_line):
        """Bytes read from the peer (``b""`` at its EOF)."""
        if data:
            self.extend(self._lines.feed(data, max_line))
        else:
            self.extend(self._lines.close(max_line))
            self.eof = True

    def cancels(self, queued, limits):
        """Take out the held ``notifications/cancelled`` that name a request id for which
        ``queued(rid)`` is true, and return those ids, in order. Each held line is decoded
        once, here, and kept decoded for its turn (a line too deep stays as it is: it is
        refused in turn, and is never a cancel, as is one with too many values)."""
        found, kept = [], []
        for item in self:
            if type(item) is bytes:
                try:
                    if not too_many_values(item, limits.max_line_values) \
                            and flatten_if_deeper(item, limits.max_depth) is None:
                        item = Decoded(decode(item))
                except ParseError as exc:
                    item = exc
            rid = _cancelled_id(item.value) if type(item) is Decoded else None
            if rid is not None and queued(rid):
                found.append(rid)
                continue
            kept.append(item)
        self.clear()
        self.extend(kept)
        return found


def _cancelled_id(msg):
    """The request id a well-formed ``notifications/cancelled`` names, else None."""
    if type(msg) is not dict or "id" in msg or msg.get("jsonrpc") != "2.0" \
            or msg.get("method") != "notifications/cancelled":
        return None
    params = msg.get("params")
    rid = params.get("requestId") if type(params) is dict else None
    return rid if type(rid) is str or type(rid) is int else None
