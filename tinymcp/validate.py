"""The config validator's tools: a problem collector and the words of its messages.

Validators (``config``, ``models``, ``content``, ``limits``) record every problem in a
``Check`` with the path of the offending value, so one load lists every mistake;
messages are short fragments (``expected a string, got the number 3``) pinned in tests.
"""

__all__ = ["Check", "describe", "shown", "join", "surrogate_at", "is_list", "close_match",
           "line_column", "LETTERS", "ALNUM", "HEX_DIGITS"]

#: ASCII letters, and letters and digits: what names, MIME types and URIs are made of
LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
ALNUM = LETTERS | frozenset("0123456789")
#: the digits of a hexadecimal number (escapes: a URI's %XX, YAML's \xXX and \uXXXX)
HEX_DIGITS = frozenset("0123456789ABCDEFabcdef")


def shown(value):
    """A short rendering of a value where one of a few strings was expected."""
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "...")
    return describe(value)


def describe(value):
    """'a string', 'true', 'a list' ...: the JSON type of a value, for messages."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)):
        return "the number %r" % (value,) if len(repr(value)) <= 20 else "a number"
    if is_list(value):  # (a tuple too: where a list is expected, one is taken)
        return "a list"
    if isinstance(value, dict):
        return "an object"
    name = type(value).__name__
    return ("an %s" if name[0] in "aeiou" else "a %s") % name


def join(path, key):
    return "%s.%s" % (path, key) if path else key


def surrogate_at(text):
    """Index of the first lone surrogate in ``text`` (a JSON file can hold "\\ud800"), or -1."""
    if text.isascii():
        return -1
    try:
        text.encode("utf-8")
        return -1
    except UnicodeEncodeError as exc:
        return exc.start


def line_column(text, pos):
    """``(line, column)`` of character ``pos`` of ``text``, both from 1, as editors show them."""
    line_start = text.rfind("\n", 0, pos) + 1
    return text.count("\n", 0, pos) + 1, pos - line_start + 1


def close_match(key, allowed, cutoff=0.7):
    """The one of ``allowed`` that ``key`` was most likely meant to be, or None (for a
    "did you mean" in a message)."""
    import difflib  # only on the error path
    found = difflib.get_close_matches(str(key), list(allowed), n=1, cutoff=cutoff)
    return found[0] if found else None


def is_list(value):
    """True for what a config may give where JSON has a list: a list, a tuple, or any
    other ``Sequence`` that is not text or bytes (docs/decisions.md)."""
    if isinstance(value, (list, tuple)):
        return True
    if isinstance(value, (str, bytes, bytearray, memoryview, dict)) or value is None:
        return False
    from collections.abc import Sequence  # (only for values of other types: rare)
    return isinstance(value, Sequence)


_KIND_TEST = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: v is True or v is False,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "list": is_list,
    "object": lambda v: isinstance(v, dict),
    "callable": callable,
}
_KIND_NAME = {
    "string": "a string", "boolean": "true or false", "integer": "an integer",
    "number": "a number", "list": "a list", "object": "an object", "callable": "a callable",
}


class Check:
    """Collects ``(path, message)`` problems; typed getters return None on a mismatch."""

    __slots__ = ("problems",)

    def __init__(self):
        self.problems = []

    def fail(self, path, msg):
        self.problems.append((path, msg))

    def obj(self, value, path):
        if isinstance(value, dict):
            return value
        self.fail(path, "expected an object, got %s" % describe(value))
        return None

    def keys(self, obj, path, allowed):
        for key in obj:
            if key not in allowed:
                hint = close_match(key, allowed)
                self.fail(join(path, key), "unknown key" + (
                    " (did you mean %r?)" % hint if hint else ""))

    def unique_name(self, obj, path, seen, what):
        """Record ``obj["name"]`` in ``seen``, failing on a duplicate; done even when
        ``obj`` has other problems, so one run lists them all without follow-up errors."""
        name = obj.get("name") if isinstance(obj, dict) else None
        if isinstance(name, str):
            if name in seen:
                self.fail(path + ".name", "duplicate %s name %r" % (what, name))
            seen.add(name)

    def field(self, obj, key, path, kind, required=False):
        """``obj[key]`` if present and of ``kind`` ('string', 'boolean', 'integer',
        'number', 'list', 'object', 'callable'); else record a problem. A 'list' is
        any sequence (``is_list``), returned as a list: a copy when it is not one."""
        if key not in obj:
            if required:
                self.fail(path, "missing required key %r" % key)
            return None
        value = obj[key]
        if _KIND_TEST[kind](value):
            return list(value) if kind == "list" and type(value) is not list else value
        self.fail(join(path, key), "expected %s, got %s" % (_KIND_NAME[kind], describe(value)))
        return None

    def strings(self, obj, key, path):
        """``obj[key]``, if present, as a list of strings (problems per item)."""
        values = self.field(obj, key, path, "list")
        for i, value in enumerate(values or ()):
            if not isinstance(value, str):
                self.fail("%s.%s[%d]" % (path, key, i), "expected a string, got %s" % describe(value))
        return values

    def bounded(self, obj, key, path, minimum, maximum=None):
        """``obj[key]``, if present, as an integer from ``minimum`` to ``maximum``."""
        value = self.field(obj, key, path, "integer")
        if value is None:
            return None
        if value < minimum:
            self.fail(join(path, key), "expected an integer of %d or more, got %d" % (minimum, value))
        elif maximum is not None and value > maximum:
            self.fail(join(path, key), "expected an integer of %d or less, got %d" % (maximum, value))
        else:
            return value
        return None

    def one_of(self, obj, key, path, choices, default=None):
        """``obj[key]`` if it is one of the strings ``choices``; ``default`` when absent."""
        if key not in obj:
            return default
        value = obj[key]
        if type(value) is not str or value not in choices:
            self.fail(join(path, key), "expected %s, got %s" % (_choices(choices), shown(value)))
            return default
        return value


def _choices(choices):
    quoted = ["%r" % c for c in choices]
    if len(quoted) <= 2:
        return " or ".join(quoted)
    return "one of " + ", ".join(c.strip("'") for c in quoted)
