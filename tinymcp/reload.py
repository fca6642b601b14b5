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

from .errors import ConfigError
from .config import load_config
from .jsonrpc import loads
from .pump import signal

__all__ = ["ConfigFile", "read_config", "WATCH_INTERVAL"]

#: Seconds between stat checks of a watched file. A change is applied once the file has
#: looked the same at two checks in a row (so a file caught half-written is not reloaded
#: until the writer is done): within 2 * WATCH_INTERVAL of the last write.
WATCH_INTERVAL = 0.1


def read_config(path):
    """Load a JSON config file; errors name the file and the position."""
    return parse_config(path, read_bytes(path))


def read_bytes(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise ConfigError([(path, "cannot read: %s" % (exc.strerror or exc))])


def parse_config(path, data):
    """The config in ``data`` (the bytes of the file ``path``), as JSON with no NaN or
    Infinity; errors name the file and the position."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a UTF-8 byte order mark (Notepad's default) says nothing more
    try:
        return loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError([(path, "not UTF-8 (byte %d)" % exc.start)])
    except ValueError as exc:
        raise ConfigError([(path, "invalid JSON: %s" % exc)])
    except RecursionError:
        # what counts as too deep depends on the interpreter (CPython's C scanner takes
        # ~990 levels, PyPy's Python one fewer); either way it is a config error, and a
        # reload keeps the old prompts
        raise ConfigError([(path, "invalid JSON: nested too deeply to parse")])


def digest(data):
    """What tells two files' bytes apart: their length and a 64-bit keyed hash (SipHash,
    per process; a collision cannot be aimed at without the key)."""
    return len(data), hash(data)


def signature(path):
    """What tells a changed file: device, inode (a rename over it), size and mtime; None
    when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class ConfigFile:
    """A config file served live. ``load()`` reads it at start-up; ``attach`` hooks it to
    a loop (SIGHUP, and the watch timer when ``watch``); ``detach`` undoes that."""

    def __init__(self, path, watch=False, interval=WATCH_INTERVAL):
        self.path = path
        self.watch = watch
        self.interval = interval
        self.loaded = None  # the signature of the file last read (valid or not)
        self._seen = None   # the signature at the previous check
        self.loop = self.server = self._timer = None
        self.served = None  # the digest of the file last loaded
        self._on_error = None
        self.log = None
        self.attached = False

    def load(self):
        """Read the file (stat first, so a write during the read is seen as a change)."""
        self.loaded = self._seen = signature(self.path)
        data = read_bytes(self.path)
        config = parse_config(self.path, data)
        self.served = digest(data)
        return config

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
        sig = signature(self.path)
        if sig != self.loaded and sig == self._seen:
            self.reload("changed")
        self._seen = sig
        self._timer = self.loop.call_later(self.interval, self._check)

    def reload(self, why):
        """Read, validate and hand over the file; on any problem keep the old prompts."""
        log = self.log
        try:
            self.loaded = self._seen = signature(self.path)
            data = read_bytes(self.path)
            seen = digest(data)
            if seen == self.served:  # touched, or rewritten as it was: nothing changed
                log("info", "%s (%s) is unchanged: nothing to reload" % (self.path, why))
                return True
            config = parse_config(self.path, data)
            del data  # (not kept alive beside the parsed config)
            self.server.replace_config(load_config(config, owned=True))
            self.served = seen
        except ConfigError as exc:
            message = "invalid config %s (%s): still serving the previous prompts" % (
                self.path, why)
            lines = ["  %s: %s" % (p, m) if p else "  %s" % m for p, m in exc.problems]
            log("error", "\n".join([message] + lines))
            if self._on_error is not None:
                self._on_error(message, exc.problems)
            return False
        log("info", "reloaded %s (%s)" % (self.path, why))
        return True
