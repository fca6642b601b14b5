"""Prompt text templates: ``{arg}`` placeholders, ``{{`` and ``}}`` for literal braces.

A template is parsed once, at config load, into literal pieces and argument names;
rendering is a single pass that joins them. Values are inserted verbatim and never
looked at again, so a value containing ``{other}``, ``{0.__class__}`` or ``%s``
stays exactly as typed. Nothing is evaluated, formatted or looked up. (A uri field's
template is a ``uri.UriTemplate``.)
"""

__all__ = ["Template", "parse_template", "names_within"]


class Template:
    """A parsed template: ``parts`` alternates literal text (even) and names (odd)."""

    __slots__ = ("parts", "_pairs")

    #: the most characters one character of a value becomes in the rendering
    growth = 1

    def __init__(self, parts):
        self.parts = parts
        self._pairs = None  # (name, following literal) pairs, made on first render

    @property
    def names(self):
        return self.parts[1::2]

    def render(self, values):
        pairs = self._pairs
        if pairs is None:
            parts = self.parts
            pairs = self._pairs = tuple(zip(parts[1::2], parts[2::2]))
        out = [self.parts[0]]
        get = values.get
        for name, literal in pairs:
            out.append(get(name, ""))
            out.append(literal)
        return "".join(out)

    def size(self, values, measure=len):
        """``measure(self.render(values))`` without making it: the pieces' measures added
        up, each value measured once (``len``, or ``jsonrpc.escaped_size``, which adds up
        over pieces as every per-character measure does)."""
        parts = self.parts
        total = sum(map(measure, parts[0::2]))
        measured = {}
        get = values.get
        for name in parts[1::2]:
            size = measured.get(name)
            if size is None:
                size = measured[name] = measure(get(name, ""))
            total += size
        return total

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.parts)


def names_within(text, names):
    """True when ``text`` parses and every placeholder of it is among ``names``, read at C
    speed as ``parse_template`` reads the common case (no ``{{``, ``}}`` or stray brace),
    making nothing; False at the first name that is not (the rest unread); None for any
    other text, which ``parse_template`` then reads."""
    if "{{" in text or "}}" in text:
        return None
    chunks = text.split("{")
    if "}" in chunks[0]:
        return None
    for chunk in chunks[1:]:
        name, sep, rest = chunk.partition("}")
        if not sep or not name or "}" in rest:
            return None
        if name not in names:
            return False
    return True


def parse_template(text):
    """Return ``text`` itself when it has no placeholder, else a ``Template``.

    Raises ``ValueError`` with the column of a stray brace.
    """
    if "{" not in text and "}" not in text:
        return text
    if "{{" not in text and "}}" not in text:
        # Common case, no literal braces: split at C speed. Any
        # irregularity falls through to the scan, which reports its column.
        chunks = text.split("{")
        parts = [chunks[0]]
        ok = "}" not in chunks[0]
        for chunk in chunks[1:]:
            name, sep, rest = chunk.partition("}")
            if not (ok and sep and name and "}" not in rest):
                ok = False
                break
            parts.append(name)
            parts.append(rest)
        if ok:
            return Template(parts)
    find = text.find
    parts, literal = [], []
    # the next '{' and '}' at or after pos (str.find: C speed), each found again only once
    # passed (none left stays none): the text is read once, however many '{{' or '}}'
    pos, opening, closing = 0, -2, -2
    while True:
        if opening != -1 and opening < pos:
            opening = find("{", pos)
        if closing != -1 and closing < pos:
            closing = find("}", pos)
        if opening < 0 and closing < 0:
            literal.append(text[pos:])
            break
        if closing >= 0 and (opening < 0 or closing < opening):
            if not text.startswith("}", closing + 1):
                raise ValueError(
                    "'}' at column %d closes no placeholder; write '}}' for a literal brace" % (closing + 1))
            literal.append(text[pos:closing + 1])
            pos = closing + 2
            continue
        literal.append(text[pos:opening])
        if text.startswith("{", opening + 1):
            literal.append("{")
            pos = opening + 2
            continue
        end = find("}", opening + 1)
        inner = text[opening + 1:end] if end >= 0 else ""
        if end < 0 or not inner or "{" in inner:
            raise ValueError(
                "'{' at column %d opens no placeholder; write '{{' for a literal brace" % (opening + 1))
        parts.append("".join(literal))
        parts.append(inner)
        literal = []
        pos = end + 1
    parts.append("".join(literal))
    if len(parts) == 1:
        return parts[0]
    return Template(parts)
