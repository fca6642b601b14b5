"""A small, safe reader for the YAML that prompt files put in their front matter.

The subset those files use, and nothing else: block mappings and sequences (a sequence
may sit at its key's indentation), flow sequences and mappings on one line (``[a, b]``,
``{a: 1}``), plain, single- and double-quoted scalars, ``true``/``false``, ``null``/``~``,
integers and decimal numbers, ``|`` and ``>`` block text (with ``-``/``+`` chomping), and
``#`` comments. Values are data only: tags, anchors, aliases, merge keys, directives,
complex keys and several documents are errors, never guesses; so is a tab in the
indentation, a key given twice, or an indentation that fits no structure.

``load(text)`` returns ``(value, lines)``: ``lines`` maps each key's and item's path (a
tuple of keys and indexes) to its line (1-based in ``text``). Errors are ``YamlError``
with the line and column. The reader goes through the text once, a line at a time.
"""

from .errors import TinyMCPError

__all__ = ["load", "YamlError"]


class YamlError(TinyMCPError, ValueError):
    """Text outside the subset; ``line`` and ``column`` are 1-based."""

    def __init__(self, line, column, message):
        super().__init__("%d:%d: %s" % (line, column, message))
        self.line, self.column, self.message = line, column, message


_NULLS = ("null", "Null", "NULL", "~")
_TRUE = ("true", "True", "TRUE")
_FALSE = ("false", "False", "FALSE")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "/": "/", " ": " ",
            "b": "\b", "f": "\f", "e": "\x1b", "a": "\x07", "v": "\x0b", "N": "\x85", "_": "\xa0",
            "L": "\u2028", "P": "\u2029"}
_RESERVED = {"&": "anchors", "*": "aliases", "!": "tags", "%": "directives", "@": "values starting with '@'",
             "`": "values starting with '`'", "?": "complex keys",
             "|": "block text markers ('|', '>') followed by more text",
             ">": "block text markers ('|', '>') followed by more text"}


def load(text):
    """``(value, lines)`` of a YAML document in the subset (a mapping at the top, or None
    for no content)."""
    reader = _Reader(text)
    value = reader.document()
    return value, reader.lines


class _Line:
    __slots__ = ("number", "indent", "text")

    def __init__(self, number, indent, text):
        self.number, self.indent, self.text = number, indent, text


class _Reader:
    def __init__(self, text):
        self.lines = {}
        self.rows = []  # every line: (number, raw text)
        for number, raw in enumerate(text.split("\n"), 1):
            self.rows.append((number, raw[:-1] if raw.endswith("\r") else raw))
        if text.endswith("\n"):
            self.rows.pop()  # (what follows the last newline is no line)
        self.at = 0  # index into rows of the next line to read

    # --- lines ---------------------------------------------------------------------------

    def peek(self):
        """The next line with content (skipping blank and comment-only lines), or None."""
        while self.at < len(self.rows):
            number, raw = self.rows[self.at]
            stripped = raw.lstrip(" ")
            if not stripped or stripped.startswith("#"):
                self.at += 1
                continue
            indent = len(raw) - len(stripped)
            if stripped[0] == "\t":
                raise YamlError(number, indent + 1, "a tab in the indentation (indent with spaces)")
            if stripped.startswith(("---", "...")) and (len(stripped) == 3 or stripped[3] in " #"):
                raise YamlError(number, 1, "a second document (one mapping of keys only)")
            return _Line(number, indent, stripped)
        return None

    def document(self):
        line = self.peek()
        if line is None:
            return None
        if line.indent:
            raise YamlError(line.number, 1, "the first key is indented")
        value = self.block(0, ())
        rest = self.peek()
        if rest is not None:
            raise YamlError(rest.number, rest.indent + 1, "indentation that fits no key above it")
        return value

    def block(self, indent, path):
        """The mapping or sequence whose lines start at column ``indent``."""
        line = self.peek()
        if line.text.startswith("- ") or line.text == "-":
            return self.sequence(indent, path)
        return self.mapping(indent, path)

    # --- block collections -----------------------------------------------------------------

    def mapping(self, indent, path, first=None):
        """Keys at column ``indent``; ``first``: the text of a first key already on a
        sequence item's line (``- key: value``)."""
        out = {}
        while True:
            if first is not None:
                number, column, text = first
                first = None
            else:
                line = self.peek()
                if line is None or line.indent < indent:
                    return out
                if line.indent > indent:
                    raise YamlError(line.number, line.indent + 1, "indentation that fits no key above it")
                if line.text.startswith("- ") or line.text == "-":
                    raise YamlError(line.number, indent + 1, "a list item where a key was expected")
                number, column, text = line.number, indent, line.text
                self.at += 1
            key, rest, value_column = self.key(number, column, text)
            if key in out:
                raise YamlError(number, column + 1, "key %r given twice" % key)
            self.lines[path + (key,)] = number
            out[key] = self.value(number, value_column, rest, indent, path + (key,), True)

    def sequence(self, indent, path):
        out = []
        while True:
            line = self.peek()
            if line is None or line.indent < indent:
                return out
            if line.indent > indent:
                raise YamlError(line.number, line.indent + 1, "indentation that fits no item above it")
            if not (line.text.startswith("- ") or line.text == "-"):
                return out  # (a key after a sequence at its key's indentation)
            self.at += 1
            item_path = path + (len(out),)
            self.lines[item_path] = line.number
            rest = line.text[1:].lstrip(" ")
            column = indent + len(line.text) - len(rest)
            if rest.startswith("- ") or rest == "-":  # a sequence in a sequence, on one line:
                self.at -= 1  # its first item is read again, as if on a line of its own
                self.rows[self.at] = (line.number, " " * column + rest)
                out.append(self.sequence(column, item_path))
            elif rest and _is_key(rest):
                out.append(self.mapping(column, item_path, (line.number, column, rest)))
            else:
                out.append(self.value(line.number, column, rest, indent, item_path, False))

    def value(self, number, column, rest, indent, path, in_mapping):
        """The value after a key or an item marker: inline, block text, or a nested block
        on the following lines (more indented; for a mapping's value, a sequence may
        also start at the key's own indentation)."""
        rest = _strip_comment(rest, number, column)
        if rest in ("|", "|-", "|+", ">", ">-", ">+"):
            return self.block_text(indent, rest, number)
        if rest:
            return self.inline(number, column, rest)
        line = self.peek()
        if line is None:
            return None
        if line.indent > indent:
            return self.block(line.indent, path)
        if in_mapping and line.indent == indent and (line.text.startswith("- ") or line.text == "-"):
            return self.sequence(indent, path)
        return None

    def block_text(self, indent, style, number):
        """``|`` (lines kept) or ``>`` (lines folded) text, indented under its key."""
        lines, body_indent = [], None
        while self.at < len(self.rows):
            row_number, raw = self.rows[self.at]
            stripped = raw.lstrip(" ")
            own = len(raw) - len(stripped)
            if stripped and (own <= indent or (body_indent is not None and own < body_indent)):
                break
            if stripped and body_indent is None:
                if stripped.startswith("\t"):
                    raise YamlError(row_number, own + 1, "a tab in the indentation (indent with spaces)")
                body_indent = own
            lines.append(raw[body_indent:] if stripped else "")
            self.at += 1
        if style[0] == ">":
            text = _fold(lines)
        else:
            text = "\n".join(lines)
        if style.endswith("+"):
            return text + "\n" if lines else ""
        text = text.rstrip("\n")
        return text if style.endswith("-") or not text else text + "\n"

    # --- one line's pieces -----------------------------------------------------------------

    def key(self, number, column, text):
        """``(key, rest of the line, column of the rest)`` of ``key: value``."""
        if text[0] in "\"'":
            key, end = _quoted(text, 0, number, column)
            after = text[end:].lstrip(" ")
            if not after.startswith(":"):
                raise YamlError(number, column + end + 1, "expected ':' after the key")
            rest = after[1:]
        else:
            split = _colon(text)
            if split < 0:
                raise YamlError(number, column + 1, "expected 'key: value'")
            key = text[:split].rstrip(" ")
            if key[0] in _RESERVED or key == "<<":
                raise YamlError(number, column + 1, "%s are not supported (plain data only)"
                                % ("merge keys" if key == "<<" else _RESERVED[key[0]]))
            rest = text[split + 1:]
        return key, rest.lstrip(" "), column + len(text) - len(rest.lstrip(" "))

    def inline(self, number, column, text):
        if text[0] in "[{\"'":
            value, end = (_flow if text[0] in "[{" else _quoted)(text, 0, number, column)
            rest = text[end:]
            if rest.strip(" ") and not (rest.startswith(" ") and rest.lstrip(" ").startswith("#")):
                raise YamlError(number, column + end + 1, "text after the closing %s"
                                % ("bracket" if text[0] in "[{" else "quote"))
            return value
        return _plain(text, number, column)


# --- scalars and flow collections --------------------------------------------------------------

def _is_key(text):
    return (text[0] in "\"'" and _quoted_key_end(text)) or (text[0] not in "[{\"'" and _colon(text) >= 0)


def _quoted_key_end(text):
    try:
        _, end = _quoted(text, 0, 0, 0)
    except YamlError:
        return False
    return text[end:].lstrip(" ").startswith(":")


def _colon(text):
    """Where ``key: value`` splits (a ':' followed by a space or the end), or -1."""
    at = text.find(":")
    while at >= 0:
        if at + 1 == len(text) or text[at + 1] == " ":
            return at
        at = text.find(":", at + 1)
    return -1


def _strip_comment(text, number, column):
    """``text`` without a trailing `` # comment`` (quotes and brackets respected)."""
    if "#" not in text:
        return text.rstrip(" ")
    if text[0] in "\"'[{":
        return text.rstrip(" ")  # (comments after these are taken off by their readers)
    at = text.find(" #")
    return (text[:at] if at >= 0 else text).rstrip(" ") if not text.startswith("#") else ""


def _plain(text, number, column):
    if text[0] in _RESERVED:
        raise YamlError(number, column + 1, "%s are not supported (quote the value)" % _RESERVED[text[0]])
    if text.startswith(("- ", ": ")) or text in ("-", ":"):
        raise YamlError(number, column + 1, "a value cannot start with %r" % text[0])
    if _colon(text) >= 0:
        raise YamlError(number, column + _colon(text) + 1, "': ' inside a value (quote the value)")
    if text in _NULLS:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    number_value = _number(text)
    if number_value is not None:
        return number_value
    if text[:2] in ("0x", "0o", "0X", "0O"):
        raise YamlError(number, column + 1, "hexadecimal and octal numbers are not supported "
                        "(write it in decimal, or quote it)")
    if text.lower() in (".inf", "-.inf", "+.inf", ".nan"):
        raise YamlError(number, column + 1, "infinity and NaN are not data here")
    return text


def _number(text):
    body = text[1:] if text[:1] in "+-" else text
    if body.isdigit() and body.isascii():
        return int(text)
    head, dot, tail = body.partition(".")
    mantissa, e, exponent = tail.partition("e") if "e" in tail else tail.partition("E")
    if dot and (head or mantissa) and (not head or (head.isdigit() and head.isascii())) \
            and (not mantissa or (mantissa.isdigit() and mantissa.isascii())):
        if e:
            digits = exponent[1:] if exponent[:1] in "+-" else exponent
            if not (digits.isdigit() and digits.isascii()):
                return None
        return float(text)
    return None


def _quoted(text, at, number, column):
    """``(string, end)`` of the quoted scalar starting at ``text[at]``."""
    quote = text[at]
    out, i = [], at + 1
    while i < len(text):
        c = text[i]
        if c == quote:
            if quote == "'" and text.startswith("''", i):
                out.append("'")
                i += 2
                continue
            return "".join(out), i + 1
        if c == "\\" and quote == '"':
            i = _escape(text, i, out, number, column)
            continue
        out.append(c)
        i += 1
    raise YamlError(number, column + at + 1, "a quoted value that does not end on its line")


def _escape(text, i, out, number, column):
    kind = text[i + 1:i + 2]
    if kind in _ESCAPES:
        out.append(_ESCAPES[kind])
        return i + 2
    size = {"x": 2, "u": 4, "U": 8}.get(kind)
    digits = text[i + 2:i + 2 + size] if size else ""
    if not size or len(digits) != size or not all(c in "0123456789abcdefABCDEF" for c in digits):
        raise YamlError(number, column + i + 1, "an unknown escape %r" % text[i:i + 2])
    out.append(chr(int(digits, 16)))
    return i + 2 + size


def _flow(text, at, number, column):
    """``(list or dict, end)`` of the flow collection starting at ``text[at]``."""
    closing = "]" if text[at] == "[" else "}"
    out = [] if closing == "]" else {}
    i = at + 1
    while True:
        i = _skip(text, i)
        if i >= len(text):
            raise YamlError(number, column + at + 1, "a %r that does not close on its line" % text[at])
        if text[i] == closing:
            return out, i + 1
        if closing == "]":
            value, i = _flow_item(text, i, number, column, ",]")
            out.append(value)
        else:
            key, i = _flow_item(text, i, number, column, ":")
            if not text.startswith(":", i):
                raise YamlError(number, column + i + 1, "expected ':' in a {key: value} mapping")
            if key in out:
                raise YamlError(number, column + i + 1, "key %r given twice" % (key,))
            out[key], i = _flow_item(text, _skip(text, i + 1), number, column, ",}")
        i = _skip(text, i)
        if text.startswith(",", i):
            i += 1
        elif not text.startswith(closing, i):
            raise YamlError(number, column + i + 1, "expected ',' or %r" % closing)


def _skip(text, i):
    while i < len(text) and text[i] == " ":
        i += 1
    return i


def _flow_item(text, i, number, column, stops):
    if i < len(text) and text[i] in "[{":
        return _flow(text, i, number, column)
    if i < len(text) and text[i] in "\"'":
        return _quoted(text, i, number, column)
    end = i
    while end < len(text) and text[end] not in stops and not (text[end] == ":" and ":" in stops):
        if text[end] in "[]{}" or text.startswith(" #", end):
            break
        end += 1
    piece = text[i:end].rstrip(" ")
    if not piece:
        raise YamlError(number, column + i + 1, "an empty item")
    return _plain(piece, number, column + i), end


def _fold(lines):
    """``>`` text: the lines of a paragraph joined with spaces; each blank line a line
    break; more indented lines kept as they are."""
    out, previous = [], None
    for line in lines:
        if previous is None:
            out.append(line)
        elif not line:
            out.append("\n")
        elif not previous:
            out.append(line)  # (the blank lines before it gave its breaks)
        elif line.startswith(" ") or previous.startswith(" "):
            out.append("\n" + line)
        else:
            out.append(" " + line)
        previous = line
    return "".join(out)
