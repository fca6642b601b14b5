"""Prompt text templates: ``{arg}`` placeholders, ``{{`` and ``}}`` for literal braces.

A template is parsed once, at config load, into literal pieces and argument names;
rendering is a single pass that joins them. Values are inserted verbatim and never
looked at again, so a value containing ``{other}``, ``{0.__class__}`` or ``%s``
stays exactly as typed. Nothing is evaluated, formatted or looked up.
"""

__all__ = ["Template", "parse_template"]


class Template:
    """A parsed template: ``parts`` alternates literal text (even) and names (odd)."""

    __slots__ = ("parts", "names")

    def __init__(self, parts):
        self.parts = parts
        self.names = parts[1::2]

    def render(self, values):
        parts = self.parts
        out = [parts[0]]
        for i in range(1, len(parts), 2):
            out.append(values.get(parts[i], ""))
            out.append(parts[i + 1])
        return "".join(out)

    def __repr__(self):
        return "Template(%r)" % (self.parts,)


def parse_template(text):
    """Return ``text`` itself when it has no placeholder, else a ``Template``.

    Raises ``ValueError`` with the column of a stray brace.
    """
    if "{" not in text and "}" not in text:
        return text
    parts = []
    literal = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "{":
            if text.startswith("{", i + 1):
                literal.append("{")
                i += 2
                continue
            end = text.find("}", i + 1)
            inner = text[i + 1:end] if end >= 0 else ""
            if end < 0 or not inner or "{" in inner:
                raise ValueError(
                    "'{' at column %d opens no placeholder; write '{{' for a literal brace" % (i + 1))
            parts.append("".join(literal))
            parts.append(inner)
            literal = []
            i = end + 1
        elif ch == "}":
            if not text.startswith("}", i + 1):
                raise ValueError(
                    "'}' at column %d closes no placeholder; write '}}' for a literal brace" % (i + 1))
            literal.append("}")
            i += 2
        else:
            j = i + 1
            while j < n and text[j] not in "{}":
                j += 1
            literal.append(text[i:j])
            i = j
    parts.append("".join(literal))
    if len(parts) == 1:
        return parts[0]
    return Template(parts)
