"""What every session of one server shares: the config in force, its limits, and how it
changes.

``Server.replace_config`` is where a change is decided: the new config is validated
whole, compared with the one in force, and sessions are told (``list_changed``) only
when the prompts they can list or get really differ, whatever the change's source (a
reload, or a Python caller).
"""

from .config import check_page_size, load_config
from .errors import ConfigError, clip
from .limits import Limits
from .validate import Check

__all__ = ["Server", "no_log"]


#: sans-I/O: a Server reads no files (docs/decisions.md)
_NOT_A_PATH = ("Server() takes a config dict, not a path (%s): load the file yourself (json.load), "
               "or serve it with tinymcp.serve(path) or python3 -m tinymcp --config PATH")


def is_path(value):
    """True for what names a file (text, bytes, an ``os.PathLike``) where a config is due."""
    return isinstance(value, (str, bytes)) or hasattr(value, "__fspath__")


def no_log(level, message, exc=None):
    """A log hook that drops operator diagnostics."""


class Server:
    """The config being served and the operator hooks; sessions are made from it.

    ``log(level, message, exc=None)`` receives operator diagnostics (never the wire); None
    means the transport's default (stderr), or nothing for a bare ``Session``.
    ``list_changed`` says whether a change source exists, so sessions only promise
    ``listChanged: true`` (and honour ``promptsListChanged`` subscriptions) when
    notifications can really be sent. ``page_size`` and ``limits`` override the config's.
    """

    def __init__(self, config, log=None, list_changed=False, page_size=None, limits=None):
        check = Check()
        if page_size is not None:
            page_size = check_page_size(check, {"page_size": page_size})
        overrides = Limits.from_wire(check, limits, "limits") if limits is not None else {}
        if check.problems:
            raise ConfigError(check.problems)
        self._page_size = page_size
        self._limit_overrides = overrides
        self._change_hooks = []
        self._stop_hooks = []
        self.log = log
        self.list_changed = bool(list_changed)
        #: tags this server's internal-error ids (``XXXX-N``) in logs and replies
        self.error_tag = "%04x" % (id(self) & 0xFFFF)
        self.config = self._load(config)

    @property
    def page_size(self):
        """The ``page_size`` given to ``Server(...)`` (None: the config's)."""
        return self._page_size

    @property
    def limits(self):
        """The limits in force: defaults < the config's ``limits`` < ``Server(limits=...)``."""
        return self.config.limits

    def session(self, **options):
        """A new ``Session`` of this server (see ``Session`` for the options)."""
        from .session import Session
        return Session(self, **options)

    def replace_config(self, config):
        """Replace the prompt set (any thread): validated whole first, raises ``ConfigError``.

        With a transport running, the new config is handed to its loop (through the
        hooks it registered with ``add_change_hook``), which applies it
        (``apply_config``) and tells the sessions when the prompts changed; without one
        it is applied at once. Returns the new config.
        """
        new = self._load(config)
        if self._change_hooks:
            for hook in list(self._change_hooks):
                hook(new)
        else:
            self.apply_config(new)
        return new

    def apply_config(self, new, since=None):
        """Swap in an already validated config (from the loop's thread, with a transport
        running). Returns whether its prompts differ from those of ``since`` (default:
        the config it replaces): the caller then sends each session's
        ``prompts_changed()`` bytes. (A transport passes the config its sessions last
        saw, so two transports serving one server both tell theirs.)"""
        changed = new.prompts != (self.config if since is None else since).prompts
        self.config = new
        return changed

    def stop(self):
        """Stop serving (any thread): every transport serving this server now ends as on
        SIGTERM (listen streams ended, output drained for at most 2 s) and its ``serve``
        call returns 0."""
        for hook in list(self._stop_hooks):
            hook()

    def add_stop_hook(self, hook):
        """``hook()`` is called by ``stop()`` (a transport registers one while it serves)."""
        self._stop_hooks.append(hook)

    def remove_stop_hook(self, hook):
        self._stop_hooks.remove(hook)

    def add_change_hook(self, hook):
        """``hook(new_config)`` is called by ``replace_config`` instead of applying it."""
        self._change_hooks.append(hook)

    def remove_change_hook(self, hook):
        self._change_hooks.remove(hook)

    def _load(self, config):
        if is_path(config):  # (os.fspath by hand: the sans-I/O core imports no os)
            raise TypeError(_NOT_A_PATH % clip(config if isinstance(config, (str, bytes))
                                               else config.__fspath__()))
        config = load_config(config)
        if self._page_size is not None or self._limit_overrides:
            config = config.with_overrides(self._page_size, self._limit_overrides)
        return config
