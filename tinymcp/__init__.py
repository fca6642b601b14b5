"""tinymcp: a small, standard-library-only MCP server for prompts.

Copyright (c) 2026 the tinymcp authors. MIT License: see LICENSE, or
https://opensource.org/licenses/MIT (a copy of this folder carries this notice).

Public API:

- ``serve(config, **options)``: serve ``config`` (a dict, a ``Server``, or the path of a
  JSON config file) on stdio until EOF.
- ``Server(config)`` / ``Session(server)``: the sans-I/O core; ``Session.receive_data(bytes)``
  returns the bytes to send back.
- ``load_config(dict)``: validate a config; ``ConfigError`` lists every problem with its path.
- ``load_files(config=None, base=None, prompt_dirs=())``: a config with the prompts of its
  ``prompt_dirs`` folders of prompt files (and of ``prompt_dirs``).
- ``progress(value, total=None, message=None)``: from inside a ``render``/``complete``
  callable, report progress to a client that sent a ``progressToken``.
"""

__version__ = "0.1.0"

from .errors import ConfigError, ProtocolError, TinyMCPError
from .model.config import load_config
from .protocol.state import progress
from .protocol.session import Server, Session

__all__ = ["__version__", "serve", "Server", "Session", "load_config", "load_files", "progress",
           "ConfigError", "ProtocolError", "TinyMCPError"]


def load_files(config=None, base=None, prompt_dirs=(), notes=None):
    """The ``ServerConfig`` of ``config`` (a dict, or None) together with the prompt files
    of its ``prompt_dirs`` (relative to ``base``, default the current directory) and of
    ``prompt_dirs``; pass it to ``Server`` or ``serve``. ``ConfigError`` lists every
    problem of every file at its file and line. With ``notes`` (a list), a file with
    problems is left out instead, its problems added there as ``(path, message)``, with
    what was ignored (an unknown front-matter key); the config's own problems still raise."""
    from .source import folders_part
    return folders_part().load_files(config, base, prompt_dirs, notes)


def serve(config=None, **options):
    """Serve ``config`` (a dict, a ``Server``, the path of a JSON config file, or None for
    the built-in default prompts) over stdio. Pass a ``Server(config, list_changed=True)``
    to replace its prompts from another thread with ``server.replace_config(new)`` while
    it serves. A path is served as ``--config PATH`` serves it: read and validated now
    (``ConfigError`` names the file), its ``prompt_dirs`` read beside it, SIGHUP reloads
    it, and ``list_changed`` defaults to True.

    Blocks until the client closes stdin or a SIGTERM/SIGINT arrives; returns the exit
    status (0). ``options`` (with a config, not a ``Server``, which has its own):
    ``page_size``, ``list_changed``, ``limits`` (a dict, see docs/security.md), ``log`` (a
    ``log(level, message, exc=None)`` hook; default stderr).
    """
    from .io.stdio import serve_stdio, stderr_log
    from .protocol.session import is_path, quiet
    if isinstance(config, Server):
        if options:
            raise TypeError("serve(server, ...): %s configure a Server when serve() makes it; "
                            "pass them to Server(...) instead" % ", ".join(sorted(options)))
        return serve_stdio(config)
    # (log: what a folder leaves out, as the CLI tells it; never raising, as the server's)
    source, log = None, quiet(options["log"]) if options.get("log") else stderr_log
    if is_path(config):
        import os
        from .source import ConfigFile
        source = ConfigFile(os.fsdecode(os.fspath(config)))
        try:
            config = source.load()
        finally:
            source.tell(log)
        options.setdefault("list_changed", True)  # (a change source exists: SIGHUP)
    elif config is None:
        from .model.defaults import DEFAULT_CONFIG as config
    elif isinstance(config, dict) and "prompt_dirs" in config:
        notes = []  # (a folder serves its good files; the others are logged)
        config = load_files(config, notes=notes)
        for note in notes:
            log("warning", "%s: %s" % note)
    return serve_stdio(Server(config, **options), source=source)
