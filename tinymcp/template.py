"""Prompt text templates: ``{arg}`` placeholders, ``{{`` and ``}}`` for literal braces.

A template is parsed once, at config load, into literal pieces and argument names;
rendering is a single pass that joins them. Values are inserted verbatim and never
looked at again, so a value containing ``{other}``, ``{0.__class__}`` or ``%s``
stays exactly as typed. Nothing is evaluated, formatted or looked up.

A uri field's template is a ``UriTemplate``: its literal parts are held to URI syntax at
load (``uri_problem``), and each value put into it is percent-encoded where a URI cannot
hold its characters (``quote_uri``).
"""

from .errors import InvalidParams, clip
from .validate import ALNUM, LETTERS

__all__ = ["Template", "UriTemplate", "parse_template", "names_within", "uri_problem", "quote_uri"]


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


class UriTemplate(Template):
    """The template of a uri field: each value is put in as ``quote_uri`` makes it, and a
    rendering whose scheme was left to the values (``open``) must have one."""

    __slots__ = ("open",)

    growth = 12  # (a character outside the BMP: four UTF-8 bytes, each "%XX")

    def __init__(self, parts):
        Template.__init__(self, parts)
        self.open = not _scheme_end(parts[0])

    def render(self, values):
        text = Template.render(self, _Quoted(values))
        if self.open and not _scheme_end(text):
            # prompts "Embedded Resources" (every revision): MUST include a valid resource URI
            raise InvalidParams("Invalid params: the arguments make the uri %s, which is not an "
                                "absolute URI: %s" % (clip(text), _NO_SCHEME))
        return text

    def size(self, values, measure=len):
        return Template.size(self, _Quoted(values), measure)


class _Quoted:
    """``values`` as a uri template reads them: ``get`` gives each ``quote_uri``'d."""

    __slots__ = ("values",)

    def __init__(self, values):
        self.values = values

    def get(self, name, default):
        return quote_uri(self.values.get(name, default))


# --- URI syntax (RFC 3986) ---------------------------------------------------------------

#: unreserved and reserved characters (section 2.2, 2.3); "%" only begins an escape
_URI_CHARS = ALNUM | frozenset("-._~" ":/?#[]@" "!$&'()*+,;=")
_SCHEME_CHARS = ALNUM | frozenset("+-.")
_HEX = frozenset("0123456789ABCDEFabcdef")
_NO_SCHEME = "it must begin with a scheme and ':', like 'file:' or 'https:'"


def _scheme_end(text):
    """The length of the ``scheme ":"`` that ``text`` begins with (section 3.1), or 0."""
    colon = text.find(":")
    if colon > 0 and text[0] in LETTERS and _SCHEME_CHARS.issuperset(text[:colon]):
        return colon + 1
    return 0


def _escape_at(text, i):
    """True when the "%" at ``text[i]`` begins an escape: two hex digits follow it."""
    digits = text[i + 1:i + 3]
    return len(digits) == 2 and _HEX.issuperset(digits)


def quote_uri(value):
    """``value`` with each character a URI cannot hold percent-encoded (its UTF-8 bytes,
    section 2.1), and "%" too unless it begins an escape; reserved characters are kept,
    so a value may hold a path, a query or a whole URI (docs/decisions.md)."""
    if _URI_CHARS.issuperset(value):
        return value
    out = []
    for i, char in enumerate(value):
        if char in _URI_CHARS or (char == "%" and _escape_at(value, i)):
            out.append(char)
        else:
            out.extend("%%%02X" % byte for byte in char.encode("utf-8", "surrogatepass"))
    return "".join(out)


def uri_problem(parts):
    """Why a uri is not an absolute URI (section 4.3) whatever its values are, or "":
    ``parts`` as a ``Template``'s (literal texts, placeholder names between; a fixed
    uri is ``[text]``). A uri whose scheme may come from a value (before its first
    placeholder, scheme characters at most) passes; its rendering is checked instead."""
    head = parts[0]
    if not _scheme_end(head) and not (len(parts) > 1 and _SCHEME_CHARS.issuperset(head)
                                      and (not head or head[0] in LETTERS)):
        return _NO_SCHEME
    for literal in parts[0::2]:
        if _URI_CHARS.issuperset(literal):
            continue
        for i, char in enumerate(literal):
            if char == "%":
                if not _escape_at(literal, i):
                    return "'%' must begin an escape like '%20' (write '%25' for '%' itself)"
            elif char not in _URI_CHARS:
                return "%r cannot stand in a URI; write it percent-encoded, as %r" % (char, quote_uri(char))
    return ""


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
    parts = []
    literal = []
    pos = 0
    while True:
        # str.find jumps over literal text at C speed
        opening = find("{", pos)
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
