"""Command line: ``python3 -m tinymcp [--config FILE.json] [--watch] [--socket PATH] ...``.

Exit status: 0 after serving until EOF or SIGTERM/SIGINT (or a closed stdout), and for
a valid ``--check``; 1 for an invalid config or a socket path it refuses to use; 2 for
a usage error.
"""

import sys

from . import __version__
from .errors import ConfigError, UsageError

USAGE = """\
usage: %(prog)s [--config FILE.json] [--page-size N] [--watch]
%(indent)s[--socket PATH [--max-clients N] [--allow-uid UID[,UID...]]]
%(indent)s[--check] [--version]

Serve MCP prompts over stdio, or over a Unix socket (newline-delimited JSON-RPC).

options:
  --config FILE    prompts config (JSON); without it, %(default)s.
                   With a file, SIGHUP reloads it (an invalid file keeps the old
                   prompts) and clients are told when the prompts change
  --page-size N    prompts per prompts/list page (overrides the config's page_size)
  --watch          also reload the --config file whenever it changes
  --socket PATH    serve many clients on a Unix socket at PATH (created 0600) instead
                   of stdio
  --max-clients N  with --socket: connections served at once, more are refused
                   (default 1024)
  --allow-uid UIDS with --socket: also accept peers with these uids (comma-separated,
                   repeatable); by default only the server's own uid and root
  --check          validate the config, list every problem, and exit (0 valid, 1 not)
  --version        print the version and exit
  -h, --help       show this help and exit
"""


def usage(default_config=None):
    """The help text, named as this program was started (a vendored copy's module, the
    console script, a zipapp) and saying what it serves without --config."""
    arg0 = sys.argv[0] if sys.argv else ""
    base = arg0.replace("\\", "/").rsplit("/", 1)[-1]
    if base.endswith(".pyz"):
        prog = "python3 " + arg0
    elif base in ("tinymcp", "tinymcp.exe"):
        prog = "tinymcp"
    else:
        prog = "python3 -m " + (__package__ or "tinymcp")
    default = "a built-in default prompt set" if default_config is None else "the embedded config"
    return USAGE % {"prog": prog, "indent": " " * len("usage: %s " % prog), "default": default}


def parse_args(argv):
    """A tiny parser (argparse costs start-up time that every host spawn pays)."""
    opts = {"config": None, "page_size": None, "check": False, "watch": False,
            "socket": None, "max_clients": None, "allow_uids": set()}
    args = list(argv)
    while args:
        arg = args.pop(0)
        name, eq, value = arg.partition("=")
        if name in ("-h", "--help"):
            opts["help"] = True
        elif name == "--version":
            opts["version"] = True
        elif name == "--check":
            opts["check"] = True
        elif name == "--watch":
            opts["watch"] = True
        elif name in ("--config", "--page-size", "--socket", "--max-clients", "--allow-uid"):
            if not eq:
                if not args:
                    raise UsageError("%s needs a value" % name)
                value = args.pop(0)
            key = name[2:].replace("-", "_")
            if name != "--allow-uid" and opts[key] is not None:
                raise UsageError("%s given twice" % name)  # (which one was meant?)
            if name == "--config":
                opts["config"] = value
            elif name == "--socket":
                if not value:
                    raise UsageError("--socket needs a path")
                opts["socket"] = value
            elif name == "--allow-uid":
                opts["allow_uids"] |= _uids(value)
            else:
                try:
                    opts[key] = int(value)
                except ValueError:
                    raise UsageError("%s needs a whole number, got %r" % (name, value))
                if opts[key] < 1:
                    raise UsageError("%s must be 1 or more" % name)
        else:
            raise UsageError("unknown argument %r" % arg)
    if opts["watch"] and opts["config"] is None:
        raise UsageError("--watch needs --config FILE")
    if opts["socket"] is None:
        if opts["max_clients"] is not None:
            raise UsageError("--max-clients needs --socket PATH")
        if opts["allow_uids"]:
            raise UsageError("--allow-uid needs --socket PATH")
    return opts


def _uids(text):
    """``"1000,1001"`` -> ``{1000, 1001}`` (numeric uids only)."""
    uids = set()
    for part in text.split(","):
        part = part.strip()
        if not (part.isascii() and part.isdigit()):
            raise UsageError("--allow-uid needs numeric uids separated by commas, got %r" % text)
        uids.add(int(part))
    return uids


def main(argv=None, default_config=None, default_name="default config"):
    """Run the command line; returns the exit status. ``default_config`` (a dict) is
    served when no ``--config`` is given, instead of the built-in prompts (a zipapp
    passes its embedded config), and ``default_name`` names it in messages."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts = parse_args(argv)
    except UsageError as exc:
        sys.stderr.write("tinymcp: %s\n%s" % (exc, usage(default_config)))
        return 2
    if opts.get("help"):
        sys.stdout.write(usage(default_config))
        return 0
    if opts.get("version"):
        sys.stdout.write("tinymcp %s\n" % __version__)
        return 0
    # Everything made from here to serving lives as long as the server: no collection
    # while it is made (each would re-scan it all), then _ready_to_serve() freezes it out
    # of the collector's way.
    import gc
    gc.disable()
    try:
        return _main(opts, default_config, default_name)
    finally:
        gc.enable()  # (serving turned it back on already; this covers the early returns)


def _main(opts, default_config, default_name):
    from .config import load_config
    from .server import Server
    source = None
    try:
        if opts["config"] is None:
            config = default_config
            if config is None:
                from .defaults import DEFAULT_CONFIG as config
        else:
            from .reload import ConfigFile
            source = ConfigFile(opts["config"], watch=opts["watch"])
            config = source.load()
        # listChanged is promised exactly when a change source exists: a config file can
        # be reloaded (SIGHUP, --watch); the embedded default prompts never change.
        # (the dicts are ours alone: prompts are validated now, built when first got)
        server = Server(load_config(config, owned=True), page_size=opts["page_size"],
                        list_changed=source is not None)
    except ConfigError as exc:
        where = opts["config"] or default_name
        sys.stderr.write("tinymcp: invalid config %s:\n" % where)
        for path, msg in exc.problems:
            sys.stderr.write("  %s: %s\n" % (path, msg) if path else "  %s\n" % msg)
        return 1
    if opts["check"]:
        n = len(server.config.prompts)
        sys.stdout.write("%s: ok, %d prompt%s\n" % (
            opts["config"] or default_name, n, "" if n == 1 else "s"))
        return 0
    _ready_to_serve()
    if opts["socket"] is not None:
        from .unix import DEFAULT_MAX_CLIENTS, ListenError, serve_unix
        try:
            return serve_unix(server, opts["socket"],
                              max_clients=opts["max_clients"] or DEFAULT_MAX_CLIENTS,
                              allow_uids=opts["allow_uids"], source=source)
        except ListenError as exc:
            sys.stderr.write("tinymcp: %s\n" % exc)
            return 1
    if sys.stdin is not None and sys.stdin.isatty():
        # a person at a terminal, not a host: say what this is instead of seeming to hang
        sys.stderr.write("tinymcp: serving MCP on stdio (one JSON-RPC message per line); an MCP host "
                         "normally starts this. Ctrl-D ends it.\n")
        sys.stderr.flush()
    from .stdio import serve_stdio
    return serve_stdio(server, source=source)


def _ready_to_serve():
    """Hand what start-up made to the permanent generation and collect again from now on."""
    import gc
    if hasattr(gc, "freeze"):
        gc.freeze()
    gc.enable()
