"""JSON in and out: strict RFC 8259 text to values and back, and a config file's bytes.

``json`` is imported at first use, not with the package (it loads ``re`` and ``enum``:
``import tinymcp`` stays cheap). Decoding refuses NaN and Infinity (JSON has neither) and
integers of more than ``MAX_INT_DIGITS`` digits; encoding is compact and ASCII-only, so a
message never holds an embedded newline (transports "stdio", every revision).
"""

from .errors import ConfigError, line_column

#: the longest integer literal read: ``int()`` takes quadratic time in the digits (a 16
#: MiB line of 4000-digit integers held the loop ~0.3 s), and Python 3.11+ refuses over
#: 4300 digits with a message naming interpreter internals: one rule for every version.
MAX_INT_DIGITS = 300

#: the keys given twice a config's problems name at most
MOST_DUPLICATES = 20

_json = []  # [decoder, encoder, quote], made at first use


def _reject_constant(name):
    raise ValueError("%s is not valid JSON" % name)


def _parse_int(digits):
    if len(digits) > MAX_INT_DIGITS and len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError("integer literal longer than %d digits" % MAX_INT_DIGITS)
    return int(digits)


def _probe(json):
    """ImportError where ``json`` lost its C part: its Python scanner words errors another
    way (``Invalid control character '\\x01' at``, one column on), which jsonlite does not."""
    try:
        json.loads('"\x01"')
    except ValueError as exc:
        if getattr(exc, "msg", "") != "Invalid control character at":
            raise ImportError("json without its C part")


def _codec():
    """``[decode(text), encode(value), quote(text), decode(text, object_hook)]``: ``json``'s,
    or where an install has no ``json`` (Debian's python3-minimal) or only its Python part,
    ``jsonlite``'s, which read, write and refuse as ``json``'s C part does."""
    if not _json:
        try:
            import json
            _probe(json)
        except ImportError:
            from . import jsonlite
            hooked = lambda text, hook=None: jsonlite.decode(text, _parse_int, _reject_constant, hook)  # noqa: E731
            _json.extend((hooked, jsonlite.encode, jsonlite.quote, hooked))
            return _json
        from json.encoder import encode_basestring_ascii
        _json.extend((json.JSONDecoder(parse_constant=_reject_constant, parse_int=_parse_int).decode,
                      json.JSONEncoder(separators=(",", ":"), allow_nan=False, check_circular=False).encode,
                      encode_basestring_ascii,
                      lambda text, hook: json.JSONDecoder(object_hook=hook, parse_constant=_reject_constant,
                                                          parse_int=_parse_int).decode(text)))
    return _json


def loads(text, object_hook=None):
    """``text`` as one JSON value; ``ValueError`` (or ``RecursionError``) otherwise.
    ``object_hook(dict)`` returns what stands for each object."""
    return _codec()[0](text) if object_hook is None else _codec()[3](text, object_hook)


def dumps(value):
    """A value's compact, ASCII-only JSON text."""
    return _codec()[1](value)


def encode(message):
    """One JSON-RPC line: ``dumps(message)`` as bytes, newline included."""
    return _codec()[1](message).encode("ascii") + b"\n"


def quote(text):
    """``text`` as a JSON string, quotes included, as ``dumps`` writes it."""
    return _codec()[2](text)


def escaped_size(text):
    """The bytes ``text`` takes inside a JSON string on the wire (ASCII-escaped: up to 12
    a character), quotes not counted."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return len(text)
    return len(quote(text)) - 2


def load_file(data, name, explain=None):
    """The JSON value in ``data``, the bytes of the config file ``name``: no key given
    twice in one object, a UTF-8 byte order mark skipped. ``ConfigError`` otherwise, at
    ``name:line:column``; ``explain(text, exc)``, when given, words the error for the
    person who wrote the file (``(position or None, message)``; None: the decoder's words)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # (Notepad's default: it says nothing more)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[:exc.start].decode("utf-8")  # (pos: a character of it)
        pos, message = explain and explain(data, exc) or (len(prefix), "not UTF-8: save the file as UTF-8")
        raise ConfigError([(_where(name, prefix, pos), message)])
    sizes = []

    def counted(obj):
        sizes.append(len(obj))
        return obj

    try:
        value = loads(text, counted)
    except (ValueError, RecursionError) as exc:
        pos, message = explain and explain(text, exc) or (getattr(exc, "pos", None), getattr(exc, "msg", str(exc)))
        raise ConfigError([(_where(name, text, pos), message)])
    keys = sum(sizes)
    if data.count(b":") != keys and _keys_in(data) != keys:  # (a key given twice, perhaps)
        from .jsonlite import duplicates
        if (found := duplicates(text, MOST_DUPLICATES)):
            problems = [(_where(name, text, at), "duplicate key %s (first at line %d, column %d): "
                         "remove one of them" % ((path,) + line_column(text, first)))
                        for path, at, first in found[:MOST_DUPLICATES]]
            if len(found) > MOST_DUPLICATES:  # (each is placed by counting lines from the start)
                problems.append((problems[-1][0], "more keys may be given twice: the first %d are told"
                                 % MOST_DUPLICATES))
            raise ConfigError(problems)
    return value


def _keys_in(data):
    """The keys in the JSON ``data`` (or -1: not known so): once its white space is taken
    out, each key ends with ``":``, and so does each escaped quote before a colon inside a
    string, which, when no ``\\`` makes a backslash ambiguous, is ``\":``. Counted at C
    speed: a config's keys are checked for duplicates without a second parse."""
    data = data.translate(None, b" \t\r\n")
    return -1 if b"\\\\" in data else data.count(b'":') - data.count(b'\\":')


def _where(name, text, pos):
    return name if pos is None else "%s:%d:%d" % ((name,) + line_column(text, pos))
