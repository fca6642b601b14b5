"""URIs (RFC 3986), for the fields that hold one: a resource's and a resource link's
``uri``, an icon's ``src`` (prompts "Embedded Resources", every revision: MUST include a
valid resource URI; the schema gives ``format: uri``).

A fixed uri, and the literal parts of a templated one, are held to URI syntax at load
(``uri_problem``); each value put into a uri is percent-encoded where a URI cannot hold
its characters (``quote_uri``), by the field's ``UriTemplate``. Imported by ``content``
when a config first has such a field: a config without one never loads this module.
"""

from ..errors import InvalidParams, clip
from .check import ALNUM, LETTERS, is_hex
from .template import Template


class UriTemplate(Template):
    """The template of a uri field: each value is put in as ``quote_uri`` makes it, and a
    rendering whose scheme was left to the values must have one."""

    __slots__ = ()

    growth = 12  # (a character outside the BMP: four UTF-8 bytes, each "%XX")

    def value(self, values, name):
        return quote_uri(values.get(name, ""))

    def render(self, values):
        text = Template.render(self, values)
        if not _scheme_end(self.parts[0]) and not _scheme_end(text):
            # prompts "Embedded Resources" (every revision): MUST include a valid resource URI
            raise InvalidParams("Invalid params: the arguments make the uri %s, which is not an "
                                "absolute URI: %s" % (clip(text), _NO_SCHEME))
        return text


# --- URI syntax (RFC 3986) ---------------------------------------------------------------

#: unreserved and reserved characters (section 2.2, 2.3); "%" only begins an escape
_URI_CHARS = ALNUM | frozenset("-._~" ":/?#[]@" "!$&'()*+,;=")
_SCHEME_CHARS = ALNUM | frozenset("+-.")
_NO_SCHEME = "it must begin with a scheme and ':', like 'file:' or 'https:'"


def _scheme_end(text):
    """The length of the ``scheme ":"`` that ``text`` begins with (section 3.1), or 0."""
    colon = text.find(":")
    return colon + 1 if colon > 0 and text[0] in LETTERS and _SCHEME_CHARS.issuperset(text[:colon]) else 0


def quote_uri(value):
    """``value`` with each character a URI cannot hold percent-encoded (its UTF-8 bytes,
    section 2.1), and "%" too unless it begins an escape; reserved characters are kept,
    so a value may hold a path, a query or a whole URI (docs/decisions.md)."""
    if _URI_CHARS.issuperset(value):
        return value
    return "".join([char if char in _URI_CHARS or (char == "%" and is_hex(value[i + 1:i + 3], 2))  # (an escape)
                    else "".join(["%%%02X" % byte for byte in char.encode("utf-8", "surrogatepass")])
                    for i, char in enumerate(value)])


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
                if not is_hex(literal[i + 1:i + 3], 2):  # (no escape: not two hex digits after it)
                    return "'%' must begin an escape like '%20' (write '%25' for '%' itself)"
            elif char not in _URI_CHARS:
                return "%r cannot stand in a URI; write it percent-encoded, as %r" % (char, quote_uri(char))
    return ""
