"""The config: one validator from a plain dict (JSON maps onto it) to a ``ServerConfig``.

Sans-I/O: files are read by the transports (``reload``). Every problem is reported with
its path (``prompts[2].arguments[0].name: expected a string, got the number 3``), all
of them in one ``ConfigError``.
"""

from .errors import ConfigError
from .limits import Limits
from .models import Prompt, build_plain, plain_prompt
from .prompts import EncodedCache, PromptSet
from .revisions import LOG_LEVELS
from .validate import Check

__all__ = ["ServerConfig", "load_config", "check_page_size", "DEFAULT_PAGE_SIZE", "DEFAULT_TTL_MS"]

#: A typical library in one page (many clients read only the first), still bounded: a
#: 100,000-prompt config pages.
DEFAULT_PAGE_SIZE = 1000
#: 2026-07-28 caching: how long clients may keep prompts/list and server/discover results.
DEFAULT_TTL_MS = 60000

_TOP_KEYS = ("server", "page_size", "ttl_ms", "cache_scope", "log_level", "limits", "prompts")
_SERVER_KEYS = ("name", "version", "title", "instructions")


class ServerConfig:
    """What a server serves: identity, instructions, page size, limits and the prompt set."""

    __slots__ = ("name", "version", "title", "instructions", "page_size", "prompts", "ttl_ms",
                 "cache_scope", "log_level", "limits", "pages")
    _GIVEN = __slots__[:-1]

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
        #: encoded prompts/list results of this config, by (cursor, version, stateless)
        self.pages = EncodedCache()

    def with_overrides(self, page_size=None, limits=None):
        """A copy with ``Server(page_size=..., limits=...)`` applied over the file's values."""
        values = {k: getattr(self, k) for k in self._GIVEN}
        if page_size is not None:
            values["page_size"] = page_size
        if limits:
            values["limits"] = self.limits.merged(limits)
        return ServerConfig(**values)


def check_page_size(check, obj):
    """``obj["page_size"]``: an integer of 1 or more (None when absent or wrong)."""
    return check.bounded(obj, "page_size", "", 1)


def _server_info(check, config):
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
    return info


def _prompts(check, config, owned):
    """The validated prompts, in declared order (duplicate names reported once each);
    with ``owned``, those of the common shape are kept as their dicts (built on use)."""
    entries = {}
    seen = set()
    for i, item in enumerate(check.field(config, "prompts", "", "list", required=True) or ()):
        if plain_prompt(item) is None:  # anything else: the full validator names every problem
            path = "prompts[%d]" % i
            check.unique_name(item, path, seen, "prompt")
            prompt = Prompt.from_wire(check, item, path)
            if prompt is not None:
                entries[prompt.name] = prompt
            continue
        name = item["name"]
        if name in seen:
            check.fail("prompts[%d].name" % i, "duplicate prompt name %r" % name)
            continue
        seen.add(name)
        entries[name] = item if owned else build_plain(item)  # (owned: built on first use)
    return entries


def load_config(config, owned=False):
    """Validate a config dict whole; return a ``ServerConfig`` or raise ``ConfigError``
    listing every problem with its path.

    ``owned``: the caller hands the dicts over and never changes them (a config just
    parsed from JSON). Every prompt is still validated now, but those of the common shape
    are built only when first got, and listed straight from their dicts.
    """
    if isinstance(config, ServerConfig):
        return config
    check = Check()
    if check.obj(config, "config") is None:
        raise ConfigError(check.problems)
    check.keys(config, "", _TOP_KEYS + ("prompt_dirs",))
    if "prompt_dirs" in config:
        check.fail("prompt_dirs", "prompt folders are read by tinymcp.serve(), tinymcp.load_files() "
                   "and the command line: pass Server() what load_files(config) returns")
    info = _server_info(check, config)
    page_size = check_page_size(check, config)
    ttl_ms = check.bounded(config, "ttl_ms", "", 0)
    cache_scope = check.one_of(config, "cache_scope", "", ("public", "private"), "public")
    log_level = check.one_of(config, "log_level", "", LOG_LEVELS)
    limits = Limits.from_wire(check, config["limits"], "limits") if "limits" in config else {}
    entries = _prompts(check, config, owned)
    if check.problems:
        raise ConfigError(check.problems)
    return ServerConfig(PromptSet(entries), page_size=page_size or DEFAULT_PAGE_SIZE,
                        ttl_ms=DEFAULT_TTL_MS if ttl_ms is None else ttl_ms,
                        cache_scope=cache_scope, log_level=log_level, limits=Limits(**limits),
                        **info)
