"""JSON-RPC 2.0 over newline-delimited UTF-8: framing, decoding, encoding.

Sans-I/O: bytes in, values out, and back. Nothing here knows MCP.
stdio framing (every revision, transports-stdio "stdio"): messages are delimited by
newlines and MUST NOT contain embedded newlines, so we split on b"\\n" only (never
``splitlines``, which would also split on \\r, \\x0b, \\x1c, U+2028 ...).
"""

import json
import re  # already loaded by json.decoder: no import cost

from .errors import InvalidRequest, ParseError

__all__ = ["LineBuffer", "TOO_LONG", "decode", "encode", "flatten_if_deeper", "inner_containers",
           "DEFAULT_MAX_LINE"]

DEFAULT_MAX_LINE = 16 * 1024 * 1024

#: Yielded by ``LineBuffer.feed`` in place of a line that exceeded the limit.
TOO_LONG = object()

_BLANK = b" \t\r"


class LineBuffer:
    """Splits a byte stream into lines, holding at most ``max_line`` (+1 for a ``\r``)
    bytes of a partial one. The limit is on the line without its ``\n`` or ``\r\n``.

    A line longer than the limit is reported once as ``TOO_LONG`` as soon as the
    limit is passed, and the rest of it is dropped as it arrives (never buffered).
    """

    __slots__ = ("max_line", "_partial", "_skipping")

    def __init__(self, max_line=DEFAULT_MAX_LINE):
        self.max_line = max_line
        self._partial = bytearray()
        self._skipping = False

    def feed(self, data):
        """Return the complete lines (``bytes`` without the newline, or ``TOO_LONG``)."""
        out = []
        if self._skipping:
            nl = data.find(b"\n")
            if nl < 0:
                return out
            data = data[nl + 1:]
            self._skipping = False
        if self._partial:
            nl = data.find(b"\n")
            if nl < 0:
                self._partial += data
                if len(self._partial) > self.max_line + 1:  # (+1: room for a final \r)
                    self._overflow(out)
                return out
            self._partial += data[:nl]
            line = bytes(self._partial)
            self._partial = bytearray()
            self._emit(line, out)
            data = data[nl + 1:]
        lines = data.split(b"\n")
        tail = lines.pop()
        for line in lines:
            self._emit(line, out)
        if tail:
            if len(tail) > self.max_line + 1:
                self._overflow(out)
            else:
                self._partial += tail
        return out

    def close(self):
        """End of stream: the final unterminated line, if any, as a list like ``feed``."""
        out = []
        if self._partial and not self._skipping:
            self._emit(bytes(self._partial), out)
        self._partial = bytearray()
        self._skipping = False
        return out

    def _emit(self, line, out):
        if line.endswith(b"\r"):
            line = line[:-1]  # the limit counts the line, not its terminator (\n or \r\n)
        if len(line) > self.max_line:
            out.append(TOO_LONG)
            return
        if line and line.strip(_BLANK):
            out.append(line)

    def _overflow(self, out):
        self._partial = bytearray()
        self._skipping = True
        out.append(TOO_LONG)


def reject_constant(name):
    # Python's json accepts NaN/Infinity/-Infinity; JSON (RFC 8259) does not.
    raise ValueError("%s is not valid JSON" % name)


def _parse_int(digits):
    # Python 3.11+ refuses ints over 4300 digits with a message naming interpreter
    # internals; 3.8-3.10 parse them in quadratic time. One rule for every version.
    if len(digits) > 4000:
        raise ValueError("integer literal longer than 4000 digits")
    return int(digits)


_decoder = json.JSONDecoder(parse_constant=reject_constant, parse_int=_parse_int)
_scan_once = _decoder.scan_once


def _loads(text):
    # The scanner straight away, and JSONDecoder.decode (same errors, same messages)
    # only when the line is not one bare JSON value: 3.5 -> 2.1 us a request.
    try:
        value, end = _scan_once(text, 0)
    except StopIteration:
        return _decoder.decode(text)  # raises the usual JSONDecodeError (or succeeds
        #                               past leading white space)
    if end != len(text) and text[end:].strip(" \t\r\n"):
        return _decoder.decode(text)  # raises "Extra data"
    return value


def decode(line):
    """Parse one line (bytes) into a Python value, or raise ``ParseError``.

    The line must be strict UTF-8 (no U+FFFD guessing, no UTF-16 sniffing): 2025-11-25
    transports "JSON-RPC messages MUST be UTF-8 encoded".
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError("Parse error: invalid UTF-8 at byte %d" % exc.start)
    try:
        return _loads(text)
    except RecursionError:
        raise ParseError("Parse error: nesting too deep")
    except ValueError as exc:
        # str(JSONDecodeError) gives the position, never the input itself.
        raise ParseError("Parse error: %s" % (exc,))


# A JSON string (escapes included) or one bracket: strings are skipped whole, so the
# brackets inside them never count as nesting. An unterminated string runs to the end of
# the line (after a lone trailing backslash too): every quote then starts a match that
# succeeds, which keeps the scan linear (with only '"' as the end, a hostile line of
# escaped quotes made each quote scan to the end and fail: quadratic, minutes at 80 KB).
_STRING_OR_BRACKET = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)|[\[\]{}]', re.S)


_CLOSES = {0x5B: 0x5D, 0x7B: 0x7D}  # [ -> ], { -> }


def _scan(line):
    """``(deepest, spans, paired)``: how deep ``line`` nests, the ``(start, end)`` spans of
    the containers directly inside its top-level one, and whether its brackets pair up.
    A token scan with an explicit stack, never recursion; strings are skipped whole."""
    stack = bytearray()
    deepest = start = 0
    spans = []
    for match in _STRING_OR_BRACKET.finditer(line):
        c = match.group()[0]
        if c == 0x22:  # '"': a whole string
            continue
        if c in _CLOSES:
            stack.append(c)
            if len(stack) > deepest:
                deepest = len(stack)
            if len(stack) == 2:
                start = match.start()
        else:
            if not stack or _CLOSES[stack.pop()] != c:
                return deepest, spans, False
            if len(stack) == 1:
                spans.append((start, match.end()))
    return deepest, spans, not stack


def flatten_if_deeper(line, limit):
    """``None`` when ``line`` nests ``limit`` containers deep or fewer; else the line with
    every container inside the top-level one replaced by ``null``.

    Whether a deep line parses must not depend on the interpreter's recursion limit or
    on how deep its stack already is (CPython's C scanner and PyPy's Python one give up
    at different depths), so depth is found by ``_scan``. The flattened line keeps the
    top level readable (a valid ``id`` is echoed, a container there reads as null);
    brackets that do not pair up and invalid UTF-8 raise ``ParseError``, the scalars
    deeper than the top level are not checked.
    """
    # Brackets bound the nesting from above: most lines never need the scan.
    if line.count(b"[") + line.count(b"{") <= limit:
        return None
    deepest, spans, paired = _scan(line)
    if deepest <= limit:
        return None
    if not paired:
        raise ParseError("Parse error: brackets do not pair up in a line nested deeper than %d levels"
                         % limit)
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError("Parse error: invalid UTF-8 at byte %d" % exc.start)
    pieces, done = [], 0
    for start, end in spans:
        pieces.append(line[done:start])
        pieces.append(b"null")
        done = end
    pieces.append(line[done:])
    return b"".join(pieces)


def inner_containers(line):
    """The ``line[start:end]`` spans of the containers directly inside its top-level one
    (the items of a batch)."""
    return _scan(line)[1]


_encoder = json.JSONEncoder(
    ensure_ascii=True, separators=(",", ":"), allow_nan=False, check_circular=False)


def _make_dumps():
    # JSONEncoder.encode builds its C encoder afresh on every call; one built once does
    # the same work (same output, same errors): 5.1 -> 3.3 us a reply. PyPy has no C
    # encoder and keeps the plain method.
    c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
    if c_make_encoder is None:
        return _encoder.encode
    c_encode = c_make_encoder(None, _encoder.default, json.encoder.encode_basestring_ascii, None,
                              ":", ",", False, False, False)

    def dumps(value):
        return "".join(c_encode(value, 0))
    return dumps


_dumps = _make_dumps()


def encode(message):
    """One compact, ASCII-only JSON line, newline included: every control character is
    escaped, so a message never holds an embedded newline (transports "stdio", every
    revision: messages MUST NOT contain embedded newlines)."""
    return _dumps(message).encode("ascii") + b"\n"


def check_id(msg):
    """The request id if it is a string or an integer (never bool/float/null/object).

    Raises ``InvalidRequest`` otherwise (basic-overview "Requests": ids MUST be a
    string or integer and MUST NOT be null).
    """
    rid = msg["id"]
    if type(rid) is str or type(rid) is int:
        return rid
    raise InvalidRequest("Invalid Request: id must be a string or an integer")
