import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


class Wire:
    """Drives a sans-I/O Session with JSON values; returns the decoded replies."""

    def __init__(self, config, **server_options):
        from tinymcp import Server, Session
        self.server = Server(config, **server_options)
        self.session = Session(self.server)
        self.ids = 0

    def raw(self, data):
        out = self.session.receive_data(data)
        assert out == b"" or out.endswith(b"\n")
        return [json.loads(line) for line in out.split(b"\n") if line]

    def send(self, *messages):
        data = b"".join(json.dumps(m).encode() + b"\n" for m in messages)
        return self.raw(data)

    def request(self, method, params=None, rid=None):
        if rid is None:
            self.ids += 1
            rid = self.ids
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        replies = self.send(msg)
        assert len(replies) == 1, replies
        assert replies[0]["id"] == rid
        return replies[0]

    def result(self, method, params=None):
        reply = self.request(method, params)
        assert "result" in reply, reply
        return reply["result"]

    def error(self, method, params=None):
        reply = self.request(method, params)
        assert "error" in reply, reply
        return reply["error"]

    def initialize(self, version="2025-11-25"):
        result = self.result("initialize", {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return result


def simple_config(n=3, **extra):
    prompts = [{
        "name": "p%03d" % i,
        "description": "prompt %d" % i,
        "arguments": [{"name": "topic", "required": True}, {"name": "tone", "default": "plain"}],
        "messages": [{"role": "user", "text": "Tell me about {topic} in a {tone} tone"}],
    } for i in range(n)]
    config = {"prompts": prompts}
    config.update(extra)
    return config


@pytest.fixture
def wire():
    return Wire(simple_config())
