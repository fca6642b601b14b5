"""Prompt text templates: ``{arg}`` placeholders, ``{{`` and ``}}`` for literal braces.

Parsing splits a text into literal pieces and argument names; rendering joins them in
one pass. Values are inserted verbatim and never looked at again, so a value containing
``{other}``, ``{0.__class__}`` or ``%s`` stays exactly as typed. Nothing is evaluated,
formatted or looked up. (A uri field's template is a ``uri.UriTemplate``.)
"""


from ..errors import line_column
from .check import close_match


class Template:
    """A parsed template: ``parts`` alternates literal text (even) and names (odd)."""

    __slots__ = ("parts",)

    #: the most characters one character of a value becomes in the rendering
    growth = 1

    def __init__(self, parts):
        self.parts = parts

    def value(self, values, name):
        return values.get(name, "")

    def render(self, values):
        parts = list(self.parts)
        parts[1::2] = [self.value(values, name) for name in parts[1::2]]
        return "".join(parts)

    def size(self, values, measure=len):
        """``measure(self.render(values))`` without making it (``len``, or
        ``codec.escaped_size``, which adds up over pieces as every per-character measure
        does)."""
        parts = self.parts
        return sum(map(measure, parts[0::2])) + sum(measure(self.value(values, n)) for n in parts[1::2])

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.parts)


def parse_template(text, kind=Template):
    """``text`` itself when it has no placeholder (its ``{{`` and ``}}`` undone), else a
    ``kind`` (a ``Template``). Raises ``ValueError`` with the column of a stray brace.
    Read left to right, at each brace: ``{{`` or ``}}`` is a literal brace, ``{name}`` a
    placeholder, any other brace (``{}`` too) a mistake; split at every ``{`` (C speed:
    skills' code samples hold thousands of braces), each piece then decides one."""
    if "{" not in text and "}" not in text:
        return text
    chunks = text.split("{")
    # (at: the index in text of the '{' before chunks[i])
    parts, literal, i, at = [], [_literal(chunks[0], 0, text)], 1, len(chunks[0])
    while i < len(chunks):
        chunk = chunks[i]
        if not chunk and i + 1 < len(chunks):  # ("{{")
            literal += ("{", _literal(chunks[i + 1], at + 2, text))
            at, i = at + 2 + len(chunks[i + 1]), i + 2
            continue
        name, closed, rest = chunk.partition("}")
        if not (closed and name):
            raise _stray("{", at, text)
        parts += ("".join(literal), name)
        literal, at, i = [_literal(rest, at + len(name) + 2, text)], at + 1 + len(chunk), i + 1
    parts.append("".join(literal))
    return parts[0] if len(parts) == 1 else kind(parts)


def _literal(text, at, whole):
    """``text`` (no ``{`` in it, at ``whole[at]``) with each ``}}`` a ``}``; a lone ``}`` is a mistake."""
    if "}" in text.replace("}}", ""):
        end = text.find("}")
        while text.startswith("}}", end):
            end = text.find("}", end + 2)
        raise _stray("}", at + end, whole)
    return text.replace("}}", "}") if "}" in text else text


def _stray(brace, at, text):
    line, column = line_column(text, at)  # (a text of many lines: its line too)
    return ValueError("%r at %scolumn %d %s no placeholder; write %r for a literal brace" % (
        brace, "line %d, " % line if "\n" in text else "", column, "closes" if brace == "}" else "opens", brace * 2))


def names_within(text, names):
    """True when ``text`` parses (without ``{{``, ``}}`` or a stray brace) and every
    placeholder of it is among ``names``, read at C speed and making nothing; else
    ``check_template`` says what is wrong, if anything."""
    if "{{" in text or "}}" in text:
        return False
    chunks = text.split("{")
    if "}" in chunks[0]:
        return False
    for chunk in chunks[1:]:
        name, sep, rest = chunk.partition("}")
        if not sep or name not in names or "}" in rest:
            return False
    return True


def fill(text, values, kind=Template):
    """Template ``text`` (valid: checked at load) rendered with ``values``."""
    if kind is Template and "{{" not in text and "}}" not in text:
        # (the common case, made at C speed: a split, and a lookup a placeholder)
        chunks = text.split("{")
        for i in range(1, len(chunks)):
            name, _, rest = chunks[i].partition("}")
            chunks[i] = values.get(name, "") + rest
        return "".join(chunks)
    parsed = parse_template(text, kind)
    return parsed if type(parsed) is str else parsed.render(values)


def check_template(check, text, path, declared, kind=Template):
    """Record the problems of template ``text`` in ``check`` (a stray brace, a placeholder
    that names no ``declared`` argument)."""
    try:
        parsed = parse_template(text, kind)
    except ValueError as exc:
        check.fail(path, str(exc))
        return
    if type(parsed) is not str:
        for name in parsed.parts[1::2]:  # (its placeholders' names)
            if name not in declared:
                near = close_match(name, declared) if len(check.problems) < 20 else None  # (as Check.keys does)
                check.fail(path, "placeholder {%s} names no declared argument%s" % (name, " (did you mean {%s}?)" % (
                    near) if near else " (write {{ and }} for literal braces)" if set(name) & set("\":, ") else ""))
