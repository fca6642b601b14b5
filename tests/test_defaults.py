"""The default prompts: served when no config is given."""

import json

import pytest

from tinymcp import Server, Session, load_config
from tinymcp.model.defaults import DEFAULT_CONFIG


def test_default_config_is_valid():
    assert len(load_config(DEFAULT_CONFIG).prompts) >= 3


def _texts(name, arguments):
    """The texts of default prompt ``name`` as a client gets them with ``arguments``."""
    session = Session(Server(DEFAULT_CONFIG))
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                 "protocolVersion": "2025-06-18", "capabilities": {},
                 "clientInfo": {"name": "t", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
              "params": {"name": name, "arguments": arguments}}]
    out = session.receive_data(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
    reply = json.loads(out.splitlines()[-1])
    return [m["content"]["text"] for m in reply["result"]["messages"]]


@pytest.mark.parametrize("prompt", DEFAULT_CONFIG["prompts"], ids=lambda p: p["name"])
def test_a_default_prompt_reads_well_with_only_its_required_arguments(prompt):
    required = {a["name"]: "VALUE" for a in prompt["arguments"] if a.get("required")}
    for text in _texts(prompt["name"], required):
        assert "VALUE" in text
        for blemish in ("  ", " \n", " .", ": \n", ":\n"):  # (an optional argument left out)
            assert blemish not in text, (blemish, text)


@pytest.mark.parametrize("prompt", DEFAULT_CONFIG["prompts"], ids=lambda p: p["name"])
def test_a_default_prompt_shows_every_argument_given(prompt):
    given = {a["name"]: "<%s>" % a["name"] for a in prompt["arguments"]}
    text = "\n".join(_texts(prompt["name"], given))
    assert all(value in text for value in given.values()), text
