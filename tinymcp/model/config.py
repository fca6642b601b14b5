"""The config: one validator from a plain dict (JSON maps onto it) to a ``ServerConfig``,
and the prompt set it serves, with its pages and cursors.

Sans-I/O: files are read elsewhere. Every problem is reported with its path
(``prompts[2].arguments[0].name: expected a string, got the number 3``), all of them in
one ``ConfigError``.
"""

from ..errors import ConfigError, InvalidParams
from . import prompt as prompts
from .check import Check, plain
from .limits import Limits

#: A typical library in one page (many clients read only the first), still bounded: a
#: 100,000-prompt config pages.
DEFAULT_PAGE_SIZE = 1000
#: 2026-07-28 caching: how long clients may keep prompts/list and server/discover results.
DEFAULT_TTL_MS = 60000
#: RFC 5424 severities, lowest first: the same in every revision (logging "Log Levels").
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

_TOP_KEYS = ("server", "page_size", "ttl_ms", "cache_scope", "log_level", "limits", "prompts", "prompt_dirs",
             "prompts_as_tools", "ask_for_missing")
_SERVER_KEYS = ("name", "version", "title", "instructions")


class ServerConfig:
    """What a server serves: identity, instructions, page size, limits and the prompt set."""

    __slots__ = ("name", "version", "title", "instructions", "page_size", "prompts", "ttl_ms",
                 "cache_scope", "log_level", "limits", "tools", "ask")

    def __init__(self, prompts, name="tinymcp", version=None, title=None, instructions=None,
                 page_size=DEFAULT_PAGE_SIZE, ttl_ms=DEFAULT_TTL_MS, cache_scope="public",
                 log_level=None, limits=None, tools=False, ask=False):
        from .. import __version__
        self.prompts, self.name, self.title, self.instructions = prompts, name, title, instructions
        self.version = version if version is not None else __version__
        self.page_size, self.ttl_ms, self.cache_scope = page_size, ttl_ms, cache_scope
        #: handshake-era sessions start logging at this level (None: not until logging/setLevel)
        self.log_level = log_level
        #: the limits in force (``Limits``): defaults, then the config's ``limits`` object
        self.limits = limits if limits is not None else Limits()
        #: prompts offered as two tools too, for clients that call only tools (``protocol/tools``)
        self.tools = tools
        #: 2026-07-28: ask a client that can elicit for a prompt's missing arguments
        #: (``protocol/ask``; a prompt's own ``ask_for_missing`` wins)
        self.ask = ask

    def with_overrides(self, page_size=None, limits=None, tools=None):
        """A copy with ``Server(page_size=..., limits=..., prompts_as_tools=...)`` applied
        over the file's values."""
        values = {k: getattr(self, k) for k in self.__slots__}
        if page_size is not None:
            values["page_size"] = page_size
        if tools is not None:
            values["tools"] = bool(tools)
        if limits:
            values["limits"] = self.limits.merged(limits)
        return ServerConfig(**values)


def load_config(config, owned=False):
    """Validate a config dict whole; return a ``ServerConfig`` or raise ``ConfigError``
    listing every problem with its path.

    ``owned``: the caller hands the dicts over and never changes them (a config just
    parsed from JSON): they are served as they are. Otherwise they are copied first.
    """
    if isinstance(config, ServerConfig):
        return config
    check = Check()
    if not owned:
        try:
            config = plain(config)
        except RecursionError:
            raise ConfigError([("config", "nested too deeply (or a value that holds itself)")])
    if check.obj(config, "config") is None:
        raise ConfigError(check.problems)
    check.keys(config, "", _TOP_KEYS)
    if "prompt_dirs" in config:
        check.fail("prompt_dirs", "prompt folders are read by tinymcp.serve(), tinymcp.load_files() "
                   "and the command line: pass Server() what load_files(config) returns")
    server = check.field(config, "server", "", "object") or {}
    check.keys(server, "server", _SERVER_KEYS)
    info = {key: server[key] for key in _SERVER_KEYS if check.field(server, key, "server", "string") is not None}
    if info.get("name") == "":
        check.fail("server.name", "expected a non-empty string")
    page_size = check.bounded(config, "page_size", "", 1)
    ttl_ms = check.bounded(config, "ttl_ms", "", 0, 2 ** 53 - 1)  # (what every JSON reader holds exactly)
    cache_scope = check.one_of(config, "cache_scope", "", ("public", "private"), "public")
    log_level = check.one_of(config, "log_level", "", LOG_LEVELS)
    limits = Limits.from_wire(check, config["limits"], "limits") if "limits" in config else {}
    tools = check.field(config, "prompts_as_tools", "", "boolean")
    ask = check.field(config, "ask_for_missing", "", "boolean")
    by_name = {}
    for i, p in enumerate(check.field(config, "prompts", "", "list", required=True) or ()):
        path = "prompts[%d]" % i
        name = p.get("name") if type(p) is dict else None
        if type(name) is str and name in by_name:
            check.fail(path + ".name", "duplicate prompt name %r" % name)
            prompts.check(check, p, path)
        elif prompts.check(check, p, path):
            by_name[name] = p
        elif type(name) is str:
            by_name[name] = None  # (taken, for a duplicate's problem)
    if check.problems:
        raise ConfigError(check.problems)
    return ServerConfig(PromptSet(by_name), page_size=page_size or DEFAULT_PAGE_SIZE,
                        ttl_ms=DEFAULT_TTL_MS if ttl_ms is None else ttl_ms,
                        cache_scope=cache_scope, log_level=log_level, limits=Limits(**limits),
                        tools=bool(tools), ask=bool(ask), **info)


class PromptSet:
    """Validated prompts (their dicts) by name, listed in their declared order, with stable
    cursors (``protocol/tools`` pages its two tools as one too)."""

    __slots__ = ("by_name", "names", "_position")

    def __init__(self, by_name):
        self.by_name = by_name
        self.names = list(by_name)  # the declared order
        self._position = None  # name -> its index in names, made when a cursor needs it

    def __len__(self):
        return len(self.names)

    def __eq__(self, other):
        """The same prompts, serving the same things, in the same order (what a reload
        compares: a change tells the clients)."""
        return type(other) is PromptSet and self.names == other.names and _same(self.by_name, other.by_name)

    def get(self, name):
        """The prompt (its validated dict) named ``name``, or None."""
        return self.by_name.get(name)

    def page(self, cursor, size, scope, rev, listing=prompts.listing):
        """``(listings, next_cursor)``: the ``Prompt`` objects of one ``prompts/list`` page
        as revision ``rev`` defines them (``listing(p, rev)``); ``next_cursor`` is None on
        the last page.

        A cursor names the last prompt of the previous page (by name, not offset), so the
        next page starts after that prompt wherever it now is: prompts added or removed
        elsewhere meanwhile cause neither duplicates nor skips of the others (pagination:
        cursors are opaque to the client and stable for the server). When that prompt
        itself is gone, so is the position: -32602 "Invalid cursor", and the client starts
        over. ``scope`` is sealed into the cursor: one made under another scope is invalid.
        """
        start = 0
        if cursor is not None:
            if self._position is None:
                self._position = {name: i for i, name in enumerate(self.names)}
            start = self._position.get(decode_cursor(cursor, scope), -2) + 1
            if start < 0:
                raise InvalidParams("Invalid cursor")
        names = self.names[start:start + size]
        listed = [listing(self.by_name[name], rev) for name in names]
        return listed, None if start + size >= len(self.names) else encode_cursor(names[-1], scope)


def _same(a, b):
    """``a == b`` held to JSON: 1, 1.0 and true differ, and so does the order of keys (a
    client sees both). Anything but JSON's own values (a callable) is the same only as
    itself: no ``__eq__`` of a caller's runs on the loop. Iterative: a ``_meta`` nested
    some 900 deep loads (the JSON decoder takes it), and a reload must compare it too."""
    todo = [(a, b)]
    while todo:
        a, b = todo.pop()
        kind = type(a)
        if kind is not type(b) or kind is dict and list(a) != list(b) or kind is list and len(a) != len(b):
            return False
        if kind is dict or kind is list:
            todo.extend(zip(a.values(), b.values()) if kind is dict else zip(a, b))
        elif not (a is b or kind in (str, int, float) and a == b):
            return False
    return True


# Cursor = urlsafe base64 of (4-byte CRC of the scope and name, name). The CRC and a
# canonical re-encoding reject tampered or foreign cursors instead of silently restarting
# at 0. The scope (a stateless listing's cacheScope, "" in the handshake era) is in the
# CRC: 2026-07-28 caching "Interaction with Pagination": the same scope MUST apply to
# every page, so after a reload that changed it, an old listing's cursor is invalid and
# the client starts over (not a page 2 under another scope).
_CURSOR_SALT = b"tinymcp-cursor-1\0"
# RFC 4648 section 5 (base64url) by hand: the base64 module loads re
_TO_URLSAFE, _FROM_URLSAFE = bytes.maketrans(b"+/", b"-_"), bytes.maketrans(b"-_", b"+/")


def encode_cursor(name, scope=""):
    import binascii
    raw = name.encode("utf-8")
    sealed = scope.encode("ascii") + b"\0" if scope else b""  # ("": the cursors made before scopes)
    tag = binascii.crc32(_CURSOR_SALT + sealed + raw).to_bytes(4, "big")
    return binascii.b2a_base64(tag + raw, newline=False).translate(_TO_URLSAFE).decode("ascii").rstrip("=")


def decode_cursor(cursor, scope=""):
    """The name a cursor made by ``encode_cursor`` under ``scope`` holds; -32602 for anything
    else (2025-11-25 pagination "Error Handling": invalid cursors SHOULD be -32602)."""
    import binascii
    try:
        raw = binascii.a2b_base64(cursor.encode("ascii").translate(_FROM_URLSAFE) + b"=" * (-len(cursor) % 4))
        name = raw[4:].decode("utf-8")
        if len(raw) >= 5 and encode_cursor(name, scope) == cursor:
            return name
    except (AttributeError, ValueError, binascii.Error):
        pass  # (not a string, not ASCII, not base64, not UTF-8)
    raise InvalidParams("Invalid cursor")
