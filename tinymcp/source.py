"""Where a served config comes from: a JSON file (and folders of prompt files, read by the
optional ``files`` part), read safely, and served live: SIGHUP reloads it, ``--watch``
reloads it when it changes (``watch``, loaded by the first reload: stat checks on a
thread of their own, so that walking and reading a large folder never holds the loop:
the new prompts are applied on it).

A reload reads and validates everything (``Server.replace_config``) before anything
changes: an invalid file is logged, with every problem, and the old prompts keep being
served. A valid one goes through the server's change hooks, so the transport applies it
from its loop and tells the sessions exactly as for a replace from the Python API (the
server decides whether the prompts changed: the same prompts tell no one).
"""

import os
import signal

from . import codec
from .errors import ConfigError
from .io.disk import looked_for, read_regular, stat_of
from .model.config import load_config

#: the most a config file may hold (checked before it is read); larger is a config error
MAX_CONFIG_BYTES = 256 << 20
#: Seconds between stat checks of watched sources, at least (``watch``). A change is
#: applied once they have looked the same at two checks in a row: within two intervals
#: of the last write.
WATCH_INTERVAL = 0.1


def _read(path):
    """The config file's bytes; a problem says where it was looked for when the path was
    relative (hosts start servers in a directory of their own choosing, often /) or was
    meant for a shell to expand."""
    try:
        return read_regular(path, MAX_CONFIG_BYTES)
    except ConfigError as exc:
        if os.path.isdir(path):
            raise ConfigError([(path, "cannot read: a folder, not a config file (a folder of "
                                      "prompt files is served with --prompts)")])
        note = "" if os.path.lexists(path) else looked_for(path)  # (found: where is not what is wrong)
        if not note:
            raise
        raise ConfigError([(p, "%s (%s)" % (m, note) if p == path else m) for p, m in exc.problems])


def read_config(path):
    """The config in the file ``path`` (a dict), as ``--config`` reads it; ConfigError otherwise."""
    return parse_config(path, _read(path))


def parse_config(path, data):
    """The config in ``data`` (the bytes of the file ``path``): JSON, no key given twice in
    one object, errors at ``path:line:column`` (worded for the person who wrote the file by
    the ``files`` part, when this copy has it). A file of ``null`` is no config."""
    config = codec.load_file(data, path, lambda text, exc: _explain(path, text, exc))
    if config is None:
        raise ConfigError([("config", "expected an object, got null")])
    return config


def _explain(path, text, exc):
    """Why the config file ``path`` is no JSON: a prompt file given for one is said to be,
    else ``files.diagnose.explain``; None (the decoder's own words) in a copy without files/."""
    if path.lower().endswith((".md", ".toml")):  # (the decoder's words would tell how to make it JSON)
        return 0, "a prompt file, not a JSON config: serve its folder with --prompts %s" % (
            os.path.dirname(path) or ".")
    try:
        from .files.diagnose import explain
    except ImportError:
        return None
    return explain(text, exc)


def folders_part():
    """``files.folders``; ``ConfigError`` in a copy without files/ (an optional part)."""
    try:
        from .files import folders
    except ModuleNotFoundError as exc:
        if exc.name != __package__ + ".files":  # (a module missing inside it: a broken copy, told as it is)
            raise
        raise ConfigError([("prompt_dirs", "prompt folders are read by the files/ part of tinymcp, "
                                           "which this copy does not have")]) from None
    return folders


class ConfigFile:
    """A config file and prompt folders served live. ``load()`` reads them at start-up;
    ``attach`` hooks them to a loop (SIGHUP, and the watch timer when ``watch``);
    ``detach`` undoes that. ``path`` may be None (folders only); ``dirs`` are folders
    besides the config's own ``prompt_dirs`` (``--prompts``)."""

    def __init__(self, path, watch=False, dirs=(), interval=WATCH_INTERVAL, strict=False):
        #: (``strict``: a prompt file with problems refuses everything, else it alone is left out)
        self.path, self.watch, self.dirs, self.interval, self.strict = path, watch, list(dirs), interval, strict
        #: what loading folders remembers between loads (``files.folders.Lenient``): what
        #: was left out or ignored (``tell`` logs it), where each prompt comes from
        self.lenient = None
        #: how messages name what is served
        self.name = ", ".join(([path] if path else []) + self.dirs)
        self.folders = None  # (the folders read, once known: a ``files.folders.Folders``)
        self.loaded = self.seen = None  # the signature of the sources last read; at the last check
        self.loop = self.server = self.watcher = self.hub = self.log = None
        self.lock = None  # (made by the watcher: a reload at a time)

    def signature(self):
        """What tells a change: the config file's and, when watched, the folders' (a walk
        of every file: only the watch timer needs it; SIGHUP always reloads)."""
        folders = self.folders.signature() if self.watch and self.folders else ()
        return stat_of(self.path) if self.path else None, folders

    def load(self, sig=None):
        """Read and validate everything: the ``ServerConfig``, or ConfigError; None when the
        sources changed while they were read from ``sig``, the signature a watch check found
        twice (``watch.reload``: checked before a build, which remembers what it served)."""
        config, files = self._read(sig)
        if sig is not None and self.signature() != sig:
            return None
        if not self.folders:  # (what folders served, once a config without them loads: back, read afresh)
            self.lenient, config = None, load_config(config, owned=True)
            return config
        if self.lenient is None:
            self.lenient = folders_part().Lenient(self.strict)
        return self.lenient.build(config, files)

    def _read(self, sig=None):
        """``(config dict, files read)`` (stat first, so a write during the read is seen
        as a change; a watched reload's ``sig`` was taken before it)."""
        own = stat_of(self.path) if self.path else None
        config = read_config(self.path) if self.path else {"prompts": []}
        folders = None  # (a reload may find the config's prompt_dirs gone, or wrong: the old ones stay watched)
        if self.dirs or (type(config) is dict and "prompt_dirs" in config):
            folders = folders_part().Folders(config, os.path.dirname(self.path) if self.path else None, self.dirs)
        self.folders = folders
        if sig is None:
            self.loaded = self.seen = (own, folders.signature() if self.watch and folders else ())
        return config, folders.read() if folders else None

    def tell(self, log):
        """Log what the last load left out or ignored, each once."""
        if self.lenient is not None:
            self.lenient.tell(log)

    def attach(self, loop, server, hub=None, log=None):
        """Reload into ``server`` (SIGHUP handled on ``loop``; the watch thread started);
        the sessions of ``hub`` (an ``io.pump.Hub``) hear of a refused file, ``log``
        (default: the server's hook) of everything."""
        self.loop, self.server, self.hub = loop, server, hub
        self.log = log or server.log or (lambda level, message, exc=None: None)
        if hasattr(signal, "SIGHUP"):  # (a platform without it: --watch still works)
            loop.add_signal_handler(signal.SIGHUP, lambda signum: self.loop and self.reload("SIGHUP"))
        if self.watch:
            from .watch import Watcher
            self.watcher = Watcher(self)
            self.watcher.start()

    def detach(self):
        """No more reloads (before the shutdown drain; the loop restores SIGHUP at close)."""
        self.loop = None
        if self.watcher is not None:
            self.watcher.stop.set()

    def reload(self, why, sig=None):
        """Read, validate and hand over everything; on any problem keep the old prompts
        (``watch.reload``). ``sig``: the sources' ``signature()`` the watch check has just taken."""
        try:
            from .watch import reload
        except (ImportError, OSError) as exc:  # (out of file descriptors: EMFILE)
            self.log("error", "cannot reload (%s): %s; the old prompts stay" % (why, exc))
            return False
        return reload(self, why, sig)
