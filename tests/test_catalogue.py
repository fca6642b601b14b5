"""tests/data/bad_inputs.json: bad inputs, each with the exact response it must get.

Each case runs on a fresh session (after an ``initialize`` when the case names a
revision); afterwards a ping must still be answered.
"""

import json
from pathlib import Path

import pytest

from conftest import Wire

DATA = json.loads((Path(__file__).parent / "data" / "bad_inputs.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["name"] for c in DATA["cases"]])
def test_bad_input_gets_its_exact_response(case):
    wire = Wire(DATA["config"])
    if "initialize" in case:
        wire.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                   "params": {"protocolVersion": case["initialize"]}})
    raw = bytes.fromhex(case["send_hex"]) if "send_hex" in case else case["send"].encode("utf-8", "surrogatepass")
    replies = wire.raw(raw + b"\n")
    assert replies == case["expect"]
    for item in (item for reply in replies for item in (reply if isinstance(reply, list) else [reply])):
        assert len(item.get("error", {}).get("message", "")) <= 300  # an error echoes a bounded prefix
    for line in wire.output.split(b"\n")[:-1]:
        assert len(line) < 1024 + len(raw)  # bounded: no amplification of client input
        assert b"Traceback" not in line
    assert wire.session.receive_data(b'{"jsonrpc":"2.0","id":"after","method":"ping"}\n') == \
        b'{"jsonrpc":"2.0","id":"after","result":{}}\n'

