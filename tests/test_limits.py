"""Every limit: a test at the limit and one past it; past it, an error naming it and the next line served."""

import json
import re
from pathlib import Path

import pytest

from conftest import PING, Wire, limited_config, nested, problems
from tinymcp import ConfigError, Server, load_config
from tinymcp.model.limits import Limits
from tinymcp.model.template import Template


def get(wire, arguments):
    replies = wire.send({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                         "params": {"name": "p", "arguments": arguments}}, PING)
    assert replies[-1] == {"jsonrpc": "2.0", "id": "next", "result": {}}
    return replies[0]


def test_line_at_and_past_max_line_bytes():
    wire = Wire(limited_config(max_line_bytes=100))
    at = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "x": ""}).encode()
    at = at[:-2] + b"x" * (100 - len(at)) + b'"}'
    assert len(at) == 100
    assert wire.raw(at + b"\n")[0]["result"] == {}
    replies = wire.raw(at[:-2] + b'x"}\n' + json.dumps(PING).encode() + b"\n")
    assert replies[0]["error"] == {"code": -32600, "message": "Invalid Request: line longer than the 100-byte "
                                   "limit (max_line_bytes)", "data": {"line": 2}}
    assert replies[1] == {"jsonrpc": "2.0", "id": "next", "result": {}}


@pytest.mark.parametrize("chunk", [1, 7, 10 ** 6])
def test_max_line_bytes_counts_the_line_not_its_crlf(chunk):
    # the same 100-byte line is within the limit whether it ends in \n or \r\n, however
    # the bytes arrive; 101 bytes are over it either way
    wire = Wire(limited_config(max_line_bytes=100))
    at = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "x": ""}).encode()
    at = at[:-2] + b"x" * (100 - len(at)) + b'"}'
    over = at[:-2] + b'x"}'
    data = at + b"\r\n" + at + b"\n" + over + b"\r\n" + over + b"\n" + json.dumps(PING).encode() + b"\r\n"
    out = b"".join(wire.session.receive_data(data[i:i + chunk]) for i in range(0, len(data), chunk))
    replies = [json.loads(x) for x in out.splitlines()]
    assert [r.get("result") == {} for r in replies] == [True, True, False, False, True]
    assert [r["error"]["code"] for r in replies[2:4]] == [-32600, -32600]


def test_line_limit_message_quotes_the_limit_in_force_after_replace_config():
    # Bug: a session kept the max_line_bytes it was created with, while its message read
    # the live limit: raised from 100 to 1000, a 240-byte line was refused "longer than
    # the 1000-byte limit". The limit in force is the one applied and the one quoted.
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "x" * 180}).encode()
    assert 200 < len(line) < 1000
    wire = Wire(limited_config(max_line_bytes=100))
    assert wire.raw(line + b"\n")[0]["error"]["message"] == \
        "Invalid Request: line longer than the 100-byte limit (max_line_bytes)"
    wire.server.replace_config(limited_config(max_line_bytes=1000))
    assert wire.raw(line + b"\n") == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
    wire.server.replace_config(limited_config(max_line_bytes=64))
    assert wire.raw(line + b"\n")[0]["error"]["message"] == \
        "Invalid Request: line longer than the 64-byte limit (max_line_bytes)"
    # a partial line held across the change is measured against the limit in force when
    # each piece arrives
    wire.server.replace_config(limited_config(max_line_bytes=1000))
    assert wire.raw(line[:50]) == []
    wire.server.replace_config(limited_config(max_line_bytes=100))
    assert wire.raw(line[50:] + b"\n")[0]["error"]["message"] == \
        "Invalid Request: line longer than the 100-byte limit (max_line_bytes)"


def test_nesting_at_and_past_max_depth():
    wire = Wire(limited_config(max_depth=10))
    assert wire.send(nested(10), PING)[0]["result"] == {}
    replies = wire.send(nested(11), PING)
    assert replies[0] == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": "Invalid Request: nesting deeper than 10 levels (max_depth)", "data": {"line": 3}}}
    assert replies[1]["id"] == "next"
    # (more brackets than levels: the depth is measured, not the brackets counted)
    wire = Wire(limited_config(max_depth=4))
    assert wire.send({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {}, "a": {"b": {}}}}) == [
        {"jsonrpc": "2.0", "id": 1, "result": {}}]


def test_nesting_at_the_highest_max_depth_parses():
    wire = Wire(limited_config(max_depth=256))
    assert wire.send(nested(256), PING)[0]["result"] == {}
    assert wire.send(nested(257))[0]["error"]["code"] == -32600


def test_very_deep_json_is_refused_without_crashing():
    wire = Wire(limited_config(max_line_values=10 ** 6))
    replies = wire.raw(b"[" * 100000 + b"]" * 100000 + b"\n" + json.dumps(PING).encode() + b"\n")
    assert replies[0] == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": "Invalid Request: nesting deeper than 64 levels (max_depth)", "data": {"line": 1}}}
    assert replies[1]["id"] == "next"


def values_line(values, rid=1):
    """A ping whose params hold ``values`` values and keys in all (with its own)."""
    head = b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"v":[' % rid  # 11 of them
    return head + b",".join([b"0"] * (values - 11)) + b"]}}"


def test_max_line_values_is_the_values_and_keys_of_one_message():
    wire = Wire(limited_config(max_line_values=1000))
    assert wire.raw(values_line(1000) + b"\n")[0]["result"] == {}
    replies = wire.raw(values_line(1001, rid=2) + b"\n" + json.dumps(PING).encode() + b"\n")
    assert replies[0] == {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request: "
                          "more than 1000 values and keys in one message (max_line_values)", "data": {"line": 2}}}
    assert replies[1]["id"] == "next"


@pytest.mark.parametrize("body, counted", [
    (b'"a,b:c[d{e"', 1),                       # what strings hold is not counted
    (b'"a\\\\",[1,{"b":"\\",:"}]', 6),        # nor what follows an escaped backslash or quote
    (b'[[],{},[[]]]', 8),                      # (an empty container counts as one more)
])
def test_values_are_counted_outside_strings(body, counted):
    from tinymcp.errors import ParseError
    from tinymcp.protocol.jsonrpc import Refused, read_line

    def refused(limit):
        try:
            return type(read_line(line, Limits(max_line_values=limit))) is Refused
        except ParseError:
            return False  # (read, and found not to be JSON)
    line = body + b" " * 100  # (a line no longer than the limit is never counted)
    assert not refused(counted) and refused(counted - 1)


def test_a_batch_with_too_many_values_is_refused_as_a_whole():
    wire = Wire(limited_config(max_line_values=1000))
    wire.initialize("2025-03-26")
    batch = b"[" + b",".join([values_line(300, rid=i) for i in range(4)]) + b"]"
    replies = wire.raw(batch + b"\n")
    assert replies == [{"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request: "
                        "more than 1000 values and keys in one message (max_line_values)", "data": {"line": 3}}}]


def test_a_line_with_too_many_values_is_never_decoded(monkeypatch):
    from tinymcp import codec
    decoded = []
    real = codec.loads
    monkeypatch.setattr(codec, "loads", lambda text, *hook: decoded.append(len(text)) or real(text, *hook))
    wire = Wire(limited_config(max_line_values=1000))
    assert wire.raw(values_line(100000, rid=5) + b"\n")[0]["id"] is None
    assert decoded == []


def test_brackets_inside_strings_do_not_count_as_nesting():
    wire = Wire(limited_config(max_depth=4))
    wire.initialize()
    reply = get(wire, {"a0": "[[[[[[{{{{{{"})
    assert reply["result"]["messages"][0]["content"]["text"] == "[[[[[[{{{{{{"


def test_brackets_in_strings_with_escaped_quotes_do_not_count():
    wire = Wire(limited_config(max_depth=4))
    wire.initialize()
    text = '\\"[[[[[[\\"{{{{{{"'
    reply = get(wire, {"a0": text})
    assert reply["result"]["messages"][0]["content"]["text"] == text


def test_a_line_whose_brackets_are_all_in_a_string_is_no_internal_error():
    # Bug: past max_depth brackets, all inside strings (a bare JSON string), left no
    # bracket to sum: max() of nothing raised, and the line got -32603 Internal error
    wire = Wire(limited_config(max_depth=4))
    line = b'"' + b"[" * 5 + b'"'
    assert wire.raw(line + b"\n" + json.dumps(PING).encode() + b"\n") == [
        {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": "Invalid Request: expected a JSON object", "data": {"line": 1}}},
        {"jsonrpc": "2.0", "id": "next", "result": {}}]


def test_a_batch_nesting_too_deep_is_refused_as_a_whole():
    wire = Wire(limited_config(max_depth=8))
    wire.initialize("2025-03-26")
    assert wire.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"}, nested(12)], PING) == [
        {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": "Invalid Request: nesting deeper than 8 levels (max_depth)",
            "data": {"line": 3}}},
        {"jsonrpc": "2.0", "id": "next", "result": {}}]

def test_batch_at_and_past_max_batch():
    wire = Wire(limited_config(max_batch=3))
    wire.initialize("2025-03-26")
    batch = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(3)]
    assert wire.send(batch)[0] == [{"jsonrpc": "2.0", "id": i, "result": {}} for i in range(3)]
    replies = wire.send(batch + [{"jsonrpc": "2.0", "id": 3, "method": "ping"}], PING)
    assert replies[0]["error"] == {"code": -32600, "message": "Invalid Request: batch of 4 exceeds the limit "
                                   "of 3 (max_batch)", "data": {"line": 4}}
    assert replies[1]["id"] == "next"


def test_argument_count_at_and_past_max_arguments():
    wire = Wire(limited_config(max_arguments=5))
    wire.initialize()
    assert "result" in get(wire, {"a%d" % i: "v" for i in range(5)})
    error = get(wire, dict({"a%d" % i: "v" for i in range(5)}, big="v"))["error"]
    assert error == {"code": -32602, "message": "Invalid params: 6 arguments exceed the limit of 5 (max_arguments)"}


def test_argument_bytes_at_and_past_max_argument_bytes():
    wire = Wire(limited_config(max_argument_bytes=100))
    wire.initialize()
    assert "result" in get(wire, {"big": "x" * 97})  # 3 + 97 bytes
    error = get(wire, {"big": "\u00e9" * 49})["error"]  # 3 + 98 bytes
    assert error == {"code": -32602, "message":
                     "Invalid params: arguments of 101 bytes exceed the limit of 100 (max_argument_bytes)"}


def test_rendered_size_at_and_past_max_render_bytes():
    wire = Wire(limited_config(max_render_bytes=1000))
    wire.initialize()
    assert "result" in get(wire, {"big": "x" * 1000})
    error = get(wire, {"big": "x" * 1001})["error"]
    assert error == {"code": -32602, "message": "Invalid params: the rendered prompt (1001 bytes on the wire) "
                                                "exceeds the limit of 1000 (max_render_bytes)"}


@pytest.mark.parametrize("value, size", [("\u00e9" * 167, 1002), ("\U0001f600" * 84, 1008),
                                         ('"' * 501, 1002), ("\x01" * 167, 1002)])
def test_max_render_bytes_counts_the_escaped_bytes_on_the_wire(value, size):
    wire = Wire(limited_config(max_render_bytes=1000))
    wire.initialize()
    assert "result" in get(wire, {"big": value[:len(value) * 1000 // size]})
    error = get(wire, {"big": value})["error"]
    assert error["message"] == ("Invalid params: the rendered prompt (%d bytes on the wire) exceeds the "
                                "limit of 1000 (max_render_bytes)" % size)


def _repeating(times, max_render_bytes, literal="", default=None):
    arg = {"name": "x"}
    if default is not None:
        arg["default"] = default
    wire = Wire({"limits": {"max_render_bytes": max_render_bytes}, "prompts": [
        {"name": "rep", "arguments": [arg], "messages": [
            {"role": "user", "text": literal + "{x}" * times},
            {"role": "user", "content": {"type": "resource", "resource": {
                "uri": "file:///{x}", "text": "{x}" * times}}}]}]})
    wire.initialize()
    return wire


@pytest.mark.parametrize("value, escaped, in_uri", [("a" * 1000, 1000, 1000), ('"' * 1000, 2000, 3000),
                                                    ("\U0001f600" * 100, 1200, 1200)])
def test_a_value_repeated_past_max_render_bytes_is_refused_with_the_size_it_would_have(value, escaped, in_uri,
                                                                                       monkeypatch):
    # (1000 placeholders of a 1 MiB value was a 1 GB string built before it was measured)
    wire = _repeating(1000, 1000, literal='a"b')
    made = []
    render = Template.render
    monkeypatch.setattr(Template, "render", lambda self, values: made.append(1) or render(self, values))
    error = wire.request("prompts/get", {"name": "rep", "arguments": {"x": value}})["error"]
    assert made == []  # (refused before any text was made)
    # (the text, the resource's text, and its uri, where the value is percent-encoded)
    size = len('a\\"b') + 2000 * escaped + len("file:///") + in_uri
    assert error == {"code": -32602, "message": "Invalid params: the rendered prompt (%d bytes on the wire) "
                                                "exceeds the limit of 1000 (max_render_bytes)" % size}


@pytest.mark.parametrize("value", ["a", "ab"])
def test_repeated_values_within_max_render_bytes_render_as_before(value):
    wire = _repeating(100, 1000, default="d")
    result = wire.request("prompts/get", {"name": "rep", "arguments": {"x": value}})["result"]
    assert result["messages"][0]["content"]["text"] == value * 100
    assert result["messages"][1]["content"]["resource"] == {"uri": "file:///" + value, "text": value * 100,
                                                            "mimeType": "text/plain"}
    result = wire.request("prompts/get", {"name": "rep"})["result"]  # (the default fills them)
    assert result["messages"][0]["content"]["text"] == "d" * 100


def test_a_batch_of_replies_is_bounded_as_a_whole():
    wire = Wire(limited_config(max_render_bytes=70000))
    wire.initialize("2025-03-26")
    big = {"name": "p", "arguments": {"big": "x" * 60000}}
    batch = [{"jsonrpc": "2.0", "id": i, "method": "prompts/get", "params": big} for i in range(4)]
    replies = wire.raw(json.dumps(batch).encode() + b"\n")[0]
    assert ["result" in r for r in replies] == [True, True, False, False]
    assert replies[2]["error"] == {"code": -32602, "message": "Invalid params: this reply would take the "
                                   "batch's replies past 135536 bytes (max_render_bytes)"}


def test_a_batch_of_replies_may_take_exactly_its_bound():
    wire = Wire(limited_config(max_render_bytes=1))  # (the bound: 1 byte and 65,536 for the JSON)
    wire.initialize("2025-03-26")

    def size(rid):
        return len(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {}}, separators=(",", ":"))) + 1
    ids = [str(i) for i in range(99)]
    ids.append("x" * (1 + 65536 - sum(map(size, ids)) - size("")))
    replies = wire.send([{"jsonrpc": "2.0", "id": rid, "method": "ping"} for rid in ids])[0]
    assert [r.get("result") for r in replies] == [{}] * 100


def test_render_callable_output_is_bounded_too():
    wire = Wire({"limits": {"max_render_bytes": 10}, "prompts": [{"name": "r", "render": lambda a: "y" * 11}]})
    wire.initialize()
    assert wire.error("prompts/get", {"name": "r"})["code"] == -32602


def test_limits_are_validated_at_load():
    with pytest.raises(ConfigError) as info:
        load_config({"prompts": [], "limits": {"max_batch": 0, "max_dept": 3, "max_line_bytes": "big"}})
    assert info.value.problems == [
        ("limits.max_dept", "unknown key (did you mean 'max_depth'?)"),
        ("limits.max_line_bytes", "expected an integer, got the string 'big'"),
        ("limits.max_batch", "expected an integer of 1 or more, got 0"),
    ]


def test_max_depth_stays_within_what_the_parser_can_take():
    assert load_config({"prompts": [], "limits": {"max_depth": 256}}).limits.max_depth == 256
    with pytest.raises(ConfigError) as info:
        load_config({"prompts": [], "limits": {"max_depth": 257}})
    assert info.value.problems == [("limits.max_depth", "expected an integer of 256 or less, got 257")]


def test_max_callable_ms_is_at_most_a_day():
    # Bug: unbounded, 10**13 loaded, and the first prompts/get of a callable killed the
    # server (OverflowError from the loop's poll timeout) without an answer
    assert load_config({"prompts": [], "limits": {"max_callable_ms": 86400000}}).limits.max_callable_ms == 86400000
    with pytest.raises(ConfigError) as info:
        load_config({"prompts": [], "limits": {"max_callable_ms": 10 ** 13}})
    assert info.value.problems == [("limits.max_callable_ms", "expected an integer of 86400000 or less, "
                                                              "got 10000000000000")]


def test_a_deep_line_of_quotes_is_answered_at_once():
    # (more strings than max_line_values: cutting them out would cost a piece each)
    wire = Wire(limited_config(max_line_values=1000))
    for n, line in enumerate((b"[" * 100 + b'"' * 1000000, b"[" * 100 + b'"\\' + b'"' * 1000000), 1):
        assert wire.raw(line + b"\n")[0]["error"] == {"code": -32600, "message": "Invalid Request: more than 1000 "
                                                     "values and keys in one message (max_line_values)",
                                                     "data": {"line": n}}


def test_max_line_bytes_is_at_least_64():
    assert load_config({"prompts": [], "limits": {"max_line_bytes": 64}}).limits.max_line_bytes == 64
    with pytest.raises(ConfigError) as info:
        load_config({"prompts": [], "limits": {"max_line_bytes": 63}})
    assert info.value.problems == [("limits.max_line_bytes", "expected an integer of 64 or more, got 63")]


# A backslash takes 2 bytes on the wire; text of backslashes was measured at 1 a character against
# max_render_bytes
def test_max_render_bytes_counts_a_backslash_as_the_two_bytes_it_sends():
    for limit, refused in ((20, False), (19, True)):
        wire = Wire(limited_config(max_render_bytes=limit))
        wire.initialize()
        reply = wire.get("p", {"big": "\\" * 10})
        assert ("error" in reply) is refused, (limit, reply)
    assert reply["error"]["message"] == ("Invalid params: the rendered prompt (20 bytes on the wire) exceeds "
                                         "the limit of 19 (max_render_bytes)")


# An embedded resource's uri counts toward max_render_bytes (docs/security.md: "text, data and URIs")
# for a render callable's result
def test_a_render_callables_resource_uri_counts_toward_max_render_bytes():
    block = {"type": "resource", "resource": {"uri": "file:///" + "u" * 40, "text": "hi"}}
    for limit, refused in ((50, False), (49, True)):
        wire = Wire({"limits": {"max_render_bytes": limit},
                     "prompts": [{"name": "r", "render": lambda a: [{"role": "user", "content": block}]}]})
        wire.initialize()
        assert ("error" in wire.get("r")) is refused, limit


# Limits that are no object: a problem (else a TypeError out of load_config, or, a list, limits silently
# ignored)
@pytest.mark.parametrize("value, described", [(5, "the number 5"), ([], "a list"), ("big", "the string 'big'")])
def test_limits_that_are_no_object_are_a_problem(value, described):
    assert problems({"prompts": [], "limits": value}) == [("limits", "expected an object, got %s" % described)]
    with pytest.raises(ConfigError) as info:
        Server({"prompts": []}, limits=value)
    assert info.value.problems == [("limits", "expected an object, got %s" % described)]


# The smallest value each limit takes
@pytest.mark.parametrize("name, least", [("max_depth", 2), ("max_batch", 1), ("max_render_bytes", 1),
                                         ("max_listen_streams", 1), ("max_line_values", 64),
                                         ("max_arguments", 0), ("max_argument_bytes", 0),
                                         ("max_callable_ms", 0), ("max_folder_depth", 0)])
def test_each_limit_takes_its_least_value_and_no_less(name, least):
    assert getattr(load_config({"prompts": [], "limits": {name: least}}).limits, name) == least
    assert problems({"prompts": [], "limits": {name: least - 1}}) == [
        ("limits." + name, "expected an integer of %d or more, got %d" % (least, least - 1))]


# The defaults are what docs/security.md's table says
def test_the_limits_defaults_are_those_docs_security_md_gives():
    text = (Path(__file__).resolve().parents[1] / "docs" / "security.md").read_text(encoding="utf-8")
    documented = {}
    for name, default in re.findall(r"^\| `(max_\w+)`[^|]*\| ([^|]+)\|", text, re.M):
        number, unit = re.match(r"([\d,]+)\s*(MiB|KiB)?", default.strip()).groups()
        documented[name] = int(number.replace(",", "")) * {"MiB": 1 << 20, "KiB": 1 << 10, None: 1}[unit]
    assert documented == {name: getattr(Limits(), name) for name in Limits.DEFAULTS}
