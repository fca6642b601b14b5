"""A config file's JSON mistakes, worded for the person who wrote it: a comment, a trailing
comma, single quotes, YAML, an empty file, another encoding, a number JSON does not allow,
a bracket that closes nothing... (``explain``, which ``codec.load_file`` asks)."""

import re
from contextlib import suppress

from ..codec import MAX_INT_DIGITS
from ..errors import cut, line_column
from ..jsonlite import BLANK, NUMBER, TOKEN
from ..model.check import close_match


# --- what is wrong, in words ---------------------------------------------------------------

def _not_utf8(data, start):
    """``(position, message)`` for bytes that are not UTF-8 from ``start`` on (the position
    a character of the text before them), in a file that is not UTF-16 or UTF-32."""
    byte = data[start:start + 1]
    message = "byte 0x%02X is not UTF-8" % byte[0]
    # (Latin-1 and Windows-1252, Notepad's "ANSI", differ only in 0x80-0x9F)
    encoding = "Latin-1" if byte >= b"\xa0" else "Windows-1252"
    with suppress(UnicodeDecodeError):  # (a byte Windows-1252 leaves undefined)
        message += ": the file looks like %s (where it is %r)" % (encoding, byte.decode(encoding))
    return len(data[:start].decode("utf-8")), message + "; save it as UTF-8"


def _wide(nuls, size, head=b""):
    """"UTF-32" or "UTF-16" when a file of ``size`` bytes (or characters, decoded as
    UTF-8), ``nuls`` of them NUL, says so by its byte order mark (``head``: its first
    bytes) or by its NULs (three in four bytes of UTF-32's ASCII text, every other one of
    UTF-16's); else None."""
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")) or nuls * 8 >= size * 5 > 0:
        return "UTF-32"
    return "UTF-16" if head.startswith((b"\xff\xfe", b"\xfe\xff")) or nuls * 4 >= size > 0 else None


def explain(text, exc):
    """``(position or None, message)`` for the error ``exc`` raised parsing ``text`` (the
    file's bytes, for a ``UnicodeDecodeError``)."""
    binary = isinstance(exc, UnicodeDecodeError)  # (a blank file has no NULs: not wide)
    if (wide := _wide(text.count(b"\x00" if binary else "\x00"), len(text), text[:4] if binary else b"")):
        return 0, "the file is %s, not UTF-8: save it as UTF-8" % wide
    if binary:
        return _not_utf8(text, exc.start)
    if not text.strip(BLANK):
        return 0, 'the file is empty: a config is a JSON object, at least {"prompts": []}'
    if isinstance(exc, RecursionError):
        stack = _open_brackets(text, len(text), 500)
        where = stack[-1][1] if len(stack) > 500 else None
        return where, "nested too deeply to parse (more than 500 levels of [ and { by here)"
    pos = getattr(exc, "pos", None)
    if pos is None:
        return _refused(text, str(exc))
    first = len(text) - len(text.lstrip(BLANK))
    if pos == first and text[first] not in '{["' and _looks_like_yaml(text):
        return pos, 'this looks like YAML, but a config file is JSON, such as {"prompts": [...]}'
    return _known_mistake(text, pos) or _decoder_error(text, exc.msg, pos)


def _looks_like_yaml(text):
    """Whether the first line that is not blank nor a comment ("": none) reads as YAML's."""
    line = next((line for line in map(str.strip, text.splitlines()) if line and not line.startswith("#")), "")
    return line in ("---", "...") or line.startswith(("%YAML", "- ")) or re.match(
        r"[\w.-]+[ \t]*:([ \t]|$)", line) is not None


def _known_mistake(text, pos):
    """``(position, message)`` for a mistake people make at ``pos``, or None."""
    for start, what in (("//", "a // comment"), ("/*", "a /* comment */"), ("#", "a # comment")):
        if text.startswith(start, pos):
            return pos, "%s, which JSON does not allow: remove it" % what
    if (comma := _trailing_comma(text, pos)) is not None:
        return comma, "a comma after the last item, which JSON does not allow: remove it"
    c = text[pos:pos + 1]
    if c == "'":
        return pos, 'a string in single quotes: JSON needs double quotes ("...")'
    if c and c in "\u201c\u201d\u2018\u2019":
        return pos, 'a curly quote (%s): JSON needs straight double quotes ("...")' % c
    return None


def _trailing_comma(text, pos):
    """The position of a comma just before the closing bracket at ``pos`` (or at ``pos``
    itself, before one), else None."""
    before = text[:pos].rstrip(BLANK)
    if text[pos:pos + 1] == ",":
        after = text[pos + 1:].lstrip(BLANK)
        return pos if after[:1] in ("}", "]") and before[-1:] not in ("", ":", ",", "[", "{") else None
    # (CPython 3.13 points at the comma, earlier at the bracket)
    return len(before) - 1 if text[pos:pos + 1] in ("}", "]") and before.endswith(",") else None


_CLOSER = {"{": "}", "[": "]"}
_LITERALS = {"true": "true", "false": "false", "null": "null", "none": "null"}


def _decoder_error(text, msg, pos):
    """``(position, message)`` for the decoder's ``msg`` at ``pos``."""
    end = len(text.rstrip(BLANK))
    if pos >= end and not msg.startswith(("Unterminated", "Extra")):
        return end, _cut_short(text, end)
    c = text[pos]
    found = "found %r" % c
    if msg.startswith("Expecting value"):
        return _bad_token(text, pos) or (pos, _no_value(text, pos, found))
    if msg.startswith("Expecting property name"):
        word = _word(text, pos)
        return pos, ('a key without double quotes: write "%s"' % word if word
                     else "expected a key in double quotes, %s" % found)
    if msg.startswith("Expecting ':'"):
        return pos, "expected ':' after the key, %s" % found
    if msg.startswith("Expecting ','"):
        if text[pos - 1] == '"' and c not in '"{[':  # ("say "hi" now": its second quote ended the string)
            return pos - 1, 'a " inside a string ends it: write \\" for each quote in its text'
        # (a delimiter where it stopped: the value before it was read whole, as in ``true]``)
        return c not in _DELIMITERS and _bad_token(text, pos) or (pos, _no_comma(text, pos, c))
    if msg.startswith("Unterminated string"):
        return pos, 'this string never ends: its closing " is missing'
    if msg.startswith("Invalid control character"):
        if msg != "Invalid control character at":  # (PyPy's scanner's: it names the character
            pos -= 1                                 # and points past it)
        if text[pos] in "\r\n" and (end := re.search(r'\\"[ \t,\]}]*\Z', text[:pos])):  # ("C:\", its quote escaped)
            return end.start(), ('this string never ends: the \\ before its last " escapes that quote (write \\\\ '
                                 'for a backslash, as in "C:\\\\"), or its closing " is missing')
        return pos, _control(text[pos])
    if msg.startswith("Invalid \\u"):
        return text.rfind("\\", 0, pos + 1), "\\u needs four hex digits, as in \\u00e9"
    if msg.startswith("Invalid \\escape"):
        pos = text.rfind("\\", 0, pos + 1)
        return pos, ('"\\%s" is not an escape JSON knows: write \\\\ for each backslash (as in '
                     '"C:\\\\Users")' % text[pos + 1:pos + 2])
    return pos, _extra(c) if msg.startswith("Extra data") else msg  # (else a message of json's we do not know)


def _in_decimal(match):
    return 'write the number in decimal, or "%s" for text' % match.group()


#: numbers JSON does not allow, as people write them: (pattern, what it is, what to
#: write instead, for the match; ``NUMBER``: jsonlite's pattern of a number as JSON writes
#: it, whose own groups come after the one that encloses it here)
_NUMBER_MISTAKES = (
    (r"(-?)0[xX]([0-9a-fA-F]+(?:_[0-9a-fA-F]+)*)", "a hexadecimal number",
     lambda m: "write %s%d" % (m.group(1), int(m.group(2), 16))),
    (r"-?0[xX]", "'0x' without hexadecimal digits after it", _in_decimal),
    (r"-?0[xX]\w+", "a hexadecimal number with digits other than 0-9 and a-f", _in_decimal),
    (r"\+(" + NUMBER.pattern + ")", "a number with a + sign", lambda m: "write " + m.group(1)),
    (r"(-?)0+([0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)", "a number with a leading zero",
     lambda m: "write " + m.group(1) + m.group(2)),
    (r"(-?)(\.[0-9]+(?:[eE][-+]?[0-9]+)?)", "a number starting with '.'",
     lambda m: "write %s0%s" % (m.group(1), m.group(2))),
    (r"(-?[0-9]+)\.", "a number ending in '.'", lambda m: "write %s or %s.0" % (m.group(1), m.group(1))),
    (r"-?[0-9]+(?:\.[0-9]+)?[eE][-+]?", "an exponent without digits",
     lambda m: "write digits after the e, as in 1.5e3"),
    (r"-?[0-9]+(?:_[0-9]+)+", "a number with '_' between digits", lambda m: "write %d" % int(m.group())),
    (r"(" + NUMBER.pattern + r")[A-Za-z%]+", "a number with a unit",
     lambda m: 'write %s, or "%s" for text' % (m.group(1), m.group())),
)


def _bad_token(text, pos):
    """``(position, message)`` for a bare token where the decoder stopped at ``pos`` (at
    its start, or within it): a number JSON does not allow, or a word the decoder took the
    start of as a value (``12a``, ``1.2.3``, ``truex``); else None."""
    start = end = pos
    while start > 0 and text[start - 1] not in _DELIMITERS:
        start -= 1
    while end < len(text) and text[end] not in _DELIMITERS:
        end += 1
    word = text[start:end]
    # (longer: no number a person writes, nor one read (codec's bound); int() refused it, a leading zero's
    # pattern took seconds)
    for pattern, what, write in _NUMBER_MISTAKES if len(word) <= MAX_INT_DIGITS else ():
        if (match := re.fullmatch(pattern, word)):
            return start, "%s, which JSON does not allow: %s" % (what, write(match))
    # (a value ended inside a word: not a number, nor true/false/null)
    return (start, _unquoted(word)) if start < pos and _is_word(word) else None


def _is_word(text):
    return all(c.isalnum() or c in "._+-" for c in text)


#: what a word one slip from (``tru``, ``flase``, ``nulll``) was likely meant to be
_NEAR = ("true", "false", "null")


def _unquoted(text, word=True):
    """The message for ``text`` written without quotes; for a ``word`` one slip from true,
    false or null, with that literal as the other way to read it."""
    # (only a short word can be one slip away, and a long one is cut: a 40 MB word's match
    # took 1.8 GB, and its message was 40 MB)
    near = close_match(text.lower(), _NEAR, 0.8) if word and len(text) <= 8 else None
    return 'a string without double quotes: write "%s"%s' % (
        cut(text, 80), ", or %s if that was meant" % near if near else "")


#: what ends a bare token (a number, a word, or a mistake)
_DELIMITERS = frozenset(BLANK + '{}[],:"')


def _cut_short(text, end):
    stack = _open_brackets(text, end)
    if not stack:
        return "the file ends where a value should follow"
    c, at = stack[-1]
    return "the file ends before the %r opened at line %d, column %d is closed: %r is missing" % (
        (c,) + line_column(text, at) + ("".join(_CLOSER[o] for o, _ in reversed(stack)),))


def _no_value(text, pos, found):
    c = text[pos]
    if c in ",}" and text[:pos].rstrip(BLANK).endswith(":"):
        return "a key with no value: give one, or remove the key"
    if c == ",":
        return "an extra comma, where a value should be: remove it"
    if c in "}]":
        return _mismatch(text, pos, c)
    if (word := _word(text, pos)):
        if (literal := _LITERALS.get(word.lower())) is not None:
            return "%s is not JSON: write %s" % (word, literal)
        run = re.match(r"[^,\]}\n]*", text[pos:]).group().rstrip(BLANK)
        return _unquoted(run, run == word)
    return 'expected a value (a "string", a number, true, false, null, [...] or {...}), %s' % found


def _word(text, pos):
    match = re.compile(r"[A-Za-z_][\w.-]*").match(text, pos)
    return match.group() if match else ""


def _no_comma(text, pos, c):
    if c in "}]":
        return _mismatch(text, pos, c)
    if c in '"{[-' or c.isalnum():
        return "a comma is missing before this item"
    stack = _open_brackets(text, pos)
    return "expected ',' or %r after the item, found %r" % (_CLOSER[stack[-1][0]] if stack else "}", c)


def _mismatch(text, pos, c):
    stack = _open_brackets(text, pos)
    if not stack:
        return "%r closes nothing: remove it" % c
    opened, at = stack[-1]
    return "%r does not close the %r opened at line %d, column %d: a %r is missing before it, or it is one " \
        "too many" % ((c, opened) + line_column(text, at) + (_CLOSER[opened],))


def _open_brackets(text, pos, most=None):
    """``[(bracket, position)]`` of the brackets still open at ``pos`` (or once more than
    ``most`` are), outermost first."""
    stack = []
    for match in re.finditer(TOKEN, text):
        if match.start() >= pos or most is not None and len(stack) > most:
            break
        c = match.group()[0]
        if c in "{[":
            stack.append((c, match.start()))
        elif c in "}]" and stack:
            stack.pop()
    return stack


def _control(c):
    if c in "\r\n":
        return 'a line break inside a string: end the string with " on its line, or write \\n for a line break'
    if c == "\t":
        return "a tab inside a string: write \\t instead"
    return "control character U+%04X inside a string: write \\u%04x instead" % (ord(c), ord(c))


def _extra(c):
    if c in "}]":
        return "%r after the end of the config: remove it, or find the bracket that closes too soon" % c
    if c == ":":
        return "a key outside any object: put the whole file in { and }"
    return "more after the end of the config: a config file holds one JSON object"


def _refused(text, message):
    """``(position, message)`` for a value the parser refuses without saying where."""
    for match in re.finditer(TOKEN, text):
        token = match.group()
        for constant in ("NaN", "Infinity", "-Infinity"):
            if token.startswith(constant):  # (the decoder refused it, alone or a word's start)
                if token != constant and _is_word(token):
                    return match.start(), _unquoted(token)
                return match.start(), "%s is not a JSON number: write a number, or null" % constant
        if len(digits := token.lstrip("-")) > MAX_INT_DIGITS and digits[:MAX_INT_DIGITS + 1].isdigit():
            return match.start(), "a number of more than %d digits: write it as a string" % MAX_INT_DIGITS
    return None, message
