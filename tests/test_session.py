"""The session, bytes in and bytes out: bad lines, the one exception-to-error boundary, budgets, EOF."""

import functools
import json
import sys

import pytest

from conftest import LISTEN, PING, Wire, limited_config, meta, modern_wire, nested, simple_config
import tinymcp
from tinymcp import Session


# --- bad lines ----------------------------------------------------------------------------

def test_invalid_json_is_parse_error_with_null_id(wire):
    assert wire.raw(b"{nope\n") == [{"jsonrpc": "2.0", "id": None, "error": {
        "code": -32700, "message": "Parse error: Expecting property name enclosed in double quotes: "
                                   "line 1 column 2 (char 1)", "data": {"line": 1}}}]


def test_invalid_utf8_is_parse_error(wire):
    [reply] = wire.raw(b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"\xc3"}\n')
    assert reply["id"] is None and reply["error"]["code"] == -32700


def test_next_line_is_served_after_a_bad_one(wire):
    replies = wire.raw(b'garbage\n{"jsonrpc":"2.0","id":7,"method":"ping"}\n')
    assert [r.get("id") for r in replies] == [None, 7]
    assert replies[1]["result"] == {}


def test_an_error_with_id_null_names_the_line_it_answers(wire):
    # (the --connect bridge matched such an error to a request by guesswork: the line's
    # number among those read, blank ones too, tells it which; a batch is one line)
    lines = [b'{"jsonrpc":"2.0","id":1,"method":"ping"}', b"  ", b"nope", b'{"jsonrpc":"2.0","id":1.5}',
             b'[{"jsonrpc":"2.0","id":2,"method":"ping"}]', b'{"jsonrpc":"2.0","id":3,"method":"ping"}\r', b"]"]
    replies = wire.raw(b"\n".join(lines) + b"\n")
    assert [(r.get("id"), r.get("error", {}).get("data")) for r in replies] == [
        (1, None), (None, {"line": 3}), (None, {"line": 4}), (None, {"line": 5}), (3, None), (None, {"line": 7})]


@pytest.mark.parametrize("message", [1, "x", None, True])
def test_non_object_is_invalid_request(wire, message):
    [reply] = wire.send(message)
    assert reply == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": "Invalid Request: expected a JSON object", "data": {"line": 1}}}


@pytest.mark.parametrize("rid", [None, True, False, 1.5, {}, []])
def test_bad_ids_are_invalid_requests(wire, rid):
    [reply] = wire.send({"jsonrpc": "2.0", "id": rid, "method": "ping"})
    assert reply["id"] is None
    assert reply["error"]["code"] == -32600


@pytest.mark.parametrize("rid", [0, -1, 2 ** 70, "", "abc", "1"])
def test_ids_are_echoed_with_their_exact_type(wire, rid):
    [reply] = wire.send({"jsonrpc": "2.0", "id": rid, "method": "ping"})
    assert reply["id"] == rid and type(reply["id"]) is type(rid)


def test_wrong_jsonrpc_version_echoes_valid_id(wire):
    [reply] = wire.send({"jsonrpc": "1.0", "id": 4, "method": "ping"})
    assert reply["id"] == 4 and reply["error"]["code"] == -32600


def test_missing_jsonrpc_is_invalid_request(wire):
    [reply] = wire.send({"id": 4, "method": "ping"})
    assert reply["id"] == 4 and reply["error"]["code"] == -32600


@pytest.mark.parametrize("method", [None, 3, ["ping"]])
def test_bad_method_is_invalid_request(wire, method):
    [reply] = wire.send({"jsonrpc": "2.0", "id": 4, "method": method})
    assert reply["id"] == 4 and reply["error"]["code"] == -32600


def test_request_without_method_is_invalid_request(wire):
    [reply] = wire.send({"jsonrpc": "2.0", "id": 4})
    assert reply["error"]["code"] == -32600


def test_notifications_never_get_a_reply(wire):
    assert wire.send({"jsonrpc": "2.0", "method": "nope"}) == []
    assert wire.send({"jsonrpc": "2.0", "method": "prompts/get", "params": {"name": 5}}) == []
    assert wire.send({"jsonrpc": "2.0", "method": "nope", "params": None}) == []
    # (JSON-RPC 2.0 section 4.2: params may be an array too)
    assert wire.send({"jsonrpc": "2.0", "method": "notifications/initialized", "params": []}) == []


@pytest.mark.parametrize("msg, why", [
    ({"jsonrpc": "2.0", "method": 1, "params": "bar"}, "method must be a string"),  # (JSON-RPC 2.0 section 7's)
    ({"jsonrpc": "1.0", "method": "nope"}, '"jsonrpc" must be "2.0"'),
    ({"method": "nope"}, '"jsonrpc" must be "2.0"'),
    ({"jsonrpc": "2.0", "method": "prompts/get", "params": 5}, "params must be an object or an array"),
    ({"jsonrpc": "2.0", "method": None}, "method must be a string"),
    ({"jsonrpc": "2.0"}, "no method"),
])
def test_an_invalid_request_object_without_an_id_is_no_notification_and_is_refused(wire, msg, why):
    # JSON-RPC 2.0 section 4.1: a notification is a Request object without an id; section 7's
    # example answers {"jsonrpc": "2.0", "method": 1, "params": "bar"} -32600, id null
    assert wire.send(msg, PING) == [{"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": "Invalid Request: " + why, "data": {"line": 1}}},
        {"jsonrpc": "2.0", "id": "next", "result": {}}]


def test_client_responses_are_ignored(wire):
    assert wire.send({"jsonrpc": "2.0", "id": 1, "result": {}}) == []
    assert wire.send({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "x"}}) == []


def test_too_deep_message_with_a_bad_id_gets_a_null_id():
    wire = Wire(limited_config(max_depth=4))
    msg = nested(6)
    msg["id"] = True
    assert wire.send(msg)[0]["id"] is None


def test_too_deep_messages_are_answered_with_a_null_id_and_the_next_line_is_served():
    # (whether it is a notification or a response cannot be read without decoding it:
    # JSON-RPC answers with id null when the id cannot be read)
    wire = Wire(limited_config(max_depth=4))
    notification, response = nested(6), nested(6)
    del notification["id"]
    del response["method"]
    response["result"] = response.pop("params")
    error = {"code": -32600, "message": "Invalid Request: nesting deeper than 4 levels (max_depth)"}
    assert wire.send(nested(6), notification, response, PING) == [
        {"jsonrpc": "2.0", "id": None, "error": dict(error, data={"line": n})} for n in (1, 2, 3)] + [
        {"jsonrpc": "2.0", "id": "next", "result": {}}]


# --- the exception-to-error boundary -------------------------------------------------------

@pytest.mark.parametrize("render", [lambda a: 1 / 0, lambda a: 42, lambda a: [{"role": "system", "text": "x"}]])
def test_failing_render_is_internal_error_with_logged_id(render):
    logged = []
    wire = Wire({"prompts": [{"name": "r", "render": render}]},
                log=lambda level, msg, exc=None: logged.append((level, msg, exc)))
    wire.initialize()
    error = wire.get("r")["error"]
    assert error["code"] == -32603
    assert error["message"] == "Internal error"  # fixed: the id is in data, the details on stderr
    assert "Traceback" not in json.dumps(error)
    [(level, msg, exc)] = logged
    assert level == "error" and error["data"]["errorId"] in msg and exc is not None
    assert wire.result("ping") == {}


def _raising(exc):
    def callable_(*args):
        raise exc
    return callable_


@pytest.mark.parametrize("exc", [SystemExit(3), KeyboardInterrupt(), GeneratorExit()])
def test_a_callable_raising_systemexit_or_keyboardinterrupt_is_internal_error_in_line(exc):
    # Bug: they went through the boundary, ending whatever drove the session (exit 3, -2, 1).
    logged = []
    wire = Wire({"prompts": [
        {"name": "r", "render": _raising(exc)},
        {"name": "c", "arguments": [{"name": "a", "complete": _raising(exc)}],
         "messages": [{"role": "user", "text": "{a}"}]}]},
        log=lambda level, msg, exc=None: logged.append((level, msg, exc)))
    assert wire.session.executor is None  # callables run in line, in receive_data
    wire.initialize()
    for error in (wire.get("r")["error"], wire.complete("a", "", name="c")["error"]):
        assert error["code"] == -32603 and error["message"] == "Internal error"
    assert [type(cause) for _, _, cause in logged] == [type(exc)] * 2
    assert wire.result("ping") == {}


@pytest.mark.parametrize("exc", [SystemExit(3), KeyboardInterrupt(), ValueError()])
def test_a_log_hook_that_raises_loses_its_line_never_an_answer(exc):
    # Bug: SystemExit and KeyboardInterrupt from the hook ended whatever drove the session
    wire = Wire({"prompts": [{"name": "r", "render": lambda a: 1 / 0}]}, log=_raising(exc))
    wire.initialize()
    assert wire.get("r")["error"]["code"] == -32603
    assert wire.result("ping") == {}


def test_a_log_hook_that_cannot_be_called_is_refused_at_once():
    # (it was taken, and every diagnostic lost without a word: each call failed inside the hook's guard)
    for make in (tinymcp.Server, Session):
        with pytest.raises(TypeError, match=r"log must be callable as log\(level, message, exc=None\), got the string 'stderr'"):
            make({"prompts": []}, log="stderr")
    # (nor one that takes fewer arguments: `log=lambda message: ...` lost every diagnostic too)
    class Hook:
        def two(self, level, message):
            pass

        def three(self, level, message, exc=None):
            pass
    for hook, told in ((lambda message: None, "a function that takes 1 argument"),
                       (Hook().two, "a method that takes 2 arguments")):
        with pytest.raises(TypeError, match=r"^log must be callable as log\(level, message, exc=None\), "
                                            r"got %s$" % told):
            tinymcp.Server({"prompts": []}, log=hook)
    for hook in (Hook().three, lambda *args: None, print, functools.partial(print, file=sys.stderr)):
        tinymcp.Server({"prompts": []}, log=hook)  # (what it takes, or nothing said: taken)


def test_a_reply_that_cannot_be_encoded_becomes_an_internal_error():
    logged = []
    wire = Wire({"prompts": [{"name": "nan", "render": lambda a: [{"role": "user", "content": {
        "type": "text", "text": "x", "_meta": {"v": float("nan")}}}]}]},
        log=lambda *a: logged.append(a))
    wire.initialize()
    replies = wire.send({"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "nan"}},
                        {"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert replies[0]["id"] == 1 and replies[0]["error"]["code"] == -32603
    assert replies[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert logged


def test_session_accepts_a_plain_config_dict():
    session = Session(simple_config())
    out = session.receive_data(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    assert [json.loads(x) for x in out.split(b"\n") if x] == [
        {"jsonrpc": "2.0", "id": 1, "result": {}}]


# --- budgets ------------------------------------------------------------------------------

def test_a_cancel_read_with_its_request_drops_the_reply(wire):
    wire.initialize()
    data = b"".join(json.dumps(m).encode() + b"\n" for m in (
        {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "p000", "arguments": {"topic": "x"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}},
        {"jsonrpc": "2.0", "id": 4, "method": "ping"}))
    out = wire.session.receive_data(data)
    assert [json.loads(x)["id"] for x in out.splitlines()] == [4]


def test_a_budget_returns_what_is_served_and_holds_the_rest(wire):
    # (a cancel held back behind a reply the budget let out comes too late to drop it: a
    # race cancellation allows, "Behavior Requirements")
    wire.initialize()
    data = b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % n for n in range(3))
    data += b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}\n'
    out = wire.session.receive_data(data, 1)
    assert [json.loads(x)["id"] for x in out.splitlines()] == [0] and wire.session.pending == 3
    out = wire.session.resume(1) + wire.session.resume(1)
    assert [json.loads(x)["id"] for x in out.splitlines()] == [1, 2]
    assert wire.session.resume(1) == b"" and wire.session.pending == 0


def test_turn_over_is_asked_after_each_line_and_holds_the_rest(wire):
    wire.initialize()
    data = b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % n for n in range(5))
    asked = []

    def turn_over():
        asked.append(len(asked))
        return len(asked) == 2  # the turn ends after the second line

    out = wire.session.receive_data(data, None, turn_over)
    assert [json.loads(x)["id"] for x in out.splitlines()] == [0, 1]
    assert (asked, wire.session.pending) == ([0, 1], 3)
    out = wire.session.resume(None, lambda: True)  # still one line a call
    assert [json.loads(x)["id"] for x in out.splitlines()] == [2]
    out = wire.session.resume()
    assert [json.loads(x)["id"] for x in out.splitlines()] == [3, 4]


# --- the end: EOF, and the server ending listen streams -------------------------------------

def test_server_ending_streams_sends_cancelled_then_result():
    # cancelled while the request is still in progress (cancellation "Behavior
    # Requirements"), tagged like everything on the stream; then the graceful result
    m = modern_wire(list_changed=True)
    m.modern("subscriptions/listen", LISTEN, rid=3)
    cancelled, result = m.decode(m.session.end_streams())
    assert result == {"jsonrpc": "2.0", "id": 3, "result": {
        "resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": 3,
                                            "io.modelcontextprotocol/serverInfo": {"name": "tinymcp",
                                                                                   "version": tinymcp.__version__}}}}
    assert cancelled == {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
        "requestId": 3, "reason": "server shutting down", "_meta": {"io.modelcontextprotocol/subscriptionId": 3}}}
    assert m.session.streams == {}


def test_eof_ends_open_streams_so_every_request_read_is_answered():
    m = modern_wire(list_changed=True)
    m.modern("subscriptions/listen", LISTEN, rid=3)
    m.modern("subscriptions/listen", LISTEN, rid=4)
    m.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}})
    replies = m.decode(m.session.receive_data(b""))
    assert [(r.get("id"), r.get("method")) for r in replies] == [(None, "notifications/cancelled"), (3, None)]
    assert replies[1]["result"]["resultType"] == "complete"
    assert m.session.streams == {}


def test_eof_ends_streams_when_a_budget_held_lines_back_until_then():
    # the last lines are served after EOF under a budget: the open stream ends after them
    m = modern_wire(list_changed=True)
    m.modern("subscriptions/listen", LISTEN, rid=3)
    meta_ = meta()
    data = b"".join(json.dumps(x).encode() + b"\n" for x in (
        {"jsonrpc": "2.0", "id": 10, "method": "prompts/list", "params": {"_meta": meta_}},
        {"jsonrpc": "2.0", "id": 11, "method": "prompts/list", "params": {"_meta": meta_}}))
    first = m.decode(m.session.receive_data(data, 1))
    assert [r.get("id") for r in first] == [10] and m.session.pending == 1
    last = m.decode(m.session.receive_data(b"", 1))
    assert [(r.get("id"), r.get("method")) for r in last] == [(11, None), (None, "notifications/cancelled"), (3, None)]


def test_bytes_like_input_is_served_as_bytes():
    from conftest import Wire
    from conftest import simple_config
    wire = Wire(simple_config())
    out = wire.session.receive_data(bytearray(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'))
    assert out == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'
    out = wire.session.receive_data(memoryview(b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n'))
    assert out == b'{"jsonrpc":"2.0","id":2,"result":{}}\n'


def test_eof_ends_streams_only_after_every_line_a_budget_held_back():
    # at EOF with two lines still held back, the stream ends after the last of them
    m = modern_wire(list_changed=True)
    m.modern("subscriptions/listen", LISTEN, rid=3)
    data = b"".join(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "prompts/list",
                                "params": {"_meta": meta()}}).encode() + b"\n" for rid in (10, 11, 12))
    out = m.session.receive_data(data, 1)
    out += m.session.receive_data(b"", 1)
    while m.session.pending:
        out += m.session.resume(1)
    replies = m.decode(out)
    assert [(r.get("id"), r.get("method")) for r in replies] == [
        (10, None), (11, None), (12, None), (None, "notifications/cancelled"), (3, None)]


# Only notifications/cancelled cancels, and only with an object of params; another notification naming
# a requestId dropped that request's reply, and a cancel with list params was answered -32603 (a
# notification is never answered)
def test_only_a_cancel_with_an_object_of_params_cancels_and_no_notification_is_answered(wire):
    wire.initialize()
    replies = wire.send(
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"requestId": 1, "progress": 1}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": [1]},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert replies == [{"jsonrpc": "2.0", "id": 1, "result": {}}, {"jsonrpc": "2.0", "id": 2, "result": {}}]
