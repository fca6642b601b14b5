"""One request being served: request-scoped log messages (both eras) and progress()."""

import pytest

from conftest import Wire, modern_wire
from schema_check import SPEC_DIR, check_server_message
import tinymcp


# --- log messages in the handshake era (logging/setLevel) ------------------------------------

def failing_config():
    return {"prompts": [{"name": "bad", "render": lambda a: 1 / 0},
                        {"name": "ok", "messages": [{"role": "user", "text": "fine"}]}]}


def get_lines(wire, name):
    return wire.send({"jsonrpc": "2.0", "id": 99, "method": "prompts/get", "params": {"name": name}})


def test_no_log_messages_before_a_level_is_set():
    wire = Wire(failing_config())
    wire.initialize()
    assert [r.get("method") for r in get_lines(wire, "bad")] == [None]


def test_failure_logged_to_the_client_at_or_above_the_level():
    wire = Wire(failing_config())
    wire.initialize()
    wire.result("logging/setLevel", {"level": "error"})
    note, reply = get_lines(wire, "bad")
    assert note["method"] == "notifications/message"
    assert note["params"]["level"] == "error" and note["params"]["logger"] == "tinymcp"
    assert note["params"]["data"]["errorId"] == reply["error"]["data"]["errorId"]


def test_messages_below_the_level_are_not_sent():
    wire = Wire(failing_config())
    wire.initialize()
    wire.result("logging/setLevel", {"level": "critical"})
    assert [r.get("method") for r in get_lines(wire, "bad")] == [None]
    wire.result("logging/setLevel", {"level": "info"})
    assert [r.get("method") for r in get_lines(wire, "ok")] == [None]  # its note is debug
    wire.result("logging/setLevel", {"level": "debug"})
    assert [r.get("method") for r in get_lines(wire, "ok")] == ["notifications/message", None]


def test_configured_log_level_applies_from_the_start():
    config = failing_config()
    config["log_level"] = "warning"
    wire = Wire(config)
    wire.initialize()
    assert [r.get("method") for r in get_lines(wire, "bad")] == ["notifications/message", None]


def test_log_messages_validate_against_the_schema():
    if not (SPEC_DIR / "2025-11-25").exists():
        pytest.skip("no spec")
    wire = Wire(failing_config())
    wire.initialize()
    wire.result("logging/setLevel", {"level": "debug"})
    note, reply = get_lines(wire, "bad")
    assert check_server_message("2025-11-25", note) == []


# --- log messages in the stateless era (a request's own logLevel) ---------------------------

def test_log_messages_only_when_asked_and_before_the_response():
    m = modern_wire()
    replies = m.modern("prompts/get", {"name": "p000", "arguments": {"topic": "t"}},
                     **{"io.modelcontextprotocol/logLevel": "debug"})
    assert [r.get("method") for r in replies] == ["notifications/message", None]
    note = replies[0]["params"]
    assert note["level"] == "debug" and note["logger"] == "tinymcp" and "p000" in note["data"]
    assert len(m.modern("prompts/get", {"name": "p000", "arguments": {"topic": "t"}})) == 1


def test_log_messages_below_the_level_are_not_sent():
    m = modern_wire()
    replies = m.modern("prompts/get", {"name": "p000", "arguments": {"topic": "t"}},
                     **{"io.modelcontextprotocol/logLevel": "info"})
    assert len(replies) == 1 and "result" in replies[0]


def test_failing_render_logs_an_error_for_that_request_only():
    m = modern_wire({"prompts": [{"name": "bad", "render": lambda a: 1 / 0}]})
    replies = m.modern("prompts/get", {"name": "bad"}, **{"io.modelcontextprotocol/logLevel": "error"})
    assert [r.get("method") for r in replies] == ["notifications/message", None]
    assert replies[0]["params"]["level"] == "error"
    assert replies[0]["params"]["data"]["errorId"] == replies[1]["error"]["data"]["errorId"]


# --- progress --------------------------------------------------------------------------------

def progress_config(steps):
    def render(arguments):
        for step in steps:
            tinymcp.progress(*step)
        return "done"
    return {"prompts": [{"name": "slow", "render": render}]}


def get_with_token(wire, token="tok", version_meta=None):
    meta = {"progressToken": token}
    if version_meta:
        meta.update(version_meta)
    return wire.send({"jsonrpc": "2.0", "id": 5, "method": "prompts/get", "params": {"name": "slow", "_meta": meta}})


def test_progress_notifications_come_in_order_before_the_response():
    wire = Wire(progress_config([(1, 3, "one"), (2, 3), (3, 3, "three")]))
    wire.initialize()
    replies = get_with_token(wire)
    assert [r.get("method") for r in replies] == ["notifications/progress"] * 3 + [None]
    assert [r["params"]["progress"] for r in replies[:3]] == [1, 2, 3]
    assert replies[0]["params"] == {"progressToken": "tok", "progress": 1, "total": 3, "message": "one"}
    assert replies[3]["id"] == 5 and "result" in replies[3]
    if (SPEC_DIR / "2025-11-25").exists():
        assert all(check_server_message("2025-11-25", r) == [] for r in replies[:3])


def test_progress_without_a_token_sends_nothing():
    wire = Wire(progress_config([(1,), (2,)]))
    wire.initialize()
    replies = wire.send({"jsonrpc": "2.0", "id": 5, "method": "prompts/get", "params": {"name": "slow"}})
    assert [r.get("method") for r in replies] == [None]


def test_progress_must_increase():
    wire = Wire(progress_config([(2,), (2,)]), log=lambda *a: None)
    wire.initialize()
    replies = get_with_token(wire)
    assert replies[-1]["error"]["code"] == -32603


@pytest.mark.parametrize("args", [(float("nan"),), ("a",), (True,), (1, float("inf")), (1, None, 5)])
def test_progress_rejects_values_that_are_not_numbers(args):
    wire = Wire(progress_config([args]), log=lambda *a: None)
    wire.initialize()
    replies = get_with_token(wire)
    assert [r.get("method") for r in replies] == [None] and replies[0]["error"]["code"] == -32603


@pytest.mark.parametrize("length, honoured", [(256, True), (257, False)])
def test_a_progress_token_of_more_than_256_characters_is_not_honoured(length, honoured):
    # Bug: a 4 MiB token, repeated in each notification of a render that reports 100 steps,
    # held 0.8 GB for a client that did not read
    wire = Wire(progress_config([(1,), (2,)]))
    wire.initialize()
    replies = get_with_token(wire, "t" * length)
    assert [r.get("method") for r in replies] == ["notifications/progress"] * 2 * honoured + [None]


def test_progress_message_omitted_for_2024_11_05():
    wire = Wire(progress_config([(1, None, "hello")]))
    wire.initialize("2024-11-05")
    assert get_with_token(wire)[0]["params"] == {"progressToken": "tok", "progress": 1}


def test_progress_after_the_response_does_nothing():
    assert tinymcp.progress(1) is False


def test_progress_goes_to_the_request_of_its_own_thread():
    # Two Sessions served from two threads at once: A reports progress while B's request
    # is also being served; the notification must reach A's client under A's token.
    import threading
    a_rendering, b_rendering = threading.Event(), threading.Event()

    def render_a(arguments):
        a_rendering.set()
        assert b_rendering.wait(30)
        tinymcp.progress(1, None, "from A")
        return "A"

    def render_b(arguments):
        b_rendering.set()
        assert a_done.wait(30)
        return "B"

    a_done = threading.Event()
    wires = {"a": Wire({"prompts": [{"name": "slow", "render": render_a}]}),
             "b": Wire({"prompts": [{"name": "slow", "render": render_b}]})}
    replies = {}

    def serve(key, token):
        wires[key].initialize()
        if key == "b":
            assert a_rendering.wait(30)
        replies[key] = get_with_token(wires[key], token)
        if key == "a":
            a_done.set()

    threads = [threading.Thread(target=serve, args=("a", "tokA")),
               threading.Thread(target=serve, args=("b", "tokB"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert [r.get("method") for r in replies["a"]] == ["notifications/progress", None]
    assert replies["a"][0]["params"] == {"progressToken": "tokA", "progress": 1, "message": "from A"}
    assert [r.get("method") for r in replies["b"]] == [None]


def test_progress_in_a_modern_request():
    # (the reply and the notification are checked against the 2026-07-28 schema too)
    wire = Wire(progress_config([(1,)]), validate=True)
    replies = get_with_token(wire, 7, {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                       "io.modelcontextprotocol/clientCapabilities": {}})
    assert replies[0]["params"] == {"progressToken": 7, "progress": 1}
    assert replies[1]["result"]["resultType"] == "complete"


def test_progress_of_an_int_no_float_can_hold_fails_the_request():
    from conftest import Wire
    import tinymcp

    def render(arguments):
        tinymcp.progress(10 ** 400)
        return "x"

    wire = Wire({"prompts": [{"name": "r", "render": render}]})
    wire.initialize()
    reply = wire.request("prompts/get", {"name": "r", "_meta": {"progressToken": "t"}})
    assert reply["error"]["code"] == -32603


# The per-request debug message says "1 message", "2 messages"
def test_the_debug_message_of_a_get_counts_its_messages_in_words():
    two = {"name": "two", "messages": [{"role": "user", "text": "a"}, {"role": "assistant", "text": "b"}]}
    m = modern_wire({"prompts": [{"name": "one", "messages": [{"role": "user", "text": "a"}]}, two]})
    level = {"io.modelcontextprotocol/logLevel": "debug"}
    for name, words in (("one", "1 message"), ("two", "2 messages")):
        note, reply = m.modern("prompts/get", {"name": name}, **level)
        assert note["method"] == "notifications/message" and "result" in reply
        assert note["params"]["data"] == "prompts/get %r: %s" % (name, words)


# progress() returns True when it sent the notification, False when it sent nothing (its docstring,
# and the README's "from inside a render callable")
def test_progress_returns_whether_it_sent_a_notification():
    said = []

    def render(args):
        said.append(tinymcp.progress(1, 2, "half"))
        return "done"
    wire = Wire({"prompts": [{"name": "r", "render": render}]})
    wire.initialize()
    with_token = wire.send({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                            "params": {"name": "r", "_meta": {"progressToken": "t"}}})
    without = wire.send({"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "r"}})
    assert [r.get("method") for r in with_token + without] == ["notifications/progress", None, None]
    assert said == [True, False]
