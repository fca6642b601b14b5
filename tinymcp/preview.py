"""For prompt authors, without a host: list the prompts a config serves, and render one
with given arguments, through the same path as a client's ``prompts/list`` and
``prompts/get`` (a ``Session`` fed JSON-RPC lines), printed as plain text.
"""

import json

from .model.content import as_text
from .protocol.revisions import LATEST_HANDSHAKE
from .protocol.session import Session



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
