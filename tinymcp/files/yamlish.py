"""A small, safe reader for the YAML that prompt files put in their front matter.

The subset those files use, and nothing else: block mappings and sequences (a sequence
may sit at its key's indentation), flow sequences and mappings on one line (``[a, b]``,
``{a: 1}``), plain, single- and double-quoted scalars, ``true``/``false``, ``null``/``~``,
integers and decimal numbers, ``|`` and ``>`` block text (with ``-``/``+`` chomping), and
``#`` comments. Values are data only: tags, anchors, aliases, merge keys, directives,
complex keys and several documents are errors, never guesses; so is a tab in the
indentation, a key given twice, or an indentation that fits no structure.

Where YAML readers differ, YAML 1.2's core schema decides: ``yes``/``no``/``on``/``off``
and ``12:30`` are text, ``017`` is 17, ``1e3`` is 1000.0. Keys are text as written
(``1: a`` and ``{1: a}`` both give the key ``"1"``). A scalar or flow value may start on
the line below its key and go on over more indented lines (each line break a space, each
empty line a line break), as formatters write it; a comment ends a plain one, a line that
reads as a key ends any but quoted text or brackets not yet closed, as an error (a flow
mapping over lines is keys in braces), and one that reads as an item any but those and
plain text (``x`` then ``  - y`` is ``"x - y"``). ``0x``/``0o`` numbers are refused;
a word that only starts so (``0xarchive``) is text. A top mapping may be indented. A tab
is a space between the parts of a line (``a:<tab>1  # c``), never indentation. The last
line of the text counts as ended, as a front matter's last line always is (``a: |`` then
``  x`` reads ``"x\\n"``). ``"\\ud83d\\ude00"`` (a JSON-style pair) is one character;
half a pair is an error. Lists and mappings nest at most 100 deep and a number has at
most 100 digits: deeper or longer is an error, as is a carriage return that ends no line.

``load(text)`` returns ``(value, lines)``: ``lines`` maps each key's and item's path (a
tuple of keys and indexes) to its line (1-based in ``text``, or from ``first``). Errors
are ``YamlError`` with the line and column. The reader goes through the text once, a
line at a time.
"""

from ..errors import TinyMCPError
from ..model.check import is_hex


class YamlError(TinyMCPError, ValueError):
    """Text outside the subset; ``line`` and ``column`` are 1-based."""

    def __init__(self, line, column, message):
        super().__init__("%d:%d: %s" % (line, column, message))
        self.line, self.column, self.message = line, column, message


#: the plain words that are no text
_WORDS = {"null": None, "Null": None, "NULL": None, "~": None, "true": True, "True": True,
          "TRUE": True, "false": False, "False": False, "FALSE": False}
_ESCAPES = {"\n": "", "n": "\n", "t": "\t", "\t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "/": "/", " ": " ",
            "b": "\b", "f": "\f", "e": "\x1b", "a": "\x07", "v": "\x0b", "N": "\x85", "_": "\xa0",
            "L": "\u2028", "P": "\u2029"}
_RESERVED = {"&": "anchors", "*": "aliases", "!": "tags", "%": "directives", "@": "values starting with '@'",
             "`": "values starting with '`'", "?": "complex keys",
             **dict.fromkeys("|>", "block text markers ('|', '>') followed by more than a '-' or '+'")}
_FLOW = "[]{},"  # (a plain key or value cannot start with one)
#: what a plain value may start with and still be refused (as an indicator, a list item, a
#: comment or a colon); a value starting otherwise is text, a number or a word of ``_WORDS``
_INDICATORS = frozenset(_RESERVED) | frozenset(_FLOW + "#-:")
_NUMBER_START = frozenset("0123456789+-.")  # (what a number, .inf or 0x starts with)
_MAX_DEPTH = 100  # lists and mappings inside each other
_MAX_DIGITS = 100  # in a number


def load(text, first=1):
    """``(value, lines)`` of a YAML document in the subset (a mapping or a list at the
    top, or None for no content); ``first``: the number of its first line (in errors too)."""
    reader = _Reader(text, first)
    return reader.document(), reader.lines


class _Line:
    __slots__ = ("number", "indent", "text", "item")

    def __init__(self, number, indent, text):
        self.number, self.indent, self.text = number, indent, text
        self.item = _is_item(text)  # (asked of most lines more than once)


class _Reader:
    def __init__(self, text, first=1):
        self.lines = {}
        self.rows = list(enumerate(text.split("\n"), first))  # every line: (number, raw text)
        if "\r" in text:
            for i, (number, raw) in enumerate(self.rows):
                raw = raw[:-1] if raw.endswith("\r") else raw
                if "\r" in raw:
                    raise YamlError(number, raw.index("\r") + 1, "a carriage return inside a line "
                                    "(end lines with '\\n' or '\\r\\n')")
                self.rows[i] = (number, raw)
        if text.endswith("\n"):
            self.rows.pop()  # (what follows the last newline is no line)
        self.at = 0  # index into rows of the next line to read
        self.peeked_at, self.peeked = -1, None  # (self.at, the line peek found there)

    # --- lines ---------------------------------------------------------------------------

    def peek(self):
        """The next line with content (skipping blank and comment-only lines), or None."""
        if self.peeked_at == self.at:
            return self.peeked
        while self.at < len(self.rows):
            number, raw = self.rows[self.at]
            stripped = raw.lstrip(" ")
            if not stripped or stripped.startswith("#"):
                self.at += 1
                continue
            indent = len(raw) - len(stripped)
            if stripped[0] == "\t":
                raise YamlError(number, indent + 1, "a tab in the indentation (indent with spaces)")
            if stripped.startswith(("---", "...")) and (len(stripped) == 3 or stripped[3] in " \t#"):
                raise YamlError(number, 1, "a second document (one mapping of keys only)")
            self.peeked_at, self.peeked = self.at, _Line(number, indent, stripped)
            return self.peeked
        return None

    def document(self):
        line = self.peek()
        if line is None:
            return None
        value = self.block(line.indent, ())  # (indented, every key of the top at that column)
        if (rest := self.peek()) is not None:
            raise YamlError(rest.number, rest.indent + 1, "indentation that fits no key above it")
        return value

    def block(self, indent, path):
        """The mapping or sequence whose lines start at column ``indent``."""
        line = self.peek()
        _nest(len(path), line.number, indent)
        return self.sequence(indent, path) if line.item else self.mapping(indent, path)

    # --- block collections -----------------------------------------------------------------

    def mapping(self, indent, path):
        """Keys at column ``indent`` (a first key on a sequence item's line, ``- key: value``,
        is peeked as a line of its own: see ``sequence``)."""
        out = {}
        while True:
            line = self.peek()
            if line is None or line.indent < indent:
                return out
            if line.indent > indent:
                raise YamlError(line.number, line.indent + 1, "indentation that fits no key above it")
            if line.item:
                raise YamlError(line.number, indent + 1, "a list item where a key was expected")
            self.at += 1
            key, rest, value_column = self.key(line.number, indent, line.text)
            if key in out:
                raise YamlError(line.number, indent + 1, "key %r given twice" % key)
            key_path = path + (key,)
            self.lines[key_path] = line.number
            out[key] = self.value(line.number, value_column, rest, indent, key_path, True)

    def sequence(self, indent, path):
        out = []
        while True:
            line = self.peek()
            if line is None or line.indent < indent or line.indent == indent and not line.item:
                return out  # (a key after a sequence at its key's indentation ends it too)
            if line.indent > indent:
                raise YamlError(line.number, line.indent + 1, "indentation that fits no item above it")
            item_path = path + (len(out),)
            self.lines[item_path] = line.number
            rest = line.text[1:].lstrip(" \t")  # (`-<tab>x` is an item too)
            column = indent + len(line.text) - len(rest)
            if "\t" in line.text[1:column - indent] and (_is_item(rest) or rest and _is_key(rest)):
                raise YamlError(line.number, column + 1, "a tab before a nested item or key (indent with spaces)")
            if _is_item(rest) or rest and _is_key(rest):  # (a sequence or a mapping in a sequence,
                # on one line: its first item or key is read again, as if on a line of its own)
                self.peeked_at, self.peeked = self.at, _Line(line.number, column, rest)
                out.append(self.block(column, item_path))
                continue
            self.at += 1
            out.append(self.value(line.number, column, rest, indent, item_path, False))

    def value(self, number, column, rest, indent, path, in_mapping):
        """The value after a key or an item marker: block text, a nested block on the
        following lines (more indented; for a mapping's value, a sequence may also start
        at the key's own indentation), or a scalar or flow collection, which may start on
        the line below and go on over more indented lines (``folded``)."""
        text = _strip_comment(rest)
        if text in ("|", "|-", "|+", ">", ">-", ">+"):
            return self.block_text(indent, text)
        if not text:
            line = self.peek()
            if line is None or line.indent < indent or line.indent == indent and not (in_mapping and line.item):
                return None
            if line.item or _is_key(line.text):  # (below it, or a sequence at its key's indentation)
                return self.block(line.indent, path)
            self.at += 1  # (the value starts on the line below its key: formatters write it so)
            number, column, rest = line.number, line.indent, line.text
            text = _strip_comment(rest)
        more = self.folded(indent, _trim(rest, text[0] == '"'), text[0] in "[{\"'") if self.at < len(self.rows) and \
            self.rows[self.at][1][indent:indent + 1] in " " else None  # (the next line may go on with it)
        try:
            value = (_enclosed(more or text, number, column, len(path)) if text[0] in "[{\"'"
                     else _plain(_strip_comment(more) if more else text, number, column))
        except YamlError as exc:  # (in a value over lines: placed where it starts)
            if more is None:
                raise
            raise YamlError(number, column + 1, exc.message) from None
        if (line := self.peek()) is not None and line.indent > indent:
            raise YamlError(line.number, line.indent + 1, "indentation that fits no %s above it"
                            % ("key" if in_mapping else "item") if line.item or _is_key(line.text) else
                            "a value that goes on after a comment (move the comment below the value)")
        return value

    def folded(self, indent, text, enclosed):
        """``text`` and the lines below it indented more than ``indent``, as YAML folds a
        value over lines: a line break is a space, an empty line a line break (None: no line
        goes on with it). A comment ends a plain value, and a line that reads as a key or
        (but in plain text) an item ends any value (it is then an error: see ``value``) but
        quoted text not yet closed (``d: "Use when`` then ``  the user says: hello"``, as a
        formatter wraps it) or a flow collection whose brackets are not (``metadata:`` then
        ``  {`` and lines of ``"key": value``, as ClawHub writes them)."""
        pieces, blanks, at, depth = [text], 0, self.at, _depth(text) if text[0] in "[{" else 0
        open_ = text[0] in "\"'" and not _closes(text[1:], text[0])
        # (a comment ends any value but quoted text or brackets still open: `'q' # c` and then `  x` is refused)
        while at < len(self.rows) and ((open_ or depth > 0 or _comment_at(pieces[-1]) == len(pieces[-1])) if enclosed
                                       else _strip_comment(pieces[-1]) == pieces[-1]):
            raw = self.rows[at][1]
            more = raw.lstrip(" ")
            if not more.strip(" \t"):
                at, blanks = at + 1, blanks + 1
                continue
            # (a line in brackets not yet closed goes on with them: a flow mapping's '"a": 1' lines; and their
            # closing bracket may be at the key's column, as every YAML reader takes 'a: [' ... ']')
            if len(raw) - len(more) <= indent and not (depth > 0 and more[0] in "]}") or not open_ and depth <= 0 and (
                    _is_item(more) and enclosed or _is_key(more)) or more[0] == "#" and not enclosed:
                break
            # (a line a double-quoted value's odd backslash ends: an escaped line break, no space; see _ESCAPES)
            escaped = open_ and text[0] == '"' and (len(pieces[-1]) - len(pieces[-1].rstrip("\\"))) % 2
            pieces += ("\n" * (blanks + escaped) or " ", _trim(more, open_ and text[0] == '"'))
            depth += _depth(pieces[-1]) if depth > 0 else 0
            open_ = open_ and not _closes(pieces[-1], text[0])
            at, blanks, self.at = at + 1, 0, at + 1
        self.peeked_at = -1
        return "".join(pieces) if len(pieces) > 1 else None

    def block_text(self, indent, style):
        """``|`` (lines kept) or ``>`` (lines folded) text, indented under its key."""
        lines, body_indent, widest = [], None, (0, 0)  # widest: (spaces, line) of the leading blank lines
        while self.at < len(self.rows):
            row_number, raw = self.rows[self.at]
            stripped = raw.lstrip(" ")
            own = len(raw) - len(stripped)
            if stripped and (own <= indent or (body_indent is not None and own < body_indent)):
                break
            if stripped and body_indent is None:
                if stripped.startswith("\t"):
                    raise YamlError(row_number, own + 1, "a tab in the indentation (indent with spaces)")
                if widest[0] > own:
                    raise YamlError(widest[1], own + 1, "a blank line with more spaces than the text below it")
                body_indent = own
            if not stripped and body_indent is None and own > widest[0]:
                widest = (own, row_number)
            lines.append(raw[body_indent:] if body_indent is not None else "")
            self.at += 1
        self.peeked_at, self.peeked = -1, None
        text = _fold(lines) if style[0] == ">" else "\n".join(lines)
        if style.endswith("+"):
            return text + "\n" if lines else ""
        text = text.rstrip("\n")
        return text if style.endswith("-") or not text else text + "\n"

    # --- one line's pieces -----------------------------------------------------------------

    def key(self, number, column, text):
        """``(key, rest of the line, column of the rest)`` of ``key: value``."""
        if text[0] in "\"'":
            key, end = _quoted(text, 0, number, column)
            after = text[end:].lstrip(" \t")
            if not after.startswith(":"):
                raise YamlError(number, column + end + 1, "expected ':' after the key")
            rest = after[1:]
            if rest[:1] not in ("", " ", "\t"):
                raise YamlError(number, column + len(text) - len(rest) + 1, "expected a space after ':'")
        else:
            _refuse_reserved(text, False, number, column, "plain data only")  # (when it starts with one)
            if text[0] in "[{":
                raise YamlError(number, column + 1, "a flow %s where a key was expected (write "
                                "'key: value' lines)" % ("list" if text[0] == "[" else "mapping"))
            if text[0] in _FLOW:
                raise YamlError(number, column + 1, "a key cannot start with %r (quote the key)" % text[0])
            split = _colon(text)
            if split < 0:
                raise YamlError(number, column + 1, "expected 'key: value'")
            if split == 0:
                raise YamlError(number, column + 1, "a ':' with no key before it")
            key = text[:split].rstrip(" \t")
            if key == "<<":
                raise YamlError(number, column + 1, "merge keys are not supported (plain data only)")
            rest = text[split + 1:]
        rest = rest.lstrip(" \t")
        return key, rest, column + len(text) - len(rest)


# --- scalars and flow collections --------------------------------------------------------------

def _enclosed(text, number, column, depth):
    """The value of a line's ``text`` that starts with a bracket or a quote: nothing but a
    comment may follow where it closes."""
    value, end = _flow(text, 0, number, column, depth) if text[0] in "[{" else _quoted(text, 0, number, column)
    if (rest := text[end:]).strip(" \t") and not (rest[0] in " \t" and rest.lstrip(" \t").startswith("#")):
        raise YamlError(number, column + end + 1, "text after the closing %s"
                        % ("bracket" if text[0] in "[{" else "quote"))
    return value


def _nest(depth, number, column):
    """A collection ``depth`` levels deep (its path's length, or a flow collection's
    depth): refused past the limit (a reader that recursed on without one would run out
    of stack)."""
    if depth >= _MAX_DEPTH:
        raise YamlError(number, column + 1, "lists and mappings nested more than %d deep" % _MAX_DEPTH)


def _trim(text, quoted):
    """``text`` without blanks around it; in double quotes, but the one a backslash escapes at
    its end (``"Fix \\<space>`` then ``the bug"``: an escaped space, then the fold's)."""
    out = text.strip(" \t")
    odd = quoted and (len(out) - len(out.rstrip("\\"))) % 2 and len(text.rstrip(" \t")) < len(text)
    return out + text.lstrip(" \t")[len(out)] if odd else out


def _is_item(text):
    return text.startswith(("- ", "-\t")) or text == "-"


def _is_key(text):
    if text[0] not in "\"'":
        return text[0] not in _FLOW and text[0] != "#" and _colon(text) >= 0
    try:
        _, end = _quoted(text, 0, 0, 0)
    except YamlError:
        return False
    return text[end:].lstrip(" \t").startswith(":")


def _depth(text):
    """How many more brackets ``text`` opens than it closes (quotes not told apart: a wrong
    count only reads a line more or less into a flow value, which its reader then refuses)."""
    return text.count("[") + text.count("{") - text.count("]") - text.count("}")


def _closes(text, quote):
    """Whether ``text`` (quoted text after its opening ``quote``, or a line of it) holds the
    closing quote (not ``''`` in single quotes, nor one a backslash escapes in double ones)."""
    return quote in (text.replace("''", "") if quote == "'" else text.replace("\\\\", "").replace('\\"', ""))


def _is_comment(text, i):
    """Whether a comment starts at ``text[i]`` (a '#' after a space or a tab)."""
    return text[i] == "#" and i > 0 and text[i - 1] in " \t"


def _comment_at(text):
    """Where a `` #`` comment starts in ``text`` (a '#' after a space or a tab, or
    first), or ``len(text)``."""
    at = text.find("#")
    while at > 0 and text[at - 1] not in " \t":
        at = text.find("#", at + 1)
    return len(text) if at < 0 else at


def _colon(text):
    """Where ``key: value`` splits (a ':' followed by a space, a tab or the end, before
    any comment), or -1."""
    end = _comment_at(text) if "#" in text else len(text)
    at = text.find(":", 0, end)
    while at >= 0 and text[at + 1:at + 2] not in ("", " ", "\t"):
        at = text.find(":", at + 1, end)
    return at


def _strip_comment(text):
    """``text`` without a trailing `` # comment`` (quotes and brackets respected)."""
    # (one the quoted or flow reader takes off, else up to _comment_at: the whole text where there is none)
    return (text if text[:1] in ("\"", "'", "[", "{") else text[:_comment_at(text)]).rstrip(" \t")


def _refuse_reserved(text, flow, number, column, advice, at=0):
    """Refuses the indicator at ``text[at]``, if any (``?x`` is plain text in a block; in a
    flow collection, readers differ on it)."""
    what = _RESERVED.get(text[at])
    if what and not (text[at] == "?" and not flow and text[at + 1:at + 2] not in ("", " ", "\t")):
        raise YamlError(number, column + at + 1, "%s are not supported (%s)" % (what, advice))


def _plain(text, number, column, flow=False):
    first = text[0]
    if first in _INDICATORS:
        _refuse_reserved(text, flow, number, column, "quote the value")
        if _is_item(text) or text.startswith((": ", ":\t")) or text == ":" or first in _FLOW + "#":
            raise YamlError(number, column + 1, "a value cannot start with %r (quote the value)" % first)
    if ":" in text and _colon(text) >= 0:
        raise YamlError(number, column + _colon(text) + 1, "': ' inside a value (quote the value)")
    if text in _WORDS:
        return _WORDS[text]
    if first not in _NUMBER_START:
        return text
    if (number_value := _number(text, number, column)) is not None:
        return number_value
    if text[:2] in ("0x", "0o", "0X", "0O") and len(text) > 2 and is_hex(text[2:], len(text) - 2):  # (0xarchive: text)
        raise YamlError(number, column + 1, "hexadecimal and octal numbers are not supported "
                        "(write it in decimal, or quote it)")
    if text.lower() in (".inf", "-.inf", "+.inf", ".nan"):
        raise YamlError(number, column + 1, "infinity and NaN are not data here")
    return text


def _digits(text):
    return text.isdigit() and text.isascii()


def _number(text, number, column):
    """The int or float ``text`` spells (YAML 1.2's core schema: ``12``, ``-3``, ``1.5``,
    ``.5``, ``1e3``, ``2.5E-3``), or None."""
    body = text[1:] if text[:1] in "+-" else text
    mantissa, e, exponent = body.partition("e") if "e" in body else body.partition("E")
    head, dot, tail = mantissa.partition(".")
    if not (head or tail) or (head and not _digits(head)) or (tail and not _digits(tail)) or (
            e and not _digits(exponent[1:] if exponent[:1] in "+-" else exponent)):
        return None
    if len(head) + len(tail) > _MAX_DIGITS:
        raise YamlError(number, column + 1, "a number of more than %d digits (quote it to keep it "
                        "as text)" % _MAX_DIGITS)
    if not (dot or e):
        return int(text)
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise YamlError(number, column + 1, "a number too large for a decimal (quote it to keep it as text)")
    return value


def _quoted(text, at, number, column):
    """``(string, end)`` of the quoted scalar starting at ``text[at]``."""
    quote = text[at]
    out, i, end = [], at + 1, at
    while True:  # (a piece at a time: str.find runs over the text at C speed)
        if 0 <= end < i:  # (else the next quote is still the one found last, or there is none:
            end = text.find(quote, i)  # linear in all)
        slash = text.find("\\", i, len(text) if end < 0 else end) if quote == '"' else -1
        if slash >= 0:
            out.append(text[i:slash])
            i = _escape(text, slash, out, number, column)
            continue
        if end < 0:
            raise YamlError(number, column + at + 1, "a quoted value that does not end on its line")
        out.append(text[i:end])
        if quote == "'" and text.startswith("''", end):
            out.append("'")
            i = end + 2
            continue
        return "".join(out), end + 1


def _escape(text, i, out, number, column):
    """The escape at ``text[i]`` (a backslash) read onto ``out``; the index after it."""
    kind = text[i + 1:i + 2]
    if kind in _ESCAPES:
        out.append(_ESCAPES[kind])
        return i + 2
    size = {"x": 2, "u": 4, "U": 8}.get(kind)
    if not size or not is_hex(text[i + 2:i + 2 + size], size):
        raise YamlError(number, column + i + 1, "an unknown escape %r" % text[i:i + 2])
    code, end = int(text[i + 2:i + 2 + size], 16), i + 2 + size
    low = text[end + 2:end + 6] if text.startswith("\\u", end) else ""
    if 0xD800 <= code <= 0xDBFF and is_hex(low, 4) and 0xDC00 <= int(low, 16) <= 0xDFFF:
        code, end = 0x10000 + ((code - 0xD800) << 10) + int(low, 16) - 0xDC00, end + 6  # (a JSON-style pair)
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        raise YamlError(number, column + i + 1, "an escape %r that is no Unicode character (write the "
                        "character itself)" % text[i:end])
    out.append(chr(code))
    return end


def _flow(text, at, number, column, depth):
    """``(list or dict, end)`` of the flow collection starting at ``text[at]``."""
    _nest(depth, number, column + at)
    closing = "]" if text[at] == "[" else "}"
    out = [] if closing == "]" else {}
    i = at + 1
    while True:
        i = skip(text, i)
        if i >= len(text) or _is_comment(text, i):
            raise YamlError(number, column + at + 1, "a %r that does not close on its line" % text[at])
        if text[i] == closing:
            return out, i + 1
        if closing == "]":
            value, i = _flow_item(text, i, number, column, depth)
            out.append(value)
        else:
            start = i
            key, i = _flow_key(text, i, number, column)
            i = skip(text, i)
            if not text.startswith(":", i):
                raise YamlError(number, column + i + 1, "expected ':' in a {key: value} mapping")
            if key in out:
                raise YamlError(number, column + start + 1, "key %r given twice" % key)
            out[key], i = _flow_item(text, skip(text, i + 1), number, column, depth)
        i = skip(text, i)
        if text.startswith(",", i):
            i += 1
        elif i < len(text) and text[i] != closing and not _is_comment(text, i):  # (those: above)
            raise YamlError(number, column + i + 1, "expected ',' or %r" % closing)


def skip(text, i, chars=" \t\n"):
    """The index of the first character from ``text[i]`` on that is not one of ``chars``
    (blanks; ``files.formats``: digits, or a Codex name's letters), or ``len(text)``."""
    while i < len(text) and text[i] in chars:
        i += 1
    return i


def _flow_key(text, i, number, column):
    """``(key, end)`` of a ``{key: value}`` key: its text (a string, as a block key is)."""
    if text[i] in "\"'":
        return _quoted(text, i, number, column)
    _refuse_reserved(text, True, number, column, "plain data only", i)  # (no copy of the rest a key)
    if text[i] in _FLOW or text[i] == "#" or (text[i] == "-" and text[i + 1:i + 2] in " \t"):
        raise YamlError(number, column + i + 1, "a key cannot start with %r (quote the key)" % text[i])
    end = i
    while end < len(text) and text[end] not in _FLOW and not _is_comment(text, end) and not (
            text[end] == ":" and (end + 1 == len(text) or text[end + 1] in " \t,}")):
        end += 1
    if end == i:
        raise YamlError(number, column + i + 1, "a ':' with no key before it")
    return text[i:end].rstrip(" \t"), end


def _flow_item(text, i, number, column, depth):
    if i < len(text) and text[i] in "[{":
        return _flow(text, i, number, column, depth + 1)
    if i < len(text) and text[i] in "\"'":
        return _quoted(text, i, number, column)
    end = i
    while end < len(text) and text[end] not in _FLOW and not _is_comment(text, end):
        end += 1
    piece = text[i:end].rstrip(" \t\n")
    if not piece:
        raise YamlError(number, column + i + 1, "an empty item")
    return _plain(piece, number, column + i, True), end


def _fold(lines):
    """``>`` text: the lines of a paragraph joined with a space; where blank lines part
    two paragraphs, each blank line a line break; more indented lines, and the breaks
    around them, kept as they are."""
    out, previous, blanks = [], None, 0
    for line in lines:
        if not line:
            blanks += 1
            continue
        if previous is None:
            out.append("\n" * blanks)
        elif line[0] in " \t" or previous[0] in " \t":
            out.append("\n" * (blanks + 1))
        else:
            out.append("\n" * blanks if blanks else " ")
        out.append(line)
        previous, blanks = line, 0
    out.append("\n" * (blanks - (previous is None)))  # (blank lines alone: as many breaks as '|' keeps)
    return "".join(out)
