"""What the command line shows people rather than hosts: its help text, usage errors
with a guess at what was meant, ``--version``, ``--check``'s verdict, and, for prompt
authors without a host, the prompts a config serves (``--list``) and one rendered with
given arguments (``--render``), through the same path as a client's ``prompts/list``
and ``prompts/get`` (a ``Session`` fed JSON-RPC lines), printed as plain text. Loaded
only for those: a server never is.
"""

import sys
from contextlib import suppress

from . import __version__, codec
from .errors import ConfigError, shown
from .model.check import close_match
from .model.content import as_text
from .protocol.revisions import LATEST_HANDSHAKE
from .protocol.session import Session

#: what each option's value is, as usage errors say it
VALUES = {"--config": "a file path", "--socket": "a socket path", "--connect": "a socket path",
          "--page-size": "a whole number", "--max-clients": "a whole number",
          "--allow-uid": "numeric uids", "--socket-mode": "an octal mode",
          "--socket-group": "a group name or gid", "--prompts": "a directory",
          "--render": "a prompt name", "--arg": "NAME=VALUE"}
#: options people try that are spelt otherwise here
SPELLED = {"-c": "--config", "-V": "--version", "-v": "--version", "-p": "--prompts",
           "-w": "--watch", "-s": "--socket", "-l": "--list", "-r": "--render", "-a": "--arg"}


def program():
    """How this program was started: a vendored copy's module, the console script, a
    zipapp, its ``__main__.py`` by path."""
    arg0 = sys.argv[0] if sys.argv else ""
    base = arg0.replace("\\", "/").rsplit("/", 1)[-1]
    # (its __main__.py by path: no __spec__; -m sets argv[0] to that path too, and a __spec__)
    if base.endswith(".pyz") or base == "__main__.py" and getattr(sys.modules.get("__main__"), "__spec__", 1) is None:
        return "python3 " + arg0
    return "tinymcp" if base in ("tinymcp", "tinymcp.exe") else "python3 -m " + (__package__ or "tinymcp")


def usage_error(message):
    """Say on stderr what a usage error prints: the problem, one line of usage, where the
    help is; the exit status, 2."""
    prog = program()
    sys.stderr.write("tinymcp: %s\nusage: %s [--config FILE.json] [--prompts DIR]... [OPTION]...\n"
                     "Try '%s --help' for more information.\n" % (message, prog, prog))
    return 2


def unknown(arg, name, options):
    """What to say of an argument that is no option, with a guess at what was meant
    among ``options``."""
    if not arg.startswith("-") or arg == "-":
        guess = " (did you mean '--config %s'?)" % arg if arg.endswith(".json") else " (tinymcp takes options only)"
        return "unexpected argument %r%s" % (arg, guess)
    # (one spelt otherwise here; one it extends, --list-prompts: --list; else a near miss, an exact one first)
    typed, longs = "--" + name.lstrip("-").lower(), [o for o in options if o.startswith("--")]
    guess = SPELLED.get(name) or next((o for o in longs if typed.startswith(o + "-")), "") or close_match(typed, longs)
    return "unknown option %r%s" % (name, " (did you mean %r?)" % guess if guess else "")


def printed(command):
    """``command()``'s exit status, its output flushed; 1, quietly, when the reader of
    stdout went away first (``--list | head -1``: no traceback for a closed pipe), and 1
    saying why when stdout cannot be written otherwise (full) or the config's limits refuse
    the preview's own requests (``_Client``: a ConfigError). What
    stdout cannot encode (a lone surrogate a config's text may hold, or any non-ASCII on an
    ASCII terminal) is shown backslash-escaped, as stderr shows it."""
    with suppress(AttributeError, ValueError, OSError):  # (a stream that is not a text file: written as it takes it)
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        status = command()
        sys.stdout.flush()
        return status
    except (OSError, ConfigError) as exc:
        import os
        if isinstance(exc, OSError):  # (so exit's flush is quiet)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        if not isinstance(exc, BrokenPipeError):
            sys.stderr.write("tinymcp: %s\n" % shown(str(exc) if isinstance(exc, ConfigError) else "stdout: %s" % exc))
        return 1


def show(opts, default_config=None, server=None, name=None, sources=None):
    """What ``--help``, ``--version``, ``--check``, ``--list`` or ``--render`` print (of
    ``server``, whose config is called ``name``, its prompts' files ``sources``); the exit
    status."""
    if opts["help"] or opts["version"]:
        text = usage(program(), default_config) if opts["help"] else "tinymcp %s\n" % __version__
        return printed(lambda: sys.stdout.write(text) and 0)
    if opts["check"]:
        n, name = len(server.config.prompts), shown(name)
        return printed(lambda: sys.stdout.write("%s: ok, %d prompt%s\n" % (name, n, "" if n == 1 else "s")) and 0)
    return printed(lambda: list_prompts(server, sys.stdout, sources, opts["json"]) if opts["list"]
                   else render_prompt(server, opts["render"], opts["args"], sys.stdout, sys.stderr))


USAGE = """\
usage: %(prog)s [--config FILE.json] [--prompts DIR]... [--page-size N] [--watch]
%(indent)s[--list [--json] | --render NAME [--arg NAME=VALUE]...]
%(indent)s[--socket PATH [--max-clients N] [--allow-uid UID[,UID...]]
%(indent)s [--socket-mode MODE] [--socket-group GROUP]]
%(indent)s[--prompts-as-tools] [--connect PATH] [--check] [--strict] [--version]

Serve MCP prompts over stdio, or over a Unix socket (newline-delimited JSON-RPC).

options:
  --config FILE    prompts config (JSON); without it, %(default)s.
                   With a file, SIGHUP reloads it (an invalid file keeps the old
                   prompts) and clients are told when the prompts change
  --prompts DIR    also serve the prompt files under DIR (repeatable; Markdown,
                   Claude Code commands, skills and plugins, Codex, VS Code and
                   Gemini CLI formats: see docs/prompt-files.md);
                   with --config, the prompts of all of them are served together
  --page-size N    prompts per prompts/list page (overrides the config's page_size)
  --watch          also reload the --config file and the prompt folders whenever
                   they change
  --list           print the prompts that would be served, with their arguments and
                   the file and format each comes from, and exit (--json: as JSON)
  --render NAME    print prompt NAME rendered (as prompts/get would send it) and exit
  --arg NAME=VALUE with --render: an argument's value (repeatable)
  --socket PATH    serve many clients on a Unix socket at PATH instead of stdio
  --max-clients N  with --socket: connections served at once, more are refused
                   (default 1024)
  --allow-uid UIDS with --socket: also accept peers with these uids (comma-separated,
                   repeatable); by default only the server's own uid and root. The
                   socket file must let them open it too: see --socket-mode
  --socket-mode MODE  with --socket: the socket file's mode, octal (default 0600)
  --socket-group GROUP  with --socket: the socket file's group (a name or a gid)
  --connect PATH   bridge stdio to a tinymcp --socket service at PATH (for hosts
                   that only start stdio servers); ends when either side closes
  --prompts-as-tools  also offer the prompts as two tools, list_prompts and
                   get_prompt, for clients that call only tools
  --check          validate the config, list every problem, and exit (0 valid, 1 not)
  --strict         refuse to serve when any prompt file has a problem (without it,
                   such a file is left out and its problems logged)
  --version        print the version and exit
  -h, --help       show this help and exit

Python callables (render, complete) run on worker threads; render and complete of
JSON configs never run code.
"""


def config_error(problems, source, default_name):
    """Say on stderr what is wrong with the config (``source``: its ``ConfigFile``, or None
    for ``default_name``); the exit status, 1."""
    if source is not None and source.path and len(problems) == 1 \
            and (problems[0][0] + ":").startswith(source.path + ":"):
        # the file itself (unreadable, not JSON): one line, FILE[:LINE:COLUMN]: what is wrong
        sys.stderr.write("tinymcp: %s\n" % shown("%s: %s" % problems[0]))
        return 1
    sys.stderr.write("tinymcp: invalid %s %s:\n" % ("prompt files in" if source is not None and not source.path
                                                     else "config", shown(source.name if source else default_name)))
    for path, msg in problems:
        sys.stderr.write("  %s\n" % shown("%s: %s" % (path, msg) if path else msg, "    "))
    return 1


def usage(prog, default_config=None):
    """The help text, named as this program was started and saying what it serves
    without --config."""
    default = "a built-in default prompt set" if default_config is None else "the embedded config"
    return USAGE % {"prog": prog, "indent": " " * len("usage: %s " % prog), "default": default}


class _Client:
    """A handshake-era client of one in-process session."""

    def __init__(self, server):
        self.session = Session(server, list_changed=False)
        self.next_id = 0
        self.call("initialize", {"protocolVersion": LATEST_HANDSHAKE.version, "capabilities": {},
                                 "clientInfo": {"name": "tinymcp-preview", "version": "1"}})
        self.session.receive_data(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def call(self, method, params):
        """The result of ``method``; ``(code, message)`` of an error."""
        self.next_id += 1
        line = codec.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        for reply in self.session.receive_data(line.encode() + b"\n").splitlines():
            answer = codec.loads(reply.decode("ascii"))
            if answer.get("id") == self.next_id:
                error = answer.get("error")
                return (error["code"], error["message"]) if error else answer["result"]
            if answer.get("id") is None and "error" in answer:  # (a line refused unread: a limit of the config's)
                raise ConfigError([("limits", "the preview's %s refused: %s" % (method, answer["error"]["message"]))])
        raise RuntimeError("no answer to %s" % method)  # (a render callable deferred it)


def list_prompts(server, out, sources=None, as_json=False):
    """Write each prompt (name, description, arguments, and where it comes from:
    ``sources`` is ``({name: (file, format)}, the config file or None)``) to ``out``, as
    text or as one JSON array; the exit status."""
    files, config_file = sources or ({}, None)
    client = _Client(server)
    result = client.call("prompts/list", {})
    # (what a file says, its path too, may hold ESC: written escaped, never driving the terminal)
    listed, write = result["prompts"], lambda text: out.write(shown(text, "    ") + "\n")
    while result.get("nextCursor"):
        result = client.call("prompts/list", {"cursor": result["nextCursor"]})
        listed += result["prompts"]
    for prompt in listed:
        where, kind = files.get(prompt["name"]) or ((config_file, "json") if config_file else (None, None))
        if as_json:
            prompt.update({"source": where, "format": kind} if where else {})
            continue
        write("%s%s" % (prompt["name"], "  (%s)" % prompt["title"] if prompt.get("title") else ""))
        if where:
            write("    from %s (%s)" % (where, kind))
        if prompt.get("description"):
            write("    %s" % prompt["description"])
        for arg in prompt.get("arguments", ()):
            write("    --arg %s=...%s%s" % (
                arg["name"], "  (required)" if arg.get("required") else "",
                "  %s" % arg["description"] if arg.get("description") else ""))
    if as_json:
        out.write(codec.dumps(listed) + "\n")
    return 0


def render_prompt(server, name, arguments, out, err):
    """Write prompt ``name`` rendered with ``arguments`` (a dict) to ``out``, each message
    under a ``--- role ---`` line when there are several; the exit status (1 when the
    server refuses, saying why on ``err``)."""
    result = _Client(server).call("prompts/get", {"name": name, "arguments": arguments})
    if isinstance(result, tuple):
        known = server.config.prompts.by_name
        near = None if name in known else close_match(name, known)
        err.write("tinymcp: %s%s\n" % (result[1], "" if name in known else " (%s--list shows them all)" % (
            "did you mean %r? " % near if near else "")))
        return 1
    messages = result["messages"]
    for message in messages:
        if len(messages) > 1:
            out.write("--- %s ---\n" % message["role"])
        text = _shown(message["content"])
        out.write(text if text.endswith("\n") else text + "\n")
    return 0


def _shown(block):
    kind = block.get("type")
    if kind == "text" or (kind == "resource" and "text" in block.get("resource", {})):
        return as_text(block)  # (its text; a resource's: [resource <uri> (type)], then its text)
    return "[%s] %s" % (kind, codec.dumps({k: v for k, v in block.items() if k not in ("data", "blob")}))
