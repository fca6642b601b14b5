"""Live config changes from a file: SIGHUP reloads on demand; ``watch`` also reloads when
the file changes, found by a stat check from the loop's timer (no threads).

A reload reads and validates the whole file (``Server.replace_config``) before anything
changes: an invalid file is logged, with every problem, and the old prompts keep being
served. A valid one goes through the server's change hooks, so the transport applies it
from its loop and notifies the sessions exactly as for a replace from the Python API
(the server decides whether the prompts changed). A file whose bytes are the same as
the last one read is not parsed again: only its digest is kept, not its bytes.
"""

import os
from time import perf_counter

from .errors import ConfigError
from . import jsonfile
from .promptdirs import (build, folder_depth, folder_signature, looked_for, read_folder, read_regular,
                         split_config)
from .pump import signal
from .validate import Check

__all__ = ["ConfigFile", "read_config", "WATCH_INTERVAL"]

#: Seconds between stat checks of a watched file, at least. A change is applied once the
#: file has looked the same at two checks in a row (so a file caught half-written is not
#: reloaded until the writer is done): within two intervals of the last write.
WATCH_INTERVAL = 0.1
#: The most of one CPU the checks may take: when the last two checks both took longer
#: than this share of the interval (a large folder: every file in it is stat'ed), the next
#: is put off in proportion to the shorter (1,000 files whose check takes 9 ms: one check
#: about every 0.9 s), never past WATCH_LONGEST. One check held up (a busy disk, the
#: process stopped a while) puts nothing off. Without it, a folder of 10,000 files kept a
#: CPU nearly busy while nothing changed.
WATCH_SHARE = 0.01
#: The longest wait between two checks, however long they take (seconds).
WATCH_LONGEST = 5.0


#: the most a config file may hold (checked before it is read); larger is a config error
MAX_CONFIG_BYTES = 256 << 20


def read_config(path):
    """Load a JSON config file; errors name the file and the position."""
    return parse_config(path, read_bytes(path))


def read_bytes(path):
    """The file's bytes; a ConfigError that cannot read it says where it looked when the
    path was relative (hosts start servers in a directory of their own choosing, often
    /) or was meant for a shell to expand."""
    try:
        return read_regular(path, MAX_CONFIG_BYTES)
    except ConfigError as exc:
        if os.path.isdir(path):
            raise ConfigError([(path, "cannot read: a folder, not a config file (a folder of "
                                      "prompt files is served with --prompts)")])
        note = looked_for(path)
        if not note:
            raise
        raise ConfigError([(p, "%s (%s)" % (m, note) if p == path else m) for p, m in exc.problems])


def parse_config(path, data):
    """The config in ``data`` (the bytes of the file ``path``), as JSON with no NaN or
    Infinity and no key given twice in one object; errors say ``path:line:column: what is
    wrong`` (see ``jsonfile``). A file of ``null`` is refused here: to ``split_config``
    None is no config at all (folders only), which a file is not."""
    config = jsonfile.load(data, path)
    if config is None:
        check = Check()
        check.obj(config, "config")
        raise ConfigError(check.problems)
    return config


def digest(data):
    """What tells two files' bytes apart: their length and a 64-bit keyed hash (SipHash,
    per process; a collision cannot be aimed at without the key)."""
    return len(data), hash(data)


def signature(path):
    """What tells a changed file: device, inode (a rename over it), size, mtime and mode
    (a file made readable again); None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode)


class ConfigFile:
    """A config file and prompt folders served live. ``load()`` reads them at start-up;
    ``attach`` hooks them to a loop (SIGHUP, and the watch timer when ``watch``);
    ``detach`` undoes that. ``path`` may be None (folders only); ``dirs`` are folders
    besides the config's own ``prompt_dirs`` (``--prompts``)."""

    def __init__(self, path, watch=False, interval=WATCH_INTERVAL, dirs=()):
        self.path = path
        self.dirs = list(dirs)
        self.folders = list(dirs)  # every folder read, the config's own included
        self.depth = None  # the config's limits.max_folder_depth (None: the default)
        #: how messages name what is served
        self.name = ", ".join(([path] if path else []) + self.dirs)
        self.watch = watch
        self.interval = interval
        self._took = 0.0  # seconds the previous check took
        self.loaded = None  # the signature of the sources last read (valid or not)
        self._seen = None   # the signature at the previous check
        self.loop = self.server = self._timer = None
        self.served = None  # the digest of the sources last loaded
        self._on_error = None
        self.log = None
        self.attached = False

    def signature(self):
        """What tells a change: the config file's and, when watched, the folders' (a walk
        of every file: only the watch timer needs it; SIGHUP always reloads)."""
        return (signature(self.path) if self.path else None,
                tuple(folder_signature(f, self.depth) for f in self.folders) if self.watch else ())

    def load(self, owned=True):
        """Read and validate everything (stat first, so a write during the read is seen
        as a change): the ``ServerConfig``, or ConfigError."""
        seen, config, folders = self._read()
        loaded = build(config, folders, owned)
        self.served = seen
        return loaded

    def _read(self):
        """``(digest of every byte read, config dict, [(folder, files)])``."""
        own = signature(self.path) if self.path else None
        data = read_bytes(self.path) if self.path else b""
        config = parse_config(self.path, data) if self.path else None
        base = os.path.dirname(self.path) if self.path else None
        config, self.folders = split_config(config, base, self.dirs)
        self.depth = folder_depth(config)
        # (the folders' part now that the config's own are known; before they are read)
        self.loaded = self._seen = (own, tuple(folder_signature(f, self.depth) for f in self.folders)
                                    if self.watch else ())
        folders = [(folder, read_folder(folder, self.depth)) for folder in self.folders]
        return digest((data, tuple((f, tuple(files)) for f, files in folders))), config, folders

    def attach(self, loop, server, on_error=None, log=None):
        """Reload into ``server`` from ``loop``; ``on_error(message, problems)`` hears of a
        refused file, ``log`` (default: the server's hook) of everything."""
        self.loop, self.server, self._on_error = loop, server, on_error
        self.log = log or server.log or (lambda level, message, exc=None: None)
        self.attached = True
        if hasattr(signal, "SIGHUP"):  # (not on Windows: --watch still works there)
            loop.add_signal_handler(signal.SIGHUP, self._on_sighup)
        if self.watch:
            self._timer = loop.call_later(self.interval, self._check)

    def detach(self):
        """No more reloads (before the shutdown drain; the loop restores SIGHUP at close)."""
        self.attached = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _on_sighup(self, signum):
        if self.attached:
            self.reload("SIGHUP")

    def _check(self):
        started = perf_counter()  # (not monotonic: 15.6 ms ticks on Windows before 3.13)
        sig = self.signature()
        took = perf_counter() - started
        if sig != self.loaded and sig == self._seen:
            self.reload("changed", sig)
        self._seen = sig
        cost, self._took = min(took, self._took), took
        delay = min(max(self.interval, cost / WATCH_SHARE), WATCH_LONGEST)
        self._timer = self.loop.call_later(delay, self._check)

    def reload(self, why, sig=None):
        """Read, validate and hand over the file; on any problem keep the old prompts.
        ``sig``: the sources' ``signature()`` the caller has just taken (the watch timer's
        check), not taken again."""
        log = self.log
        try:
            self.loaded = self._seen = self.signature() if sig is None else sig
            seen, config, folders = self._read()
            if seen == self.served:  # touched, or rewritten as it was: nothing changed
                log("info", "%s (%s) is unchanged: nothing to reload" % (self.name, why))
                return True
            self.server.replace_config(build(config, folders, True))
            self.served = seen
        except Exception as exc:  # (MemoryError too: whatever fails, the old prompts stay)
            message = "invalid config %s (%s): still serving the previous prompts" % (
                self.name, why)
            problems = exc.problems if isinstance(exc, ConfigError) else [
                ("", "%s: %s" % (type(exc).__name__, exc))]
            lines = ["  %s: %s" % (p, m) if p else "  %s" % m for p, m in problems]
            log("error", "\n".join([message] + lines))
            if self._on_error is not None:
                self._on_error(message, problems)
            return False
        log("info", "reloaded %s (%s)" % (self.name, why))
        return True
