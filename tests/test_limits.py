"""Every limit: a test at the limit and one past it; past it, an error naming it and the next line served."""

import json

import pytest

from conftest import Wire
from tinymcp import ConfigError, load_config

PING = {"jsonrpc": "2.0", "id": "next", "method": "ping"}


def config(**limits):
    return {"limits": limits, "prompts": [{
        "name": "p", "arguments": [{"name": "a%d" % i} for i in range(5)] + [{"name": "big"}],
        "messages": [{"role": "user", "text": "{a0}{a1}{a2}{a3}{a4}{big}"}]}]}


def get(wire, arguments):
    replies = wire.send({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                         "params": {"name": "p", "arguments": arguments}}, PING)
    assert replies[-1] == {"jsonrpc": "2.0", "id": "next", "result": {}}
    return replies[0]


def test_line_at_and_past_max_line_bytes():
    wire = Wire(config(max_line_bytes=100))
    at = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "x": ""}).encode()
    at = at[:-2] + b"x" * (100 - len(at)) + b'"}'
    assert len(at) == 100
    assert wire.raw(at + b"\n")[0]["result"] == {}
    replies = wire.raw(at[:-2] + b'x"}\n' + json.dumps(PING).encode() + b"\n")
    assert replies[0]["error"]["code"] == -32600 and "max_line_bytes" in replies[0]["error"]["message"]
    assert replies[1]["id"] == "next"


@pytest.mark.parametrize("chunk", [1, 7, 10 ** 6])
def test_max_line_bytes_counts_the_line_not_its_crlf(chunk):
    # the same 100-byte line is within the limit whether it ends in \n or \r\n, however
    # the bytes arrive; 101 bytes are over it either way
    wire = Wire(config(max_line_bytes=100))
    at = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "x": ""}).encode()
    at = at[:-2] + b"x" * (100 - len(at)) + b'"}'
    over = at[:-2] + b'x"}'
    data = at + b"\r\n" + at + b"\n" + over + b"\r\n" + over + b"\n" + json.dumps(PING).encode() + b"\r\n"
    out = b"".join(wire.session.receive_data(data[i:i + chunk]) for i in range(0, len(data), chunk))
    replies = [json.loads(x) for x in out.splitlines()]
    assert [r.get("result") == {} for r in replies] == [True, True, False, False, True]
    assert [r["error"]["code"] for r in replies[2:4]] == [-32600, -32600]


def nested(levels):
    value = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {}}}
    inner = value["params"]["_meta"]
    for _ in range(levels - 3):
        inner["x"] = {}
        inner = inner["x"]
    return value


def test_nesting_at_and_past_max_depth():
    wire = Wire(config(max_depth=10))
    assert wire.send(nested(10), PING)[0]["result"] == {}
    replies = wire.send(nested(11), PING)
    assert replies[0] == {"jsonrpc": "2.0", "id": 1, "error": {
        "code": -32600, "message": "Invalid Request: nesting deeper than 10 levels (max_depth)"}}
    assert replies[1]["id"] == "next"


def test_too_deep_message_with_a_bad_id_gets_a_null_id():
    wire = Wire(config(max_depth=4))
    msg = nested(6)
    msg["id"] = True
    assert wire.send(msg)[0]["id"] is None


def test_too_deep_notification_gets_no_reply():
    wire = Wire(config(max_depth=4))
    msg = nested(6)
    del msg["id"]
    assert wire.send(msg, PING) == [{"jsonrpc": "2.0", "id": "next", "result": {}}]


def test_brackets_inside_strings_do_not_count_as_nesting():
    wire = Wire(config(max_depth=4))
    wire.initialize()
    reply = get(wire, {"a0": "[[[[[[{{{{{{"})
    assert reply["result"]["messages"][0]["content"]["text"] == "[[[[[[{{{{{{"


def test_very_deep_json_is_refused_without_crashing():
    wire = Wire(config())
    replies = wire.raw(b"[" * 100000 + b"]" * 100000 + b"\n" + json.dumps(PING).encode() + b"\n")
    assert replies[0] == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": "Invalid Request: nesting deeper than 64 levels (max_depth)"}}
    assert replies[1]["id"] == "next"


@pytest.mark.parametrize("levels", [990, 1000, 5000, 100000])
def test_deep_request_answer_does_not_depend_on_the_recursion_limit(levels):
    # Around and past the interpreter's recursion limit the answer is the same: the id is
    # read from the top level, the nesting refused (CPython and PyPy parsers give up at
    # different depths; the server never asks them to).
    wire = Wire(config())
    line = b'{"jsonrpc":"2.0","id":7,"method":"ping","params":' + b'{"a":' * levels + b"1" + \
        b"}" * levels + b"}"
    replies = wire.raw(line + b"\n" + json.dumps(PING).encode() + b"\n")
    assert replies[0]["id"] == 7 and replies[0]["error"]["code"] == -32600
    assert "max_depth" in replies[0]["error"]["message"]
    assert replies[1]["id"] == "next"


@pytest.mark.parametrize("line", [
    b'{"jsonrpc":"2.0","id":7,"method":"ping","params":' + b"[" * 100 + b"]" * 99 + b"}",
    b'{"jsonrpc":"2.0","id":7,"method":"ping","params":' + b"[" * 100 + b"]" * 101 + b"}",
    b'{"jsonrpc":"2.0","id":7,"method":"ping","params":' + b"[" * 100 + b"]" * 100,
    b'{"jsonrpc":"2.0","id":7 "method":"ping","params":' + b"[" * 100 + b"]" * 100 + b"}",
])
def test_deep_line_that_is_not_json_is_a_parse_error(line):
    wire = Wire(config())
    replies = wire.raw(line + b"\n" + json.dumps(PING).encode() + b"\n")
    assert replies[0]["id"] is None and replies[0]["error"]["code"] == -32700
    assert replies[1]["id"] == "next"


@pytest.mark.parametrize("tail", [b"", b"\\"])
def test_unterminated_string_of_escaped_quotes_in_a_deep_line_is_answered(tail):
    # The nesting scan must stay linear here: a quadratic one took minutes on 80 KB,
    # and this line is 2 MB (the test would hang, not fail an assertion on time).
    wire = Wire(config())
    line = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":' + b"[" * 70 + b'"' + b'\\"' * 10 ** 6 + tail
    replies = wire.raw(line + b"\n" + json.dumps(PING).encode() + b"\n")
    assert replies[0]["id"] is None and replies[0]["error"]["code"] == -32700
    assert replies[1]["id"] == "next"


def test_one_deep_item_in_a_batch_costs_its_siblings_nothing():
    wire = Wire(config(max_depth=8))
    wire.initialize("2025-03-26")
    deep = nested(12)
    deep["id"] = 2
    quiet = nested(12)
    del quiet["id"]
    batch = [{"jsonrpc": "2.0", "id": 1, "method": "ping"}, deep, 5, quiet,
             {"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"_meta": {"a": [[1]]}}}]
    [replies] = wire.send(batch)
    by_id = {r["id"]: r for r in replies}
    assert sorted(by_id, key=str) == [1, 2, 3, None]
    assert by_id[1]["result"] == {} and by_id[3]["result"] == {}
    assert by_id[2]["error"] == {"code": -32600, "message": "Invalid Request: nesting deeper than 8 levels (max_depth)"}
    assert by_id[None]["error"]["code"] == -32600
    # a batch that is invalid JSON inside one item is still a parse error as a whole
    bad = json.dumps(batch).encode()[:-1].replace(b'"ping"}', b'"ping" x}', 1) + b"]"
    assert wire.raw(bad + b"\n")[0]["error"]["code"] == -32700


DEEP = b"[" * 70 + b"]" * 70


@pytest.mark.parametrize("line, rid, code", [
    (b'{"jsonrpc":"2.0","id":[1],"method":"ping","params":{"x":' + DEEP + b"}}", None, -32600),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping","params":{"x":' + DEEP + b"}}", None, -32600),
    (b'{"jsonrpc":"2.0","params":{"x":' + DEEP + b"}}", None, -32600),  # no id, no method
    (b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":' + b"[" * 70 + b"}" * 70 + b"}}", None, -32700),
    (b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":' + DEEP[:-1] + b'"\xff"]}}', None, -32700),
])
def test_deep_lines_read_like_shallow_ones_at_the_top_level(line, rid, code):
    # a container id is no id (never 0 or anything else made up); brackets that do not
    # pair and invalid UTF-8 are parse errors, deep or not
    wire = Wire(config())
    replies = wire.raw(line + b"\n" + json.dumps(PING).encode() + b"\n")
    assert replies[0]["id"] == rid and replies[0]["error"]["code"] == code, replies[0]
    assert replies[1]["id"] == "next"


def test_deep_response_from_the_client_gets_no_reply():
    wire = Wire(config(max_depth=4))
    msg = nested(6)
    del msg["method"]
    msg["result"] = msg.pop("params")
    assert wire.send(msg, PING) == [{"jsonrpc": "2.0", "id": "next", "result": {}}]


def test_brackets_in_strings_with_escaped_quotes_do_not_count():
    wire = Wire(config(max_depth=4))
    wire.initialize()
    text = '\\"[[[[[[\\"{{{{{{"'
    reply = get(wire, {"a0": text})
    assert reply["result"]["messages"][0]["content"]["text"] == text


def test_batch_at_and_past_max_batch():
    wire = Wire(config(max_batch=3))
    wire.initialize("2025-03-26")
    batch = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(3)]
    assert len(wire.send(batch)[0]) == 3
    replies = wire.send(batch + [{"jsonrpc": "2.0", "id": 3, "method": "ping"}], PING)
    assert replies[0]["error"] == {"code": -32600, "message":
                                   "Invalid Request: batch of 4 exceeds the limit of 3 (max_batch)"}
    assert replies[1]["id"] == "next"


def test_argument_count_at_and_past_max_arguments():
    wire = Wire(config(max_arguments=5))
    wire.initialize()
    assert "result" in get(wire, {"a%d" % i: "v" for i in range(5)})
    error = get(wire, dict({"a%d" % i: "v" for i in range(5)}, big="v"))["error"]
    assert error == {"code": -32602, "message": "Invalid params: 6 arguments exceed the limit of 5 (max_arguments)"}


def test_argument_bytes_at_and_past_max_argument_bytes():
    wire = Wire(config(max_argument_bytes=100))
    wire.initialize()
    assert "result" in get(wire, {"big": "x" * 97})  # 3 + 97 bytes
    error = get(wire, {"big": "\u00e9" * 49})["error"]  # 3 + 98 bytes
    assert error == {"code": -32602, "message":
                     "Invalid params: arguments of 101 bytes exceed the limit of 100 (max_argument_bytes)"}


def test_rendered_size_at_and_past_max_render_bytes():
    wire = Wire(config(max_render_bytes=1000))
    wire.initialize()
    assert "result" in get(wire, {"big": "x" * 1000})
    error = get(wire, {"big": "x" * 1001})["error"]
    assert error == {"code": -32602, "message": "Invalid params: the rendered prompt (1001 characters) exceeds "
                                                "the limit of 1000 (max_render_bytes)"}


def test_render_callable_output_is_bounded_too():
    wire = Wire({"limits": {"max_render_bytes": 10}, "prompts": [{"name": "r", "render": lambda a: "y" * 11}]})
    wire.initialize()
    assert wire.error("prompts/get", {"name": "r"})["code"] == -32602


def test_server_keyword_overrides_config_limits():
    wire = Wire(config(max_batch=3), limits={"max_batch": 1})
    wire.initialize("2025-03-26")
    batch = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(2)]
    assert wire.send(batch)[0]["error"]["code"] == -32600


def test_limits_are_validated_at_load():
    with pytest.raises(ConfigError) as info:
        load_config({"prompts": [], "limits": {"max_batch": 0, "max_dept": 3, "max_line_bytes": "big"}})
    assert info.value.problems == [
        ("limits.max_dept", "unknown key (did you mean 'max_depth'?)"),
        ("limits.max_line_bytes", "expected an integer, got a string"),
        ("limits.max_batch", "expected an integer of 1 or more, got 0"),
    ]


def test_max_depth_stays_within_what_the_parser_can_take():
    assert load_config({"prompts": [], "limits": {"max_depth": 256}}).limits.max_depth == 256
    with pytest.raises(ConfigError) as info:
        load_config({"prompts": [], "limits": {"max_depth": 257}})
    assert info.value.problems == [("limits.max_depth", "expected an integer of 256 or less, got 257")]


def test_nesting_at_the_highest_max_depth_parses():
    wire = Wire(config(max_depth=256))
    assert wire.send(nested(256), PING)[0]["result"] == {}
    assert wire.send(nested(257))[0]["error"]["code"] == -32600


def test_line_limit_message_quotes_the_limit_in_force_after_replace_config():
    # Bug: a session kept the max_line_bytes it was created with, while its message read
    # the live limit: raised from 100 to 1000, a 240-byte line was refused "longer than
    # the 1000-byte limit". The limit in force is the one applied and the one quoted.
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "x" * 180}).encode()
    assert 200 < len(line) < 1000
    wire = Wire(config(max_line_bytes=100))
    assert wire.raw(line + b"\n")[0]["error"]["message"] == \
        "Invalid Request: line longer than the 100-byte limit (max_line_bytes)"
    wire.server.replace_config(config(max_line_bytes=1000))
    assert wire.raw(line + b"\n") == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
    wire.server.replace_config(config(max_line_bytes=64))
    assert wire.raw(line + b"\n")[0]["error"]["message"] == \
        "Invalid Request: line longer than the 64-byte limit (max_line_bytes)"
    # a partial line held across the change is measured against the limit in force when
    # each piece arrives
    wire.server.replace_config(config(max_line_bytes=1000))
    assert wire.raw(line[:50]) == []
    wire.server.replace_config(config(max_line_bytes=100))
    assert wire.raw(line[50:] + b"\n")[0]["error"]["message"] == \
        "Invalid Request: line longer than the 100-byte limit (max_line_bytes)"
