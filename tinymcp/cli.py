"""Command line: ``python3 -m tinymcp [--config FILE.json] [--page-size N] [--check] [--version]``.

Exit status: 0 after serving until EOF or SIGTERM/SIGINT (or a closed stdout), and for
a valid ``--check``; 1 for an invalid config; 2 for a usage error.
"""

import sys

from . import __version__
from .errors import ConfigError

USAGE = """\
usage: python3 -m tinymcp [--config FILE.json] [--page-size N] [--check] [--version]

Serve MCP prompts over stdio (newline-delimited JSON-RPC).

options:
  --config FILE   prompts config (JSON); without it, a built-in default prompt set
  --page-size N   prompts per prompts/list page (overrides the config's page_size)
  --check         validate the config, list every problem, and exit (0 valid, 1 not)
  --version       print the version and exit
  -h, --help      show this help and exit
"""


class UsageError(Exception):
    pass


def parse_args(argv):
    """A tiny parser (argparse costs start-up time that every host spawn pays)."""
    opts = {"config": None, "page_size": None, "check": False}
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
        elif name in ("--config", "--page-size"):
            if not eq:
                if not args:
                    raise UsageError("%s needs a value" % name)
                value = args.pop(0)
            if name == "--config":
                opts["config"] = value
            else:
                try:
                    opts["page_size"] = int(value)
                except ValueError:
                    raise UsageError("--page-size needs a whole number, got %r" % value)
                if opts["page_size"] < 1:
                    raise UsageError("--page-size must be 1 or more")
        else:
            raise UsageError("unknown argument %r" % arg)
    return opts


def read_config(path):
    """Load a JSON config file; errors name the file and the position."""
    import json
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ConfigError([(path, "cannot read: %s" % (exc.strerror or exc))])
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError([(path, "not UTF-8 (byte %d)" % exc.start)])
    except ValueError as exc:
        raise ConfigError([(path, "invalid JSON: %s" % exc)])


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts = parse_args(argv)
    except UsageError as exc:
        sys.stderr.write("tinymcp: %s\n%s" % (exc, USAGE))
        return 2
    if opts.get("help"):
        sys.stdout.write(USAGE)
        return 0
    if opts.get("version"):
        sys.stdout.write("tinymcp %s\n" % __version__)
        return 0
    from .session import Server
    try:
        if opts["config"] is None:
            from .defaults import DEFAULT_CONFIG as config
        else:
            config = read_config(opts["config"])
        server = Server(config, page_size=opts["page_size"])
    except ConfigError as exc:
        where = opts["config"] or "default config"
        sys.stderr.write("tinymcp: invalid config %s:\n" % where)
        for path, msg in exc.problems:
            sys.stderr.write("  %s: %s\n" % (path, msg) if path else "  %s\n" % msg)
        return 1
    if opts["check"]:
        n = len(server.config.prompts)
        sys.stdout.write("%s: ok, %d prompt%s\n" % (
            opts["config"] or "default config", n, "" if n == 1 else "s"))
        return 0
    from .stdio import serve_stdio
    return serve_stdio(server)
