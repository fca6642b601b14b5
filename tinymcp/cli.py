"""Command line: ``python3 -m tinymcp [--config FILE.json] [--watch] [--socket PATH] ...``.

Exit status: 0 after serving until EOF or SIGTERM/SIGINT (or a closed stdout), and for
a valid ``--check``; 1 for an invalid config or a socket path it refuses to use; 2 for
a usage error; 130 for Ctrl-C outside serving (a long load, the ``--connect`` bridge).
"""

import sys

from .errors import ConfigError, ListenError, UsageError, cut, shown

#: option -> (key, kind): a flag, or what its value is
OPTIONS = {
    "-h": ("help", "flag"), "--help": ("help", "flag"), "--version": ("version", "flag"),
    "--check": ("check", "flag"), "--strict": ("strict", "flag"), "--watch": ("watch", "flag"),
    "--config": ("config", "text"), "--socket": ("socket", "path"), "--connect": ("connect", "path"),
    "--page-size": ("page_size", "count"), "--max-clients": ("max_clients", "count"),
    "--allow-uid": ("allow_uids", "paths"), "--socket-mode": ("socket_mode", "text"),
    "--socket-group": ("socket_group", "text"), "--prompts": ("prompts", "paths"),
    "--list": ("list", "flag"), "--json": ("json", "flag"), "--render": ("render", "text"),
    "--arg": ("args", "pairs"), "--prompts-as-tools": ("tools", "flag"),
}
#: options that only mean something beside another: option -> (what it needs, said so)
_SOCKET = ("socket", "--socket PATH")
NEEDS = {"--max-clients": _SOCKET, "--allow-uid": _SOCKET, "--socket-mode": _SOCKET,
         "--socket-group": _SOCKET, "--arg": ("render", "--render NAME"), "--json": ("list", "--list")}
#: a kind's empty value: every option starts with it
_EMPTY = {"flag": bool, "paths": list, "pairs": dict}


def parse_args(argv):
    """A tiny parser (argparse costs start-up time that every host spawn pays)."""
    opts = {key: _EMPTY[kind]() if kind in _EMPTY else None for key, kind in OPTIONS.values()}
    given = {}  # option -> the value it was given (to say so when it comes again)
    named = []  # every option, in the order given (again when repeated)
    args = list(argv)
    while args:
        arg = args.pop(0)
        name, eq, value = arg.partition("=")
        if name not in OPTIONS:
            from .preview import unknown  # (what to say, with a guess: not loaded to serve)
            raise UsageError(unknown(arg, name, OPTIONS))
        named.append(name)
        key, kind = OPTIONS[name]
        if kind == "flag":
            if eq:
                raise UsageError("%s takes no value (got %r)" % (name, arg))
            opts[key] = True
            continue
        if not eq:  # (the value is the next argument)
            if not args:
                raise _needs(name)
            value = args.pop(0)
            if value.partition("=")[0] in OPTIONS:
                raise _needs(name, " (got the option %r: is the value missing?)" % value)
        if not value:
            raise _needs(name, " (got an empty value: is a shell variable unset?)")
        if kind == "paths":
            opts[key].append(value)
            continue
        if kind == "pairs":  # (NAME=VALUE, each NAME once)
            arg_name, sep, text = value.partition("=")
            if not sep or not arg_name:
                raise UsageError("%s needs NAME=VALUE, got %r" % (name, value))
            if arg_name in opts[key]:
                raise UsageError("%s %s given twice" % (name, arg_name))
            opts[key][arg_name] = text
            continue
        if name in given:  # (which one was meant?)
            raise UsageError("%s given twice (%r, then %r): give it once" % (name, given[name], value))
        given[name] = opts[key] = value
        if kind == "count":
            try:
                opts[key] = int(value)
            except ValueError:
                raise UsageError("%s needs a whole number, got %r" % (name, cut(value, 40)))
            if opts[key] < 1:
                raise UsageError("%s must be 1 or more" % name)
    _check_together(opts, named)
    return opts


def _needs(name, detail=""):
    from .preview import VALUES  # (the words of usage errors: not loaded to serve)
    return UsageError("%s needs %s%s" % (name, VALUES[name], detail))


def _check_together(opts, named):
    """Options that need, or exclude, others (``named``: the options given, in order)."""
    others = [name for name in dict.fromkeys(named) if name not in ("--connect", "-h", "--help", "--version")]
    if opts["connect"] is not None and others:  # (the server it reaches has its own)
        raise UsageError("--connect bridges to a running server: it takes no other option (got %s)" % ", ".join(others))
    for name, (needed, what) in NEEDS.items():
        if opts[OPTIONS[name][0]] and not opts[needed]:
            raise UsageError("%s needs %s" % (name, what))
    if opts["watch"] and opts["config"] is None and not opts["prompts"]:
        raise UsageError("--watch needs --config FILE or --prompts DIR")
    # (optional parts: a copy may not have them)
    for name, part, module in (("--socket", "socket", "unix"), ("--connect", "socket", "bridge"),
                               ("--prompts", "files", "folders")):
        if name in named and not _has("%s.%s.%s" % (__package__, part, module)):
            raise UsageError("%s needs the %s/ part of tinymcp, which this copy does not have" % (name, part))
    modes = [name for name in ("--check", "--list", "--render", "--socket") if name in named]
    if len(modes) > 1:  # (each ends what the others do: one would be done, silently)
        raise UsageError("%s: one at a time" % " and ".join(modes))
    if opts["watch"] and modes and modes != ["--socket"]:
        raise UsageError("%s does not serve: --watch has nothing to reload" % modes[0])


def _has(module):
    """Whether this copy has ``module`` (of an optional part, which a copy may delete)."""
    try:
        return __import__("importlib.util").util.find_spec(module) is not None
    except ImportError:  # (its folder deleted: find_spec imports the folder first)
        return False


def main(argv=None, default_config=None, default_name="default config", gc_paused=False):
    """Run the command line; returns the exit status. ``default_config`` (a dict) is
    served when no ``--config`` is given, instead of the built-in prompts (a zipapp
    passes its embedded config), and ``default_name`` names it in messages.
    ``gc_paused``: the process turned the cycle collector off at its start (``__main__``),
    to be turned back on here (``_resume_gc``)."""
    from .io.stdio import valid_std_fds
    valid_std_fds()
    try:
        opts = parse_args(sys.argv[1:] if argv is None else argv)
        if opts["help"] or opts["version"]:
            from .preview import show
            return show(opts, default_config)
        if opts["connect"] is not None:
            _resume_gc(gc_paused)
            from .socket.bridge import bridge
            return bridge(opts["connect"])
        loaded = _load(opts, default_config, default_name)
        _resume_gc(gc_paused)
        if type(loaded) is int:
            return loaded
        server, source = loaded
        if opts["check"] or opts["list"] or opts["render"] is not None:
            from .preview import show
            return show(opts, server=server, name=default_name if source is None else source.name,
                        sources=source and (getattr(source.lenient, "sources", {}), source.path))
        if opts["socket"] is not None:
            from .socket.unix import serve_options
            return serve_options(opts, server, source)
        if sys.stdin is not None and sys.stdin.isatty():
            # a person at a terminal, not a host: say what this is instead of seeming to hang
            sys.stderr.write("tinymcp: serving MCP on stdio (one JSON-RPC message per line); an MCP host "
                             "normally starts this. Ctrl-D ends it.\n")
            sys.stderr.flush()
        from .io.stdio import serve_stdio
        return serve_stdio(server, source=source)
    except ListenError as exc:  # (a socket path it refuses to use: raised by socket/ alone, before serving)
        sys.stderr.write("tinymcp: %s\n" % shown(str(exc)))
        return 1
    except UsageError as exc:  # (the command line's, or the values of the socket's options: checked by socket/)
        from .preview import usage_error
        return usage_error(exc)
    except KeyboardInterrupt:  # (Ctrl-C outside serving, which ends with 0: during a long load, or the bridge's)
        return 130


def _resume_gc(paused):
    """Speed: a start makes tens of thousands of objects that live as long as the process
    (modules, then the prompts), and the cycle collector walked them again and again as
    they came, 7% of a start at 100 and at 10,000 prompts. So ``__main__`` turns it off,
    and once the prompts are loaded it is back on, with what exists then frozen out of its
    way (still freed when unreferenced; the few cycles the standard library's imports
    leave, ~125 objects, stay: docs/decisions.md)."""
    if paused:
        import gc
        getattr(gc, "freeze", gc.enable)()  # (PyPy has no freeze: enabled, twice)
        gc.enable()


def _load(opts, default_config, default_name):
    """``(server, source)``, or the exit status after saying what is wrong with the config."""
    from .model.config import load_config
    from .protocol.session import Server
    source = None
    try:
        if opts["config"] is None and not opts["prompts"]:
            config = default_config
            if config is None:
                from .model.defaults import DEFAULT_CONFIG as config
            config = load_config(config, owned=True)
        else:
            from .source import ConfigFile
            # (a prompt file with problems is left out, logged; --check and --strict refuse)
            source = ConfigFile(opts["config"], watch=opts["watch"], dirs=opts["prompts"],
                                strict=opts["check"] or opts["strict"])
            from .io.stdio import stderr_log  # (never blocks, never fails: stderr may be full or closed)
            try:
                config = source.load()
            finally:  # (what it left out or ignored; refused too: "its host folders are not read")
                source.tell(stderr_log)
        # listChanged is promised exactly when a change source exists: a config file or
        # a folder can be reloaded (SIGHUP, --watch); the embedded prompts never change.
        # (the dicts are ours alone: prompts are validated now, built when first got)
        return Server(config, page_size=opts["page_size"], list_changed=source is not None,
                      prompts_as_tools=opts["tools"] or None), source
    except ConfigError as exc:
        from .preview import config_error
        return config_error(exc.problems, source, default_name)
