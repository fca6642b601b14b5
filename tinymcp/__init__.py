"""tinymcp: a small, standard-library-only MCP server for prompts.

Copyright (c) 2026 the tinymcp authors. MIT License: see LICENSE, or
https://opensource.org/licenses/MIT (a copy of this folder carries this notice).

Public API:

- ``serve(config, **options)``: serve ``config`` (a dict, or the path of a JSON config
  file, see README) on stdio until EOF.
- ``Server(config)`` / ``Session(server)``: the sans-I/O core; ``Session.receive_data(bytes)``
  returns the bytes to send back.
- ``load_config(dict)``: validate a config; ``ConfigError`` lists every problem with its path.
- ``load_files(config=None, base=None, prompt_dirs=())``: a config with the prompts of its
  ``prompt_dirs`` folders of prompt files (and of ``prompt_dirs``); every problem of every
  file is reported at its file and line.
- ``progress(value, total=None, message=None)``: from inside a ``render``/``complete``
  callable, report progress to a client that sent a ``progressToken``.
"""

__version__ = "0.1.0"

__all__ = ["__version__", "serve", "Server", "Session", "load_config", "load_files", "progress",
           "ConfigError", "ProtocolError", "TinyMCPError"]

#: where each public name that is not defined here lives: imported by its first use
#: (``tinymcp.Server``, ``from tinymcp import Server``), so that ``python3 -m tinymcp`` runs
#: its ``__main__`` before the package's modules load (docs/decisions.md, Performance)
_HOMES = {"progress": "call", "load_config": "config", "ConfigError": "errors",
          "ProtocolError": "errors", "TinyMCPError": "errors", "Server": "server",
          "Session": "session"}

TYPE_CHECKING = False
if TYPE_CHECKING:  # (for type checkers and editors: the names as the modules define them)
    from .call import progress
    from .config import load_config
    from .errors import ConfigError, ProtocolError, TinyMCPError
    from .server import Server
    from .session import Session


def __getattr__(name):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    value = getattr(__import__(home, globals(), None, (name,), 1), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


def load_files(config=None, base=None, prompt_dirs=()):
    """The ``ServerConfig`` of ``config`` (a dict, or None) together with the prompt files
    of its ``prompt_dirs`` (relative to ``base``, default the current directory) and of
    ``prompt_dirs``; pass it to ``Server`` or ``serve``. ``ConfigError`` lists every
    problem of every file at its file and line."""
    from .promptdirs import load_files as load
    return load(config, base, prompt_dirs)


def serve(config=None, **options):
    """Serve ``config`` (a dict, a ``Server``, the path of a JSON config file, or None for
    the embedded default prompts) over stdio. Pass a ``Server(config, list_changed=True)``
    to replace its prompts from another thread with ``server.replace_config(new)`` while
    it serves. A path is served as ``--config PATH`` serves it: read and validated now
    (``ConfigError`` names the file), its ``prompt_dirs`` read beside it, SIGHUP reloads
    it, and ``list_changed`` defaults to True.

    Blocks until the client closes stdin or a SIGTERM/SIGINT arrives; returns the exit
    status (0). ``options`` (with a config, not a ``Server``, which has its own):
    ``page_size``, ``list_changed``, ``limits`` (a dict, see docs/security.md), ``log`` (a
    ``log(level, message, exc=None)`` hook; default stderr).
    """
    from .server import Server, is_path
    from .stdio import serve_stdio
    if isinstance(config, Server):
        if options:
            raise TypeError("serve(server, ...): %s configure a Server when serve() makes it; "
                            "pass them to Server(...) instead" % ", ".join(sorted(options)))
        return serve_stdio(config)
    if is_path(config):
        return _serve_file(config, options)
    if config is None:
        from .defaults import DEFAULT_CONFIG as config
    elif isinstance(config, dict) and "prompt_dirs" in config:
        config = load_files(config)
    return serve_stdio(Server(config, **options))


def _serve_file(path, options):
    """``serve(path)``: the file read as the command line's ``--config`` reads it."""
    import os
    from .reload import ConfigFile
    from .server import Server
    from .stdio import serve_stdio
    source = ConfigFile(os.fsdecode(os.fspath(path)))
    options.setdefault("list_changed", True)  # (a change source exists: SIGHUP)
    return serve_stdio(Server(source.load(), **options), source=source)
