"""JSON-RPC 2.0 over newline-delimited UTF-8: framing, bounded reading, messages.

Sans-I/O: bytes in, values out. Nothing here knows MCP. stdio framing (every revision,
transports-stdio "stdio"): messages are delimited by newlines and MUST NOT contain
embedded newlines, so we split on b"\\n" only (never ``splitlines``, which would also
split on \\r, \\x0b, \\x1c, U+2028 ...).
"""

from itertools import accumulate

from .. import codec
from ..errors import InvalidRequest, ParseError


class TooLong:
    """Stands, among the lines ``LineBuffer.feed`` returns, for a line longer than the
    ``limit`` in force when it was cut off."""

    __slots__ = ("limit",)

    def __init__(self, limit):
        self.limit = limit


class LineBuffer:
    """Splits a byte stream into lines, holding at most ``max_line`` (+1 for a ``\\r``)
    bytes of a partial one. The limit is on the line without its ``\\n`` or ``\\r\\n``,
    and is given with each chunk: the one in force when the chunk arrives. A line longer
    than the limit is reported once as ``TooLong`` as soon as the limit is passed, and
    the rest of it is dropped as it arrives (never buffered)."""

    __slots__ = ("partial", "skipping")

    def __init__(self):
        self.partial = bytearray()
        self.skipping = False

    def feed(self, data, max_line):
        """The complete lines (``bytes`` without the newline, ``b""`` for a blank one, or
        ``TooLong``); ``data`` ``b""``: the end of the stream, where a last line without a
        newline is complete too."""
        if not data:
            tail, self.partial = bytes(self.partial), bytearray()
            skipping, self.skipping = self.skipping, False
            return _lines([tail], max_line) if tail and not skipping else []
        if self.skipping:
            end = data.find(b"\n")
            if end < 0:
                return []
            data, self.skipping = data[end + 1:], False
        lines = data.split(b"\n")
        tail = lines.pop()
        if lines:  # (a newline: the partial line is complete)
            if self.partial:
                self.partial += lines[0]
                lines[0] = bytes(self.partial)
            self.partial = bytearray(tail)
        else:
            self.partial += tail  # (a bytearray: a line read in many pieces is copied once)
        out = _lines(lines, max_line)
        if len(self.partial) > max_line + 1:  # (+1: room for a final \r)
            self.partial, self.skipping = bytearray(), True
            out.append(TooLong(max_line))
        return out


def _lines(lines, max_line):
    out = []
    for line in lines:
        if line.endswith(b"\r"):
            line = line[:-1]  # (the limit counts the line, not its terminator: \n or \r\n)
        # (a blank line is one too, never served: ``--connect`` counts every line)
        out.append(TooLong(max_line) if len(line) > max_line else line if line.strip(b" \t\r") else b"")
    return out


class Refused:
    """A message refused before it is decoded (-32600, id null: JSON-RPC allows it when
    the id cannot be read): nested deeper than ``max_depth`` or holding more than
    ``max_line_values`` values; ``reason`` says which limit."""

    __slots__ = ("reason",)

    def __init__(self, reason):
        self.reason = reason


_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_NOT_BEFORE_VALUES = bytes(range(256)).translate(None, b",:[{")
#: a byte's step in nesting depth (each opener +1, each closer -1)
_STEP = [0] * 256
_STEP[0x5B] = _STEP[0x7B] = 1
_STEP[0x5D] = _STEP[0x7D] = -1


def _outside_strings(line, most):
    """``line`` without its strings, cut at C speed: escapes pair up left to right, so
    taking off the escaped backslashes, then the escaped quotes, leaves a quote only where
    a string starts or ends. None when it holds more than ``most`` strings (cutting them
    out costs a piece each): more values and keys than that."""
    if b"\\" in line:
        line = line.replace(b"\\\\", b"").replace(b'\\"', b"")
    return None if line.count(b'"') > 2 * most + 1 else b"".join(line.split(b'"')[::2])


def read_line(line, limits):
    """One line as a value to serve, or ``Refused``; raises ``ParseError``.

    Whether a line is served must not depend on the interpreter's recursion limit, and
    what decoding costs grows with the values: both are bounded before decoding, by
    counts at C speed (a line within the bounds costs a few counts). Values and object
    keys: each but the first follows a comma, a colon or an opener outside strings.
    Nesting: the deepest running sum of the brackets outside strings.
    """
    count, most = line.count, limits.max_line_values
    outside = None
    if len(line) > most and len(line.translate(None, _NOT_BEFORE_VALUES)) >= most:
        outside = _outside_strings(line, most)  # (no longer than that, a line holds no more)
        if outside is None or len(outside.translate(None, _NOT_BEFORE_VALUES)) >= most:
            return Refused("more than %d values and keys in one message (max_line_values)" % most)
    if count(b"[") + count(b"{") > limits.max_depth:
        outside = _outside_strings(line, most) if outside is None else outside
        if outside is None:
            return Refused("more than %d values and keys in one message (max_line_values)" % most)
        # (default=0: every bracket was inside a string, as in a bare string value)
        steps = map(_STEP.__getitem__, outside.translate(None, _NOT_BRACKETS))
        if max(accumulate(steps), default=0) > limits.max_depth:
            return Refused("nesting deeper than %d levels (max_depth)" % limits.max_depth)
    return decode(line)


def decode(line):
    """One line (bytes) as a value, or ``ParseError``. The line must be strict UTF-8 (no
    U+FFFD guessing): 2025-11-25 transports "JSON-RPC messages MUST be UTF-8 encoded"."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError("Parse error: invalid UTF-8 at byte %d" % exc.start)
    try:
        return codec.loads(text)
    except RecursionError:
        raise ParseError("Parse error: nesting too deep")
    except ValueError as exc:
        # str(JSONDecodeError) gives the position, never the input itself.
        raise ParseError("Parse error: %s" % (exc,))


def response(rid, result):
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def error(rid, err):
    """An error response; ``err`` is the error object (``ProtocolError.to_wire()``)."""
    return {"jsonrpc": "2.0", "id": rid, "error": err}


def notification(method, params=None):
    return {"jsonrpc": "2.0", "method": method} if params is None else {
        "jsonrpc": "2.0", "method": method, "params": params}


def is_notification(msg):
    """A notification: a valid Request object without an id (JSON-RPC 2.0 section 4.1: its
    ``params``, when given, "MUST be provided as a Structured value", section 4.2; null is
    taken as absent). Any other object without an id is an invalid Request, refused -32600
    with id null, as section 7's own example answers ``{"jsonrpc": "2.0", "method": 1}``."""
    params = msg.get("params")
    return "id" not in msg and type(msg.get("method")) is str and msg.get("jsonrpc") == "2.0" and (
        params is None or type(params) is dict or type(params) is list)


def is_response(msg):
    """A JSON-RPC response (a client's answer, never answered back): no method, a result
    or an error."""
    return "method" not in msg and ("result" in msg or "error" in msg)


def check_id(msg):
    """The request id if it is a string or an integer (never bool/float/null/object);
    ``InvalidRequest`` otherwise (basic-overview "Requests": ids MUST be a string or
    integer and MUST NOT be null)."""
    rid = msg["id"]
    if type(rid) is str or type(rid) is int:
        return rid
    raise InvalidRequest("Invalid Request: id must be a string or an integer")
