"""JSON-RPC 2.0 over newline-delimited UTF-8: framing, decoding, encoding.

Sans-I/O: bytes in, values out, and back. Nothing here knows MCP.
stdio framing (every revision, transports-stdio "stdio"): messages are delimited by
newlines and MUST NOT contain embedded newlines, so we split on b"\\n" only (never
``splitlines``, which would also split on \\r, \\x0b, \\x1c, U+2028 ...).
"""

from .errors import InvalidRequest, ParseError

__all__ = ["LineBuffer", "TooLong", "Refused", "read_line", "decode", "encode", "dumps", "loads",
           "hooked_scanner", "Encoded", "escaped_size", "encode_response",
           "response", "error", "notification", "check_id", "is_response"]


class TooLong:
    """Yielded by ``LineBuffer.feed`` in place of a line longer than ``limit`` bytes (the
    limit that was in force when the line was cut off)."""

    __slots__ = ("limit",)

    def __init__(self, limit):
        self.limit = limit

    def __eq__(self, other):
        return type(other) is TooLong and other.limit == self.limit

    __hash__ = None

    def __repr__(self):
        return "TooLong(%d)" % self.limit


_BLANK = b" \t\r"


class LineBuffer:
    """Splits a byte stream into lines, holding at most ``max_line`` (+1 for a ``\r``)
    bytes of a partial one. The limit is on the line without its ``\n`` or ``\r\n``,
    and is given with each chunk: the one in force when the chunk arrives.

    A line longer than the limit is reported once as ``TooLong`` as soon as the
    limit is passed, and the rest of it is dropped as it arrives (never buffered).
    """

    __slots__ = ("_partial", "_skipping")

    def __init__(self):
        self._partial = bytearray()
        self._skipping = False

    def feed(self, data, max_line):
        """Return the complete lines (``bytes`` without the newline, or ``TooLong``)."""
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
                if len(self._partial) > max_line + 1:  # (+1: room for a final \r)
                    self._overflow(out, max_line)
                return out
            self._partial += data[:nl]
            line = bytes(self._partial)
            self._partial = bytearray()
            self._emit(line, out, max_line)
            data = data[nl + 1:]
        lines = data.split(b"\n")
        tail = lines.pop()
        for line in lines:
            self._emit(line, out, max_line)
        if tail:
            if len(tail) > max_line + 1:
                self._overflow(out, max_line)
            else:
                self._partial += tail
        return out

    def close(self, max_line):
        """End of stream: the final unterminated line, if any, as a list like ``feed``."""
        out = []
        if self._partial and not self._skipping:
            self._emit(bytes(self._partial), out, max_line)
        self._partial = bytearray()
        self._skipping = False
        return out

    @staticmethod
    def _emit(line, out, max_line):
        if line.endswith(b"\r"):
            line = line[:-1]  # the limit counts the line, not its terminator (\n or \r\n)
        if len(line) > max_line:
            out.append(TooLong(max_line))
            return
        if line and line.strip(_BLANK):
            out.append(line)

    def _overflow(self, out, max_line):
        self._partial = bytearray()
        self._skipping = True
        out.append(TooLong(max_line))


def reject_constant(name):
    # Python's json accepts NaN/Infinity/-Infinity; JSON (RFC 8259) does not.
    raise ValueError("%s is not valid JSON" % name)


#: the longest integer literal read: ``int()`` takes quadratic time in the digits (~1 us
#: at 300 digits, ~6 at 1000, ~70 at 4000: a 16 MiB line of 4000-digit integers held the
#: loop ~0.3 s on CPython, of 1000-digit ones ~0.13 s), and Python 3.11+ refuses ints over
#: 4300 digits with a message naming interpreter internals. One rule for every version,
#: far past any id or count.
MAX_INT_DIGITS = 300


def _parse_int(digits):
    if len(digits) > MAX_INT_DIGITS and len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError("integer literal longer than %d digits" % MAX_INT_DIGITS)
    return int(digits)


# --- the codec ---------------------------------------------------------------------------
# ``import json`` costs more than the rest of the package (it loads ``re``, and ``re``
# loads ``enum``). The work is done by the C accelerator ``_json`` that ``json`` wraps,
# so we use it directly where it behaves exactly as ``json`` does (checked on a sample
# when this module loads), and the ``json`` module itself, imported on first need, for
# everything else: its error messages, and interpreters without the accelerator (PyPy).

try:
    from _json import encode_basestring_ascii as _c_ascii
    from _json import make_encoder as _c_make_encoder
    from _json import make_scanner as _c_make_scanner
except ImportError:  # pragma: no cover - PyPy
    _c_ascii = _c_make_encoder = _c_make_scanner = None

_standard = []  # [json.JSONDecoder, json.JSONEncoder, json], made on first need


def _json_module():
    if not _standard:
        import json
        _standard.append(json.JSONDecoder(parse_constant=reject_constant, parse_int=_parse_int))
        _standard.append(json.JSONEncoder(ensure_ascii=True, separators=(",", ":"),
                                          allow_nan=False, check_circular=False))
        _standard.append(json)
    return _standard


class _ScanContext:
    """What ``_json.make_scanner`` reads off a ``JSONDecoder``."""
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = staticmethod(_parse_int)
    parse_constant = staticmethod(reject_constant)
    memo = None


_SAMPLE = {"a": [1, -2.5, "\u00e9\n\ud800", None, True, {"": {}}], "b": ""}
_SAMPLE_TEXT = '{"a":[1,-2.5,"\\u00e9\\n\\ud800",null,true,{"":{}}],"b":""}'


class _ShortScanContext(_ScanContext):
    """For a text too short to hold an integer ``_parse_int`` refuses: ``int`` itself,
    which the C scanner calls without a Python call."""
    parse_int = int


def _make_scan_once(make_scanner=_c_make_scanner, context=_ScanContext):
    """The C scanner's ``scan_once(text, 0) -> (value, end)``, or None where it is missing
    or does not read the sample as ``json`` would."""
    if make_scanner is None:
        return None
    try:
        scan_once = make_scanner(context())
        if scan_once(_SAMPLE_TEXT, 0) == (_SAMPLE, len(_SAMPLE_TEXT)):
            return scan_once
    except Exception:
        pass
    return None


_scan_once = _make_scan_once()
#: ``_scan_once`` for texts of at most ``MAX_INT_DIGITS`` characters
_scan_short = _make_scan_once(context=_ShortScanContext) if _scan_once is not None else None


def hooked_scanner(object_hook):
    """``scan_once(text, index) -> (value, end)``: the C scanner ``loads`` uses, with every
    object it makes passed through ``object_hook`` (which returns what stands in its
    place); None where ``loads`` has no C scanner (PyPy)."""
    if _scan_once is None:
        return None
    context = _ScanContext()
    context.object_hook = object_hook
    return _c_make_scanner(context)


def loads(text):
    """``text`` as one JSON value (no NaN or Infinity, integers of at most ``MAX_INT_DIGITS``);
    raises ``ValueError`` as ``json.loads`` does, or ``RecursionError``.

    The C scanner straight away, and ``JSONDecoder.decode`` (same errors, same messages)
    only when the text is not one bare JSON value.
    """
    if _scan_once is not None:
        try:
            value, end = _scan_once(text, 0)
        except Exception:
            # StopIteration (not a value here), or an error raised in a way that needs
            # ``json`` loaded (CPython before 3.12): the standard decoder says what is wrong
            # (or succeeds past leading white space)
            return _json_module()[0].decode(text)
        if end == len(text) or not text[end:].strip(" \t\r\n"):
            return value
        return _json_module()[0].decode(text)  # raises "Extra data"
    # No C scanner (PyPy): its json.loads has a fast decoder of its own, which hooks turn
    # off; so the checking decoder only for text that holds what it refuses (a NaN or
    # Infinity read as a number, not one in a string) or an integer too long.
    json = _json_module()[2]
    if not _long_digits(text):
        try:
            value = json.loads(text)
            if ("NaN" not in text and "Infinity" not in text) or _all_finite(value):
                return value
        except ValueError:
            pass  # (its messages differ: the checking decoder's are the ones we give)
    return _json_module()[0].decode(text)


def _all_finite(value):
    """Whether no float in ``value`` (decoded JSON) is NaN or infinite: where one is, the
    text may have held NaN or Infinity (or a number too large, such as 1e400, which the
    checking decoder takes as infinite too)."""
    stack = [value]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is float:
            if value - value != 0:  # (NaN for NaN and the infinities)
                return False
        elif kind is dict:
            stack.extend(value.values())
        elif kind is list:
            stack.extend(value)
    return True


def _long_digits(text):
    """Whether ``text`` holds a run of more than ``MAX_INT_DIGITS`` digits (an integer
    ``_parse_int`` refuses). Tried only where a run starts, so in linear time (tried at
    every digit, a line of runs just short of the bound took quadratic time)."""
    if len(text) <= MAX_INT_DIGITS:
        return False
    # Such a run covers a whole block of half that length starting at a multiple of it:
    # when no such block is all digits, there is none (the blocks tried at C speed).
    size, end = (MAX_INT_DIGITS + 1) // 2, len(text)
    blocks = map(text.__getitem__, map(slice, range(0, end, size), range(size, end + size, size)))
    if not any(map(str.isdigit, blocks)):
        return False
    import re  # (loaded by json already)
    return re.search(r"(?<![0-9])[0-9]{%d}" % (MAX_INT_DIGITS + 1), text) is not None


def decode(line):
    """Parse one line (bytes) into a Python value, or raise ``ParseError``.

    The line must be strict UTF-8 (no U+FFFD guessing, no UTF-16 sniffing): 2025-11-25
    transports "JSON-RPC messages MUST be UTF-8 encoded".
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError("Parse error: invalid UTF-8 at byte %d" % exc.start)
    if _scan_once is not None:  # (loads' first step, without its call: the common case)
        try:
            value, end = (_scan_short if len(text) <= MAX_INT_DIGITS else _scan_once)(text, 0)
            if end == len(text):
                return value
        except Exception:
            pass  # loads says what is wrong
    try:
        return loads(text)
    except RecursionError:
        raise ParseError("Parse error: nesting too deep")
    except ValueError as exc:
        # str(JSONDecodeError) gives the position, never the input itself.
        raise ParseError("Parse error: %s" % (exc,))


# A JSON string (escapes included), or a run of opening or of closing brackets: strings
# are skipped whole, so the brackets inside them never count as nesting. An unterminated
# string runs to the end of the line (after a lone trailing backslash too): every quote
# then starts a match that succeeds, which keeps the scan linear (with only '"' as the
# end, a hostile line of escaped quotes made each quote scan to the end and fail). The
# pattern starts with the set of its first characters, so that the search skips what
# lies between tokens at C speed (a first character read from an alternation is not).
_TOKEN = rb'["\[{\]}](?:(?<=")[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)|(?<=[\[{])[\[{]*|(?<=[\]}])[\]}]*)'
_compiled = []  # (the token finditer), made on the first line that needs a scan
_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_OPEN_TO_CLOSE = bytes.maketrans(b"[{", b"]}")
_SAME = bytes.maketrans(b"{}", b"[]")
_NOT_BEFORE_VALUES = bytes(range(256)).translate(None, b",:[{")
#: a refused line (too deep, too many values) is flattened to echo its id only when it
#: holds at most this many tokens (strings and bracket runs), walked in Python at ~0.3 us
#: each: past it, the answer has id null (a request nesting 40,000 one-key objects holds
#: ~80,000; what the walk costs is held to ~0.05 s)
MAX_FLATTEN_TOKENS = 100000
#: tokens read from each end of a refused line too large to flatten, for the top-level
#: members before its first nested value and after its last (where clients write the
#: id: see ``_ends``)
HEAD_TOKENS = 64
#: passes that take the innermost pairs off go on while each takes off at least this
#: share of what is left (a pass costs ~2 ns a byte); then the runs are summed at C speed
#: (~0.1 us a run). Teeth of depth d cost d passes or 2/d runs a byte: the worst shape
#: (teeth ~10 deep) is where the two meet.
PASS_SHARE = 10


def _tokens(line):
    """The matches of ``_TOKEN`` in ``line``, in order."""
    if not _compiled:
        import re  # (only for lines that are refused, and are flattened to read their id)
        _compiled.append(re.compile(_TOKEN, re.S).finditer)
    return _compiled[0](line)


def _strings_cut(line, most):
    """``line`` without its strings (at C speed), or None when it holds more than ``most``
    of them (more than a line of at most ``most`` values can: cutting them out costs a
    piece each). Escapes pair up left to right, so taking off the escaped backslashes,
    then the escaped quotes, leaves a quote only where a string starts or ends (a stray
    backslash outside strings may shift what follows it, where the parser stops anyway:
    what it reads before it is cut alike)."""
    if b'"' in line:
        if b"\\" in line:
            line = line.replace(b"\\\\", b"").replace(b'\\"', b"")
        if line.count(b'"') > 2 * most + 1:
            return None
        line = b"".join(line.split(b'"')[::2])
    return line


def _brackets(line, outside=None):
    """The brackets of ``line`` outside its strings, in order (at C speed); ``outside``:
    the line without its strings, when they were cut out already. JSON has no more
    strings than values: a line with more is refused before they are cut out."""
    if outside is None:
        outside = _strings_cut(line, _values_in(line))
        if outside is None:
            raise ParseError("Parse error: more strings than values, so not JSON")
    return outside.translate(None, _NOT_BRACKETS)


def _values_in(outside):
    """At least as many as the values and object keys of a line (``outside``: the line
    without its strings; with them, more): each but the first follows a comma, a colon or
    an opener."""
    return len(outside.translate(None, _NOT_BEFORE_VALUES)) + 1


def _runs(tokens):
    """``(deepest, spans, paired)`` over ``tokens`` (an iterator of matches of ``_TOKEN``):
    the depth, the ``(start, end)`` spans of the containers directly inside the top-level
    one, and whether the brackets pair up; None past ``MAX_FLATTEN_TOKENS`` (each is a step
    in Python: the walk stops there). A run of brackets costs one step, whatever its length."""
    from itertools import islice
    stack = bytearray()
    deepest = start = 0
    spans = []
    for match in islice(tokens, MAX_FLATTEN_TOKENS):
        run = match.group()
        c = run[0]
        if c == 0x22:  # '"': a whole string
            continue
        before = len(stack)
        if c == 0x5B or c == 0x7B:  # [ or {
            stack += run
            if len(stack) > deepest:
                deepest = len(stack)
            if before < 2 <= len(stack):
                start = match.start() + 1 - before
            continue
        k = len(run)
        if k > before or stack[before - k:].translate(_OPEN_TO_CLOSE)[::-1] != run:
            return deepest, spans, False
        del stack[before - k:]
        if before >= 2 > len(stack):
            spans.append((start, match.start() + before - 1))
    if next(tokens, None) is not None:
        return None  # (more tokens than the walk takes)
    return deepest, spans, not stack


def _deeper_than(brackets, limit):
    """``(deeper than limit, paired)`` of a line's ``brackets``, in C-speed steps: the
    innermost pairs are taken off a pass at a time (each pass lowers the depth by exactly
    one: every deepest bracket pair is innermost) while that takes off much; what is left
    is summed a run at a time. ``paired`` counts brackets only: a pair of the wrong kinds
    is found here when it is adjacent, else by the parser or by the flattening
    (``flatten_if_deeper``). The passes see one kind of bracket: with two, taking off the
    ``[]`` pairs could make a ``{}`` pair that the same pass took off too (``{[]}``: two
    levels in one pass, so a line nested twice as deep as the limit passed)."""
    if b"[}" in brackets or b"{]" in brackets:
        return False, False  # (a bracket closed by the wrong kind: not JSON, whatever the depth)
    brackets = brackets.translate(_SAME)
    passes = 0
    while brackets:
        shorter = brackets.replace(b"[]", b"")
        removed, brackets = len(brackets) - len(shorter), shorter
        if not removed:
            break
        passes += 1
        if removed * PASS_SHARE < len(brackets):
            break  # (few peaks left: the runs are cheaper than more passes)
    deepest, paired = _run_depth(brackets)
    return passes + deepest > limit, paired


def _run_depth(brackets, step=1 << 20):
    """``(deepest, paired)`` of ``brackets`` (``[`` and ``]`` only) at C speed, a piece at a
    time (its lists stay small): runs of openers and of closers alternate, so the depth
    after the i-th run of openers is the openers up to it less the closers before it."""
    from itertools import accumulate, chain
    from operator import sub
    deepest = level = 0
    for start in range(0, len(brackets), step):
        piece = brackets[start:start + step]
        # a bar between every two runs, then the runs' lengths: openers' first
        runs = list(map(len, piece.replace(b"[]", b"[|]").replace(b"][", b"]|[").split(b"|")))
        if piece[:1] == b"]":
            runs.insert(0, 0)  # (the piece starts inside a run of closers)
        opens, closes = runs[0::2], runs[1::2]
        if len(closes) < len(opens):
            closes.append(0)  # (it ends inside a run of openers)
        ups, downs = list(accumulate(opens)), list(accumulate(closes))
        deepest = max(deepest, level + max(map(sub, ups, chain((0,), downs))))
        if level + min(map(sub, ups, downs)) < 0:
            return deepest, False  # (a closer with nothing open)
        level += ups[-1] - downs[-1]
    return deepest, level == 0


def _scan(line):
    """``(deepest, spans, paired)`` of ``line`` (see ``_runs``)."""
    return _runs(_tokens(line))


def flatten_if_deeper(line, limit, outside=None):
    """``None`` when ``line`` nests ``limit`` containers deep or fewer; else the line with
    every container inside the top-level one replaced by ``null`` (or ``b""`` when the
    line has too many tokens to flatten at a bounded cost: then no id is read).

    Whether a deep line parses must not depend on the interpreter's recursion limit or
    on how deep its stack already is (CPython's C scanner and PyPy's Python one give up
    at different depths), so depth is found by a scan (``_deeper_than``). The flattened
    line keeps the top level readable (a valid ``id`` is echoed, a container there reads
    as null); brackets that do not pair up and invalid UTF-8 raise ``ParseError``, the
    scalars deeper than the top level are not checked.
    """
    # Brackets bound the nesting from above: most lines never need the scan.
    if line.count(b"[") + line.count(b"{") <= limit:
        return None
    brackets = _brackets(line, outside)  # (``outside``: cut out already by the value count)
    deep, paired = _deeper_than(brackets, limit)
    if not paired:
        raise ParseError("Parse error: brackets do not pair up")
    return _flattened(line, brackets) if deep else None


def _flattened(line, brackets):
    """``line`` with every container inside the top-level one replaced by ``null``, or
    ``b""`` past ``MAX_FLATTEN_TOKENS`` (see ``flatten_if_deeper``)."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError("Parse error: invalid UTF-8 at byte %d" % exc.start)
    if _tokens_in(line, brackets) > MAX_FLATTEN_TOKENS:
        return b""
    scanned = _scan(line)
    if scanned is None:
        return b""
    _, spans, paired = scanned
    if not paired:  # (a pair of the wrong kinds the count could not see)
        raise ParseError("Parse error: brackets do not pair up")
    pieces, done = [], 0
    for start, end in spans:
        pieces.append(line[done:start])
        pieces.append(b"null")
        done = end
    pieces.append(line[done:])
    return b"".join(pieces)


def _tokens_in(line, brackets):
    """About the tokens ``_scan`` meets in ``line``, counted at C speed to give up at once
    on a line that plainly holds too many: its strings, and its runs of openers and of
    closers. Not a bound either way (an escaped quote counts, runs split by white space or
    a scalar count as one), so the walk itself stops at ``MAX_FLATTEN_TOKENS`` too."""
    strings = line.count(b'"') // 2 + 1
    if strings + len(brackets) <= MAX_FLATTEN_TOKENS:
        return strings + len(brackets)
    # (runs of openers and of closers alternate: each run of openers but the first
    # follows a closer, so at most twice one more than the closers followed by an opener)
    return strings + 2 * (brackets.translate(_SAME).count(b"][") + 1) + 1


def too_many_values(line, limit):
    """Whether ``line`` holds more than ``limit`` values and object keys (counted at C
    speed; a line that is not longer than ``limit`` bytes cannot): what decoding it costs
    grows with them (~0.1 to 0.6 us each), and this holds it down."""
    return _excess(line, limit)[0]


def _excess(line, limit):
    """``(over, outside)``: whether ``line`` holds more than ``limit`` values and keys, and
    the line without its strings when that had to be cut (else None; None when over, too,
    if it has more than ``limit`` strings)."""
    if len(line) <= limit or _values_in(line) <= limit:
        return False, None  # (counted with its strings: no fewer than without)
    outside = _strings_cut(line, limit)
    return outside is None or outside is line or _values_in(outside) > limit, outside


def _top_level(line, outside, limit):
    """The top level of a line that holds more than ``limit`` values (``outside``: the
    line without its strings, or None), decoded from the flattened line; when that
    cannot be read at a bounded cost, its members before the first nested value
    and after its last (``_ends``), or None."""
    if outside is None:
        outside = _strings_cut(line, MAX_FLATTEN_TOKENS)
        if outside is None:
            return _ends(line)
    flat = _flattened(line, outside.translate(None, _NOT_BRACKETS))
    return decode(flat) if flat and not too_many_values(flat, limit) else _ends(line)


def _ends(line):
    """The top-level members of a refused line too large to flatten that come before its
    first nested value and after its last, read in at most ``HEAD_TOKENS`` tokens from
    each end, as one object (``{"method":"m","params":null,"jsonrpc":"2.0","id":7}``):
    where clients write the id, before ``params`` (the Python SDK) or after it (the
    TypeScript SDK's ``{...request, jsonrpc, id}``), so it can still be echoed. Where one
    end cannot be read so, only a found id is kept (else None: the line is answered with
    id null, never taken for a notification, as the id may be in the unread end)."""
    head, tail = _head(line), _tail(line)
    if head is None or tail is None:
        found = head if tail is None else tail
        return found if found is not None and "id" in found else None
    head.update(tail)
    return head


def _tail(line):
    """The members of the object ``line`` after its last nested value, as an object
    (``{"jsonrpc":"2.0","id":7}``), read backwards over at most ``HEAD_TOKENS`` strings;
    ``{}`` when none follow it; None for anything else."""
    end = len(line.rstrip(b" \t\r\n")) - 1
    if end < 1 or line[end] != 0x7D:  # '}'
        return None
    at = bracket = end
    quotes = 4 * HEAD_TOKENS  # (quotes looked at, escaped ones too: the walk stays bounded)
    for _ in range(HEAD_TOKENS):
        if bracket >= at:  # (not looked for yet, or it was within the string passed)
            bracket = max(line.rfind(b"}", 0, at), line.rfind(b"]", 0, at))
        quote_at = line.rfind(b'"', 0, at)
        if bracket > quote_at:  # (no string after it: a nested value's end)
            members = line[bracket + 1:end].strip(b" \t\r\n")
            if not members:
                return {}
            if members[:1] != b",":
                return None
            try:
                value = decode(b"{" + members[1:] + b"}")
            except ParseError:
                return None
            return value if type(value) is dict else None
        if quote_at < 0:
            return None
        at = quote_at
        while True:  # (back to the quote that opens this string: one no odd run of '\\' escapes)
            at = line.rfind(b'"', 0, at)
            quotes -= 1
            if at < 0 or not quotes:
                return None
            if _backslashes_before(line, at) % 2 == 0:
                break
    return None


def _backslashes_before(line, at):
    """How many '\\' come right before ``line[at]``, counted at C speed (a window that
    grows fourfold while the run fills it)."""
    width = 16
    while True:
        start = max(0, at - width)
        run = at - start - len(line[start:at].rstrip(b"\\"))
        if run < at - start or not start:
            return run
        width *= 4


def _head(line):
    """The members of the object ``line`` that come before its first nested value, as an
    object with that value null and the rest left out (``{"jsonrpc":"2.0","id":7,
    "method":"m","params":null}``), read in at most ``HEAD_TOKENS`` tokens; None for
    anything else."""
    from itertools import islice
    tokens = _tokens(line)
    first = next(tokens, None)
    if first is None or first.group() != b"{" or line[:first.start()].strip(b" \t\r\n"):
        return None
    for match in islice(tokens, HEAD_TOKENS):
        c = match.group()[0]
        if c == 0x22:  # '"': a key or a string value
            continue
        if c != 0x5B and c != 0x7B:
            return None  # (a closer: no nested value)
        try:
            value = decode(line[:match.start()] + b"null}")
        except ParseError:
            return None
        return value if type(value) is dict else None
    return None


class Refused:
    """A message refused before it was decoded (-32600): nested deeper than ``max_depth``
    or holding more than ``max_line_values``. ``flat`` is its top level, decoded from the
    flattened line (None when that cannot be read at a bounded cost), from which a valid
    id can still be read; ``reason`` says which limit, for the error message."""

    __slots__ = ("flat", "reason")

    def __init__(self, flat, reason):
        self.flat = flat
        self.reason = reason


def _too_deep(flat, limit):
    return Refused(flat, "nesting deeper than %d levels (max_depth)" % limit)


def read_line(line, limits, batches):
    """One line as a value to serve: the decoded JSON, or ``Refused`` for a message that
    nests deeper than ``limits.max_depth`` or holds more than ``limits.max_line_values``
    values; raises ``ParseError``.

    With ``batches`` (the connection's revision has them) a batch too deep as a whole is
    judged item by item, so one deep item does not cost its siblings their replies: its
    container items are decoded (or ``Refused``) and its scalar items read as None. A
    batch with too many values is refused as a whole.
    """
    max_depth, max_values = limits.max_depth, limits.max_line_values
    outside = None
    if len(line) > max_values:  # (a line no longer than that cannot hold more)
        over, outside = _excess(line, max_values)
        if over:
            return Refused(_top_level(line, outside, max_values),
                           "more than %d values and keys in one message (max_line_values)" % max_values)
    if line.count(b"[") + line.count(b"{") <= max_depth:
        return decode(line)  # (the common case: too few brackets to nest too deep)
    # (within max_line_values: so the scans below cost at most a step a value)
    flat = flatten_if_deeper(line, max_depth, outside)
    if flat is None:
        return decode(line)
    msg = decode(flat) if flat else _ends(line)  # (b"": too many tokens to flatten)
    if type(msg) is not list or not batches:
        return _too_deep(msg, max_depth)
    items = []
    for start, end in _scan(line)[1]:  # (flattened: so at most MAX_FLATTEN_TOKENS)
        raw = line[start:end]
        inner = flatten_if_deeper(raw, max_depth - 1)
        items.append(decode(raw) if inner is None else _too_deep(decode(inner), max_depth))
    return items + [None] * (len(msg) - len(items))


# --- encoding ---------------------------------------------------------------------------

def _py_quote(text):
    from json.encoder import encode_basestring_ascii
    return encode_basestring_ascii(text)


#: ``quote(text)``: ``text`` as a JSON string, quotes included, exactly as ``encode``
#: writes it (ASCII-only)
quote = _c_ascii if _c_ascii is not None else _py_quote


def escaped_size(text):
    """The bytes ``text`` takes inside a JSON string on the wire (ASCII-escaped: up to 12
    a character), quotes not counted."""
    if text.isascii() and '"' not in text and "\\" not in text and text.isprintable():
        return len(text)
    return len(quote(text)) - 2


def _default(value):
    raise TypeError("Object of type %s is not JSON serializable" % type(value).__name__)


def _make_dumps(make_encoder=_c_make_encoder):
    """The fastest ``dumps`` that gives exactly the output and errors of
    ``json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), allow_nan=False)``.

    The C encoder built once does the same work as ``JSONEncoder.encode``, which builds it
    afresh on every call. Its constructor is private (positional arguments): where it is
    missing (PyPy), fails, or answers the sample differently, the ``json`` module is used.
    """
    if make_encoder is not None:
        try:
            c_encode = make_encoder(None, _default, _c_ascii, None, ":", ",", False, False, False)

            def dumps(value):
                return "".join(c_encode(value, 0))

            if dumps(_SAMPLE) == _SAMPLE_TEXT:
                return dumps
        except Exception:
            pass
    return lambda value: _json_module()[1].encode(value)


#: a value's compact, ASCII-only JSON text, without the newline ``encode`` frames a line with
dumps = _make_dumps()


def encode(message):
    """One compact, ASCII-only JSON line, newline included: every control character is
    escaped, so a message never holds an embedded newline (transports "stdio", every
    revision: messages MUST NOT contain embedded newlines)."""
    return dumps(message).encode("ascii") + b"\n"


# --- messages ----------------------------------------------------------------------------

class Encoded:
    """A result already encoded (``data``: one JSON value, no newline), sent as it is."""

    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data


def response(rid, result):
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def encode_response(rid, result):
    """``encode(response(rid, result))``, also for an ``Encoded`` result."""
    if type(result) is Encoded:
        rid = str(rid) if type(rid) is int else quote(rid) if type(rid) is str else dumps(rid)
        return b'{"jsonrpc":"2.0","id":' + rid.encode("ascii") + b',"result":' + result.data + b"}\n"
    return dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode("ascii") + b"\n"


def error(rid, err):
    """An error response; ``err`` is the error object (``ProtocolError.to_wire()``)."""
    return {"jsonrpc": "2.0", "id": rid, "error": err}


def notification(method, params=None):
    msg = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def is_response(msg):
    """A JSON-RPC response (a client's answer, never answered back): no method, a result
    or an error."""
    return "method" not in msg and ("result" in msg or "error" in msg)


def check_id(msg):
    """The request id if it is a string or an integer (never bool/float/null/object).

    Raises ``InvalidRequest`` otherwise (basic-overview "Requests": ids MUST be a
    string or integer and MUST NOT be null).
    """
    rid = msg["id"]
    if type(rid) is str or type(rid) is int:
        return rid
    raise InvalidRequest("Invalid Request: id must be a string or an integer")
