"""What the command line shows people rather than hosts: its help text, and, for prompt
authors without a host, the prompts a config serves (``--list``) and one rendered with
given arguments (``--render``), through the same path as a client's ``prompts/list``
and ``prompts/get`` (a ``Session`` fed JSON-RPC lines), printed as plain text.
"""

import json

from .model.content import as_text
from .protocol.revisions import LATEST_HANDSHAKE
from .protocol.session import Session

USAGE = """\
usage: %(prog)s [--config FILE.json] [--prompts DIR]... [--page-size N] [--watch]
%(indent)s[--list | --render NAME [--arg NAME=VALUE]...]
%(indent)s[--socket PATH [--max-clients N] [--allow-uid UID[,UID...]]
%(indent)s [--socket-mode MODE] [--socket-group GROUP]]
%(indent)s[--connect PATH] [--check] [--strict] [--version]

Serve MCP prompts over stdio, or over a Unix socket (newline-delimited JSON-RPC).

options:
  --config FILE    prompts config (JSON); without it, %(default)s.
                   With a file, SIGHUP reloads it (an invalid file keeps the old
                   prompts) and clients are told when the prompts change
  --prompts DIR    also serve the prompt files under DIR (repeatable; Markdown,
                   Claude Code, Codex, VS Code and Gemini CLI formats: see README);
                   with --config, the prompts of all of them are served together
  --page-size N    prompts per prompts/list page (overrides the config's page_size)
  --watch          also reload the --config file and the prompt folders whenever
                   they change
  --list           print the prompts that would be served, with their arguments,
                   and exit
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
  --check          validate the config, list every problem, and exit (0 valid, 1 not)
  --strict         refuse to serve when any prompt file has a problem (without it,
                   such a file is left out and its problems logged)
  --version        print the version and exit
  -h, --help       show this help and exit

Python callables (render, complete) run on worker threads; render and complete of
JSON configs never run code.
"""


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
        line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        for reply in self.session.receive_data(line.encode() + b"\n").splitlines():
            answer = json.loads(reply)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    return answer["error"]["code"], answer["error"]["message"]
                return answer["result"]
        raise RuntimeError("no answer to %s" % method)  # (a render callable deferred it)


def list_prompts(server, out):
    """Write each prompt (name, description, arguments) to ``out``; the exit status."""
    client, cursor = _Client(server), None
    while True:
        result = client.call("prompts/list", {"cursor": cursor} if cursor else {})
        for prompt in result["prompts"]:
            title = prompt.get("title") or ""
            out.write("%s%s\n" % (prompt["name"], "  (%s)" % title if title else ""))
            if prompt.get("description"):
                out.write("    %s\n" % prompt["description"].replace("\n", "\n    "))
            for arg in prompt.get("arguments", ()):
                out.write("    --arg %s=...%s%s\n" % (
                    arg["name"], "  (required)" if arg.get("required") else "",
                    "  %s" % arg["description"] if arg.get("description") else ""))
        cursor = result.get("nextCursor")
        if not cursor:
            return 0


def render_prompt(server, name, arguments, out, err):
    """Write prompt ``name`` rendered with ``arguments`` (a dict) to ``out``, each message
    under a ``--- role ---`` line when there are several; the exit status (1 when the
    server refuses, saying why on ``err``)."""
    result = _Client(server).call("prompts/get", {"name": name, "arguments": arguments})
    if isinstance(result, tuple):
        err.write("tinymcp: %s\n" % result[1])
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
    if kind == "text":
        return block["text"]
    if kind == "resource" and "text" in block.get("resource", {}):
        return as_text(block)  # ([resource <uri> (type)], then its text)
    described = {k: v for k, v in block.items() if k not in ("data", "blob")}
    return "[%s] %s" % (kind, json.dumps(described, ensure_ascii=False))
