"""The validators' tools: a problem collector and the words of its messages.

Validators (``config``, ``prompt``, ``content``, ``limits``) record every problem in a
``Check`` with the path of the offending value, so one load lists every mistake;
messages are short fragments (``expected a string, got the number 3``) pinned in tests.
"""

#: ASCII letters, and letters and digits: what names, MIME types and URIs are made of
LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
ALNUM = LETTERS | frozenset("0123456789")
#: the digits of a hexadecimal number (escapes: a URI's %XX, YAML's \xXX and \uXXXX)
HEX_DIGITS = frozenset("0123456789ABCDEFabcdef")
#: who says a message
ROLES = ("user", "assistant")


def describe(value):
    """'the string 'x'', 'true', 'a list' ...: the JSON type of a value (a string's first
    40 characters too), for messages."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, str):  # (shown: YAML reads `required: yes` as text, and JSON `"50"` is no number)
        return "the string " + shown(value)
    if isinstance(value, (int, float)):  # (repr of an int over 4,300 digits raises)
        return "the number %r" % (value,) if -10 ** 19 < value < 10 ** 19 and len(repr(value)) <= 20 else "a number"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if _is_async(value):
        return "an async function (never awaited here: call asyncio.run in a plain one)"
    name = type(value).__name__
    return ("an %s" if name[0] in "aeiou" else "a %s") % name


def _is_async(value):
    """Whether ``value`` is an ``async def`` function or method (CO_COROUTINE, CO_ASYNC_GENERATOR),
    a ``functools.partial`` of one, or an instance (not a class) whose class's ``__call__`` is one."""
    from functools import partial  # (asked only of a callable or another Python object, never of JSON)
    inner = value.func if isinstance(value, partial) else None if isinstance(value, type) else type(value).__call__
    return any(getattr(getattr(f, "__code__", None), "co_flags", 0) & 0x280 for f in (value, inner))


def shown(value):
    """A short rendering of a value where one of a few strings was expected."""
    return repr(value if len(value) <= 40 else value[:40] + "...") if isinstance(value, str) else describe(value)


def join(path, key):
    return "%s.%s" % (path, key) if path else "%s" % (key,)  # (a Python config's key may be None)


def is_hex(digits, size):
    """Whether ``digits`` are ``size`` hexadecimal digits."""
    return len(digits) == size and HEX_DIGITS.issuperset(digits)


def surrogate_at(text):
    """Index of the first lone surrogate in ``text`` (a JSON file can hold "\\ud800"), or -1."""
    try:
        text.encode("utf-8")
        return -1
    except UnicodeEncodeError as exc:
        return exc.start


def close_match(key, allowed, cutoff=0.7):
    """The one of ``allowed`` that ``key`` was most likely meant to be, or None (for a
    "did you mean" in a message)."""
    if (same := [name for name in allowed if name.lower() == str(key).strip().lower()]):  # (case and spaces aside)
        return same[0]
    try:
        import difflib  # only on the error path
    except ImportError:  # (an install without it: messages lose only their guess)
        return None
    found = difflib.get_close_matches(str(key), list(allowed), n=1, cutoff=cutoff)
    return found[0] if found else None


def plain(value):
    """A Python caller's config as JSON data of our own: dicts and lists copied (any
    sequence that is not text becomes a list: docs/decisions.md), text made a ``str``,
    other values kept. The copy is served, so the caller may change its dicts afterwards."""
    kind = type(value)
    if kind is dict:
        return {key: plain(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [plain(item) for item in value]
    if kind is str or value is None or kind is bool or kind is int or kind is float or callable(value):
        return value
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, str):
        # (a subclass: its text, as a str, made without running any of its methods, then or
        # later; PyPy's str.__str__ asks a subclass's __len__)
        return "".join((value,))
    if not isinstance(value, (bytes, bytearray, memoryview)):
        from collections.abc import Sequence  # (only for values of other types: rare)
        if isinstance(value, Sequence):
            return [plain(item) for item in value]
    return value


_KINDS = {
    "string": (lambda v: type(v) is str, "a string"),
    "boolean": (lambda v: v is True or v is False, "true or false"),
    "integer": (lambda v: type(v) is int, "an integer"),
    "number": (lambda v: type(v) in (int, float), "a number"),
    "list": (lambda v: type(v) is list, "a list"),
    "object": (lambda v: type(v) is dict, "an object"),
    "callable": (lambda v: callable(v) and not _is_async(v), "a callable"),
}


class Check:
    """Collects ``(path, message)`` problems; typed getters return None on a mismatch."""

    __slots__ = ("problems",)

    def __init__(self):
        self.problems = []

    def fail(self, path, msg):
        self.problems.append((path, msg))

    def obj(self, value, path):
        if type(value) is dict:
            return value
        self.fail(path, "expected an object, got %s" % describe(value))
        return None

    def keys(self, obj, path, allowed):
        for key in obj:
            if key not in allowed:  # (a did-you-mean for the first few: each costs ~20 us)
                hint = close_match(key, allowed) if len(self.problems) < 20 else None
                where = join(path, '""' if key == "" else key)  # (an empty key shown: else no path at all)
                self.fail(where, "unknown key" + (" (did you mean %r?)" % hint if hint else ""))

    def field(self, obj, key, path, kind, required=False):
        """``obj[key]`` if present and of ``kind`` ('string', 'boolean', 'integer',
        'number', 'list', 'object', 'callable'); else record a problem."""
        if key not in obj:
            if required:
                self.fail(path, "missing required key %r" % key)
            return None
        value = obj[key]
        test, name = _KINDS[kind]
        if test(value):
            return value
        got = describe(value)
        if kind == "string" and got.startswith(("the number ", "true", "false")):  # (YAML's `default: 5`)
            got += " (in quotes it is text)"  # (not the value's text: YAML's 1.10 is the number 1.1)
        self.fail(join(path, key), "expected %s, got %s" % (name, got))
        return None

    def strings(self, obj, key, path):
        """``obj[key]``, if present, as a list of strings (problems per item)."""
        values = self.field(obj, key, path, "list")
        for i, value in enumerate(values or ()):
            if type(value) is not str:
                self.fail("%s.%s[%d]" % (path, key, i), "expected a string, got %s" % describe(value))
        return values

    def bounded(self, obj, key, path, minimum, maximum=None):
        """``obj[key]``, if present, as an integer from ``minimum`` to ``maximum``."""
        value = self.field(obj, key, path, "integer")
        if value is None or minimum <= value and (maximum is None or value <= maximum):
            return value  # (None: absent, or not an integer)
        got = value if -10 ** 19 < value < 10 ** 19 else "one of more than 19 digits"  # (no text of 4,300)
        bound = "%d or more" % minimum if value < minimum else "%d or less" % maximum
        self.fail(join(path, key), "expected an integer of %s, got %s" % (bound, got))
        return None

    def one_of(self, obj, key, path, choices, default=None):
        """``obj[key]`` if it is one of the strings ``choices``; ``default`` when absent."""
        if key not in obj:
            return default
        value = obj[key]
        if type(value) is not str or value not in choices:
            expected = " or ".join(map(repr, choices)) if len(choices) <= 2 else "one of " + ", ".join(choices)
            self.fail(join(path, key), "expected %s, got %s" % (expected, shown(value)))
            return default
        return value
