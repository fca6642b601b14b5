"""The prompts registry: a validated config, paginated listing, argument checks, rendering.

Sans-I/O: the config arrives as a plain dict (cli.py reads JSON files).
"""

import base64
import binascii
from bisect import bisect_right

from .errors import ConfigError, InvalidParams, clip
from .limits import Limits
from .models import LOG_LEVELS, Check, Prompt, describe, fast_prompt, messages_from_render, shown

__all__ = ["ServerConfig", "PromptSet", "load_config", "CallbackFailed", "DEFAULT_PAGE_SIZE",
           "MAX_COMPLETIONS", "complete_argument"]

DEFAULT_PAGE_SIZE = 50
#: 2026-07-28 caching: how long clients may keep prompts/list and server/discover results.
DEFAULT_TTL_MS = 60000

_TOP_KEYS = ("server", "page_size", "ttl_ms", "cache_scope", "log_level", "limits", "prompts")
_SERVER_KEYS = ("name", "version", "title", "instructions")


#: 2025-11-25 completion "Completion Results": at most 100 values per response (2026-07-28
#: schema: CompleteResult.completion.values maxItems 100).
MAX_COMPLETIONS = 100



class CallbackFailed(Exception):
    """A ``render`` or ``complete`` callable raised or returned something unusable;
    ``__cause__`` says what."""


class PromptSet:
    """Prompts by name, with stable cursors over the sorted names."""

    __slots__ = ("by_name", "names")

    def __init__(self, prompts):
        self.by_name = prompts if type(prompts) is dict else {p.name: p for p in prompts}
        self.names = sorted(self.by_name)

    def __len__(self):
        return len(self.names)

    def page(self, cursor, size, scope=""):
        """``(prompts, next_cursor)``; ``next_cursor`` is None on the last page.

        A cursor names the last prompt of the previous page (by name, not offset),
        so prompts added or removed meanwhile cause neither duplicates nor skips
        (pagination: cursors are opaque to the client and stable for the server).
        ``scope`` is sealed into the cursor: one made under another scope is invalid.
        """
        start = 0 if cursor is None else bisect_right(self.names, decode_cursor(cursor, scope))
        names = self.names[start:start + size]
        by_name = self.by_name
        prompts = [by_name[n] for n in names]
        more = start + size < len(self.names)
        return prompts, (encode_cursor(names[-1], scope) if more else None)

    def get(self, name):
        return self.by_name.get(name)


# Cursor = urlsafe base64 of (4-byte CRC of the scope and name, name). The CRC and a
# canonical re-encoding reject tampered or foreign cursors instead of silently restarting
# at 0. The scope (a stateless listing's cacheScope, "" in the handshake era) is in the
# CRC: 2026-07-28 caching "Interaction with Pagination": the same scope MUST apply to
# every page, so after a reload that changed it, an old listing's cursor is invalid and
# the client starts over (not a page 2 under another scope).
_CURSOR_SALT = b"tinymcp-cursor-1\0"


def encode_cursor(name, scope=""):
    raw = name.encode("utf-8")
    sealed = scope.encode("ascii") + b"\0" if scope else b""  # ("": the cursors made before scopes)
    tag = binascii.crc32(_CURSOR_SALT + sealed + raw).to_bytes(4, "big")
    return base64.urlsafe_b64encode(tag + raw).decode("ascii").rstrip("=")


def decode_cursor(cursor, scope=""):
    # 2025-11-25 pagination "Error Handling": invalid cursors SHOULD be -32602.
    bad = InvalidParams("Invalid cursor")
    if not isinstance(cursor, str) or not cursor:  # (its length is bounded by max_line_bytes)
        raise bad
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        name = raw[4:].decode("utf-8")
    except (ValueError, binascii.Error):
        raise bad
    if len(raw) < 5 or encode_cursor(name, scope) != cursor:
        raise bad
    return name


class ServerConfig:
    """What a server serves: identity, instructions, page size and the prompt set."""

    __slots__ = ("name", "version", "title", "instructions", "page_size", "prompts", "ttl_ms",
                 "cache_scope", "log_level", "limits")

    def __init__(self, prompts, name="tinymcp", version=None, title=None, instructions=None,
                 page_size=DEFAULT_PAGE_SIZE, ttl_ms=DEFAULT_TTL_MS, cache_scope="public",
                 log_level=None, limits=None):
        from . import __version__
        self.prompts = prompts
        self.name = name
        self.version = version if version is not None else __version__
        self.title = title
        self.instructions = instructions
        self.page_size = page_size
        self.ttl_ms = ttl_ms
        self.cache_scope = cache_scope
        #: handshake-era sessions start logging at this level (None: not until logging/setLevel)
        self.log_level = log_level
        #: the limits in force (``Limits``): defaults, then the config's ``limits`` object
        self.limits = limits if limits is not None else Limits()


def check_page_size(check, obj):
    """``obj["page_size"]``: an integer of 1 or more (None when absent or wrong)."""
    page_size = check.field(obj, "page_size", "", "integer")
    if page_size is not None and page_size < 1:
        check.fail("page_size", "expected an integer of 1 or more, got %d" % page_size)
        return None
    return page_size


def load_config(config):
    """Validate a config dict whole; return a ``ServerConfig`` or raise ``ConfigError``
    listing every problem with its path."""
    if isinstance(config, ServerConfig):
        return config
    check = Check()
    if check.obj(config, "config") is None:
        raise ConfigError(check.problems)
    check.keys(config, "", _TOP_KEYS)
    server = check.field(config, "server", "", "object") or {}
    if server:
        check.keys(server, "server", _SERVER_KEYS)
    info = {}
    for key in _SERVER_KEYS:
        value = check.field(server, key, "server", "string")
        if value is not None:
            info[key] = value
    if info.get("name") == "":
        check.fail("server.name", "expected a non-empty string")
    page_size = check_page_size(check, config)
    ttl_ms = check.field(config, "ttl_ms", "", "integer")
    if ttl_ms is not None and ttl_ms < 0:
        check.fail("ttl_ms", "expected an integer of 0 or more, got %d" % ttl_ms)
    cache_scope = config.get("cache_scope", "public")
    if cache_scope not in ("public", "private"):
        check.fail("cache_scope", "expected 'public' or 'private', got %s" % shown(cache_scope))
    log_level = config.get("log_level")
    if log_level is not None and log_level not in LOG_LEVELS:
        check.fail("log_level", "expected one of %s, got %s" % (", ".join(LOG_LEVELS), shown(log_level)))
    limits = Limits.from_wire(check, config["limits"], "limits") if "limits" in config else {}
    raw = check.field(config, "prompts", "", "list", required=True)
    entries = {}
    seen = set()
    for i, item in enumerate(raw or ()):
        prompt = fast_prompt(item)  # the common shape, checked directly (the 10k-prompt path)
        if prompt is None:  # anything else: the full validator names every problem
            path = "prompts[%d]" % i
            check.unique_name(item, path, seen, "prompt")
            prompt = Prompt.from_wire(check, item, path)
            if prompt is None:
                continue
        elif prompt.name in seen:
            check.fail("prompts[%d].name" % i, "duplicate prompt name %r" % prompt.name)
        else:
            seen.add(prompt.name)
        entries[prompt.name] = prompt
    if check.problems:
        raise ConfigError(check.problems)
    return ServerConfig(PromptSet(entries), page_size=page_size or DEFAULT_PAGE_SIZE,
                        ttl_ms=DEFAULT_TTL_MS if ttl_ms is None else ttl_ms,
                        cache_scope=cache_scope, log_level=log_level, limits=Limits(**limits),
                        **info)


def check_arguments(prompt, arguments, limits):
    """Validate ``prompts/get`` arguments against the prompt's declaration (-32602: 2025-11-25
    prompts "Error Handling", missing required arguments; "Implementation Considerations":
    servers SHOULD validate prompt arguments)."""
    if arguments is None:
        arguments = {}
    elif type(arguments) is not dict:
        raise InvalidParams("Invalid params: arguments must be an object of strings, got %s"
                            % describe(arguments))
    if len(arguments) > limits.max_arguments:
        raise InvalidParams("Invalid params: %d arguments exceed the limit of %d (max_arguments)"
                            % (len(arguments), limits.max_arguments))
    declared = prompt._by_arg
    size = 0
    for key, value in arguments.items():  # one pass for the common, valid case
        if type(value) is not str or key not in declared:
            _argument_problems(prompt, arguments)
        size += len(key) + len(value)
    for name in prompt._required:
        if name not in arguments:
            _argument_problems(prompt, arguments)
    if size * 4 > limits.max_argument_bytes:  # cheap bound first: UTF-8 is at most 4 bytes a char
        size = sum(len(k.encode("utf-8", "surrogatepass")) + len(v.encode("utf-8", "surrogatepass"))
                   for k, v in arguments.items())
        if size > limits.max_argument_bytes:
            raise InvalidParams("Invalid params: arguments of %d bytes exceed the limit of %d "
                                "(max_argument_bytes)" % (size, limits.max_argument_bytes))
    return arguments


def _argument_problems(prompt, arguments):
    """Raise the -32602 that names every problem with ``arguments``."""
    declared = prompt._by_arg
    problems = []
    bad_types = [k for k, v in arguments.items() if not isinstance(v, str)]
    if bad_types:
        problems.append("argument values must be strings: %s" % _names(bad_types))
    unknown = [k for k in arguments if k not in declared]
    if unknown:
        problems.append("undeclared arguments: %s" % _names(unknown))
    missing = [n for n in prompt._required if n not in arguments]
    if missing:
        problems.append("missing required arguments: %s" % _names(missing))
    raise InvalidParams("Invalid arguments for prompt %s: %s" % (clip(prompt.name), "; ".join(problems)))


def rendered_size(messages):
    """Characters of text, data and URIs in rendered messages (for max_render_bytes)."""
    size = 0
    for msg in messages:
        block = msg["content"]
        for key in ("text", "data", "uri"):
            value = block.get(key)
            if value is not None:
                size += len(value)
        res = block.get("resource")
        if res is not None:
            size += len(res.get("text") or res.get("blob") or "") + len(res.get("uri", ""))
    return size


def _names(names, most=10):
    shown = ", ".join(clip(n, 40) for n in names[:most])
    return shown + (" and %d more" % (len(names) - most) if len(names) > most else "")


def render(prompt, arguments):
    """The prompt's messages with ``arguments`` (already checked) filled in.

    Optional arguments that were not given take their ``default``, or "".
    Raises ``CallbackFailed`` when a ``render`` callable fails.
    """
    values = {**prompt._defaults, **arguments} if prompt._defaults else arguments
    if prompt.render_fn is not None:
        try:
            return messages_from_render(prompt.render_fn(dict(values)))
        except Exception as exc:
            raise CallbackFailed("render callable of prompt %r failed" % prompt.name) from exc
    out = []
    for msg, templated in prompt.messages:
        if templated:
            block = dict(msg["content"])
            for key, sub, tpl in templated:
                if sub is None:
                    block[key] = tpl.render(values)
                else:
                    if block[key] is msg["content"][key]:
                        block[key] = dict(block[key])
                    block[key][sub] = tpl.render(values)
            msg = {"role": msg["role"], "content": block}
        out.append(msg)
    return out


def complete_argument(prompt, name, value, context):
    """``(values, total, has_more)`` for ``completion/complete`` on one prompt argument.

    Sources, first found: the argument's ``complete(value, context)`` callable, the
    argument's ``completions`` list (filtered by prefix, case-insensitively, exact-case
    matches first, then in list order), or the prompt's ``complete(name, value,
    context)`` callable. Callables' lists are capped, not filtered. ``context`` is
    the client's ``context.arguments`` (2025-06-18 on) or None.
    """
    arg = prompt._by_arg.get(name)
    if arg is None:
        raise InvalidParams("Invalid params: prompt %s has no argument %s" % (clip(prompt.name), clip(name)))
    if arg.complete is not None or (prompt.complete is not None and arg.completions is None):
        try:
            if arg.complete is not None:
                values = arg.complete(value, context)
            else:
                values = prompt.complete(name, value, context)
            if isinstance(values, (str, bytes)):
                raise TypeError("complete() must return a list of strings, not one string")
            values = list(values)
            if not all(isinstance(v, str) for v in values):
                raise TypeError("complete() must return strings")
        except Exception as exc:
            raise CallbackFailed("complete callable of prompt %r failed" % prompt.name) from exc
    elif arg.completions is not None:
        values = _prefix_matches(arg.completions, value)
    else:
        values = []
    total = len(values)
    return values[:MAX_COMPLETIONS], total, total > MAX_COMPLETIONS


def _prefix_matches(options, typed):
    if not typed:
        return list(options)
    folded = typed.lower()
    exact = [v for v in options if v.startswith(typed)]
    other = [v for v in options if not v.startswith(typed) and v.lower().startswith(folded)]
    return exact + other
