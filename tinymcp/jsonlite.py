"""JSON for installs without the ``json`` module (Debian's python3-minimal, split builds):
a decoder and an encoder in plain Python, loaded by ``codec`` only when ``import json``
fails; and the scan that finds a config file's keys given twice (``duplicates``), loaded
when its key count says there may be one.

The decoder and the encoder accept and refuse what ``json`` does with ``codec``'s
settings (RFC 8259, no NaN or Infinity, lone surrogates kept), raise the same messages at
the same positions (so ``files.diagnose`` words a config's mistakes the same), and write
the same bytes (compact, ASCII-only). Each costs time linear in its input; nesting is
bounded, as ``json``'s, by the interpreter's recursion limit (RecursionError), at half the
depth (two frames a level where ``json``'s C scanner takes one: ~495 at the default limit,
~990 there): the protocol refuses a message past ``max_depth`` (at most 256) unread, and a
config nested 500 deep is no config a person writes.
"""

import re
import sys

from .errors import TinyMCPError, line_column

BLANK = " \t\n\r"
_WS = re.compile(r"[ \t\n\r]*")
_PLAIN = re.compile(r'[^"\\\x00-\x1f]*')  # (a string's characters that stand for themselves)
NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPED = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_CONSTANTS = ("NaN", "Infinity", "-Infinity")


class DecodeError(TinyMCPError, ValueError):
    """What ``json.JSONDecodeError`` carries: ``msg``, ``pos``, ``lineno``, ``colno``."""

    def __init__(self, msg, doc, pos):
        lineno, colno = line_column(doc, pos)
        TinyMCPError.__init__(self, "%s: line %d column %d (char %d)" % (msg, lineno, colno, pos))
        self.msg, self.doc, self.pos, self.lineno, self.colno = msg, doc, pos, lineno, colno


def decode(text, parse_int, reject_constant, object_hook=None):
    """The one JSON value in ``text``; integers through ``parse_int(digits)``, NaN and
    Infinity through ``reject_constant(name)`` (which raises), each object through
    ``object_hook`` when given."""
    reader = _Reader(text, parse_int, reject_constant, object_hook)
    value, end = reader.value(reader.skip(0))
    if (end := reader.skip(end)) != len(text):
        raise DecodeError("Extra data", text, end)
    return value


class _Reader:
    def __init__(self, text, parse_int, reject_constant, object_hook):
        self.text, self.parse_int, self.reject, self.hook = text, parse_int, reject_constant, object_hook

    def skip(self, i):
        text = self.text
        return _WS.match(text, i).end() if text[i:i + 1] in BLANK and i < len(text) else i

    def value(self, i):
        """``(value, index after it)`` of the value at ``text[i]``."""
        text = self.text
        c = text[i:i + 1]
        if c == '"':
            return self.string(i + 1)
        if c == "{":
            return self.object(i + 1)
        if c == "[":
            return self.array(i + 1)
        for word, value in (("null", None), ("true", True), ("false", False)):
            if c == word[0] and text.startswith(word, i):
                return value, i + len(word)
        match = NUMBER.match(text, i)
        if match:
            if match.group(1) or match.group(2):
                return float(match.group()), match.end()
            return self.parse_int(match.group()), match.end()
        for name in _CONSTANTS:
            if text.startswith(name, i):
                return self.reject(name), i + len(name)
        raise DecodeError("Expecting value", text, i)

    def string(self, i):
        """``(str, index after its closing quote)`` of the string whose text starts at ``i``."""
        text = self.text
        end = _PLAIN.match(text, i).end()
        if text[end:end + 1] == '"':
            return text[i:end], end + 1
        chunks = [text[i:end]]
        while True:
            c = text[end:end + 1]
            if c == '"':
                return "".join(chunks), end + 1
            kind = text[end + 1:end + 2]
            if c and c != "\\":
                raise DecodeError("Invalid control character at", text, end)
            if not kind:  # (no character left, or none after the backslash)
                raise DecodeError("Unterminated string starting at", text, i - 1)
            if kind != "u":
                if kind not in _ESCAPED:
                    raise DecodeError("Invalid \\escape", text, end)
                chunks.append(_ESCAPED[kind])
                end += 2
            else:
                code = self.hex4(end)
                end += 6
                if 0xD800 <= code <= 0xDBFF and text.startswith("\\u", end):
                    low = self.hex4(end)
                    if 0xDC00 <= low <= 0xDFFF:  # (a pair: one character; else a lone half, kept)
                        code, end = 0x10000 + ((code - 0xD800) << 10) + low - 0xDC00, end + 6
                chunks.append(chr(code))
            after = _PLAIN.match(text, end).end()
            chunks.append(text[end:after])
            end = after

    def hex4(self, at):
        digits = self.text[at + 2:at + 6]
        if at + 6 >= len(self.text) or not _HEX.issuperset(digits):  # (>=: json's own, at the text's end too)
            raise DecodeError("Invalid \\uXXXX escape", self.text, at + 1)
        return int(digits, 16)

    def object(self, i):
        text, out = self.text, {}
        done, i = self.after(i, "}", True)
        while not done:
            if text[i:i + 1] != '"':
                raise DecodeError("Expecting property name enclosed in double quotes", text, i)
            key, i = self.string(i + 1)
            i = self.skip(i)
            if text[i:i + 1] != ":":
                raise DecodeError("Expecting ':' delimiter", text, i)
            out[key], i = self.value(self.skip(i + 1))
            done, i = self.after(i, "}")
        return (out if self.hook is None else self.hook(out)), i

    def array(self, i):
        out = []
        done, i = self.after(i, "]", True)
        while not done:
            value, i = self.value(i)
            out.append(value)
            done, i = self.after(i, "]")
        return out, i

    def after(self, i, closing, first=False):
        """After a member (or, ``first``, the opening bracket): ``(True, the index past
        closing)``, or ``(False, the index of the next member)``."""
        i = self.skip(i)
        c = self.text[i:i + 1]
        if c == closing:
            return True, i + 1
        if first:  # (no comma before the first member)
            return False, i
        if c != ",":
            raise DecodeError("Expecting ',' delimiter", self.text, i)
        nxt = self.skip(i + 1)
        if self.text[nxt:nxt + 1] == closing and sys.version_info >= (3, 13):  # (json's words since 3.13)
            raise DecodeError("Illegal trailing comma before end of %s" % ("array" if closing == "]" else "object"),
                              self.text, i)
        return False, nxt


# --- encoding -----------------------------------------------------------------------------------

_ESCAPE = re.compile(r'[\\"]|[^ -~]')
_SHORT = {"\\": "\\\\", '"': '\\"', "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match):
    c = match.group()
    if c in _SHORT:
        return _SHORT[c]
    n = ord(c)
    if n < 0x10000:
        return "\\u%04x" % n
    n -= 0x10000
    return "\\u%04x\\u%04x" % (0xD800 | (n >> 10), 0xDC00 | (n & 0x3FF))


def quote(text):
    """``text`` as an ASCII-only JSON string, quotes included."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return '"' + text + '"'
    return '"' + _ESCAPE.sub(_escape, text) + '"'


def encode(value):
    """``value`` as compact, ASCII-only JSON text; ValueError for NaN and Infinity,
    TypeError for what JSON cannot hold."""
    out = []
    _encode(value, out.append)
    return "".join(out)


def _encode(value, put):
    if isinstance(value, str):
        put(quote(value))
    elif value is None or value is True or value is False:
        put("null" if value is None else "true" if value else "false")
    elif isinstance(value, int):
        put(int.__repr__(value))
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("Out of range float values are not JSON compliant")
        put(float.__repr__(value))
    elif isinstance(value, dict):
        put("{")
        for n, (key, item) in enumerate(value.items()):
            put("," + _key(key) + ":" if n else _key(key) + ":")
            _encode(item, put)
        put("}")
    elif isinstance(value, (list, tuple)):
        put("[")
        for n, item in enumerate(value):
            if n:
                put(",")
            _encode(item, put)
        put("]")
    else:
        raise TypeError("Object of type %s is not JSON serializable" % type(value).__name__)


def _key(key):
    """A key as JSON writes it, quoted (``json``: numbers, booleans and null as their text)."""
    if isinstance(key, str):
        return quote(key)
    if key is None or isinstance(key, (int, float)):  # (bool is an int)
        return '"%s"' % encode(key)
    raise TypeError("keys must be str, int, float, bool or None, not %s" % type(key).__name__)


#: a string (to its closing quote, or the end of its line: linear even when unterminated),
#: one punctuation character, or a bare word
TOKEN = r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|[{}\[\],:]|[^\s{}\[\],:"]+'


def duplicates(text, most=20):
    """``[(path, position, first position)]`` of the keys given twice in one object of the
    JSON ``text``, in order: the first ``most`` and, when there are more, one more. A path is
    made only for a key found twice (one for every object and list made paths as long as
    their keys over 600,000 lists: 105 s)."""
    found, stack, want_key = [], [], False  # frames: [keys seen or None, index, key]
    for match in re.finditer(TOKEN, text):
        token = match.group()
        c = token[0]
        if c in "{[":
            stack.append([{} if c == "{" else None, 0, None])
            want_key = c == "{"
        elif c in "}]":
            stack.pop()
            want_key = False
        elif c == "," and stack:
            want_key = stack[-1][0] is not None
            stack[-1][1] += 1
        elif c == '"' and want_key:
            want_key = False
            frame = stack[-1]
            frame[2] = key = decode(token, int, None)  # (a string: neither hook is asked)
            if key not in frame[0]:
                frame[0][key] = match.start()
                continue
            path = ""
            for keys, index, current in stack[:-1]:
                path = _join(path, current) if keys is not None else "%s[%d]" % (path, index)
            found.append((_join(path, key), match.start(), frame[0][key]))
            if len(found) > most:
                break
    return found


def _join(path, key):
    return "%s.%s" % (path, key) if path else key
