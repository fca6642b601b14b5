"""completion/complete, logging, progress: the rest of what a prompts server offers (both eras)."""

import json

import pytest

from conftest import Wire
from schema_check import SPEC_DIR, check_server_message
import tinymcp

WORDS = ["alpha", "Beta", "beta", "charlie", "Cobra", "cat", "Cab", "delta"] + ["w%03d" % i for i in range(242)]


def completion_config(**extra):
    prompt = {"name": "pick", "arguments": [
        {"name": "word", "completions": WORDS},
        {"name": "free"},
        {"name": "smart", "complete": lambda value, context: ["%s-%s" % (value, k) for k in sorted(context or {})]},
    ], "messages": [{"role": "user", "text": "{word} {free} {smart}"}]}
    prompt.update(extra)
    return {"prompts": [prompt, {"name": "other", "messages": [{"role": "user", "text": "x"}]}]}


def complete(wire, argument, value, name="pick", context=None, ref_type="ref/prompt"):
    params = {"ref": {"type": ref_type, "name": name}, "argument": {"name": argument, "value": value}}
    if context is not None:
        params["context"] = {"arguments": context}
    return wire.request("completion/complete", params)


# --- completion ------------------------------------------------------------------------

def test_empty_value_gives_the_first_100_of_250():
    wire = Wire(completion_config())
    wire.initialize()
    completion = complete(wire, "word", "")["result"]["completion"]
    assert completion == {"values": WORDS[:100], "total": 250, "hasMore": True}


def test_prefix_is_case_insensitive_with_exact_case_first():
    wire = Wire(completion_config())
    wire.initialize()
    completion = complete(wire, "word", "c")["result"]["completion"]
    assert completion == {"values": ["charlie", "cat", "Cobra", "Cab"], "total": 4, "hasMore": False}
    assert complete(wire, "word", "B")["result"]["completion"]["values"] == ["Beta", "beta"]


def test_argument_without_completions_gives_none():
    wire = Wire(completion_config())
    wire.initialize()
    assert complete(wire, "free", "x")["result"]["completion"] == {"values": [], "total": 0, "hasMore": False}


def test_callable_gets_context_from_2025_06_18():
    wire = Wire(completion_config())
    wire.initialize("2025-06-18")
    values = complete(wire, "smart", "v", context={"word": "alpha", "free": "f"})["result"]["completion"]["values"]
    assert values == ["v-free", "v-word"]


def test_callable_gets_no_context_before_2025_06_18():
    seen = []
    wire = Wire(completion_config(arguments=[{"name": "a", "complete": lambda v, c: seen.append(c) or []}],
                                  messages=[{"role": "user", "text": "{a}"}]))
    wire.initialize("2025-03-26")
    complete(wire, "a", "", context={"a": "x"})
    assert seen == [None]


def test_callable_results_are_capped_at_100():
    wire = Wire(completion_config(arguments=[{"name": "a", "complete": lambda v, c: [str(i) for i in range(150)]}],
                                  messages=[{"role": "user", "text": "{a}"}]))
    wire.initialize()
    completion = complete(wire, "a", "")["result"]["completion"]
    assert len(completion["values"]) == 100 and completion["total"] == 150 and completion["hasMore"] is True


def test_prompt_level_complete_receives_the_argument_name():
    calls = []

    def prompt_complete(argument, value, context):
        calls.append((argument, value))
        return [value + "!"]

    wire = Wire(completion_config(complete=prompt_complete))
    wire.initialize()
    assert complete(wire, "free", "hi")["result"]["completion"]["values"] == ["hi!"]
    assert calls == [("free", "hi")]


@pytest.mark.parametrize("broken", [lambda v, c: 1 / 0, lambda v, c: [1, 2], lambda v, c: None])
def test_failing_complete_callable_is_internal_error(broken):
    logged = []
    wire = Wire(completion_config(arguments=[{"name": "a", "complete": broken}],
                                  messages=[{"role": "user", "text": "{a}"}]),
                log=lambda *a: logged.append(a))
    wire.initialize()
    error = complete(wire, "a", "x")["error"]
    assert error["code"] == -32603 and error["message"] == "Internal error" and error["data"]["errorId"]
    assert len(logged) == 1


def test_unknown_prompt_or_argument_is_invalid_params():
    wire = Wire(completion_config())
    wire.initialize()
    assert complete(wire, "word", "", name="nope")["error"] == {"code": -32602, "message": "Unknown prompt: 'nope'"}
    assert complete(wire, "zzz", "")["error"] == {
        "code": -32602, "message": "Invalid params: prompt 'pick' has no argument 'zzz'"}


def test_resource_refs_are_refused_saying_why():
    wire = Wire(completion_config())
    wire.initialize()
    error = complete(wire, "x", "", ref_type="ref/resource")["error"]
    assert error["code"] == -32602 and "serves no resources" in error["message"]


@pytest.mark.parametrize("params", [
    {}, {"ref": "pick"}, {"ref": {"type": "ref/prompt", "name": 3}, "argument": {"name": "word", "value": ""}},
    {"ref": {"type": "ref/prompt", "name": "pick"}, "argument": {"name": "word"}},
    {"ref": {"type": "ref/prompt", "name": "pick"}, "argument": {"name": "word", "value": 1}},
    {"ref": {"type": "ref/tool", "name": "pick"}, "argument": {"name": "word", "value": ""}},
    {"ref": {"type": "ref/prompt", "name": "pick"}, "argument": {"name": "word", "value": ""},
     "context": {"arguments": {"a": 1}}},
])
def test_malformed_completion_params_are_invalid(params):
    wire = Wire(completion_config())
    wire.initialize("2025-11-25")
    assert wire.error("completion/complete", params)["code"] == -32602


def test_2024_11_05_clients_are_answered_too():
    wire = Wire(completion_config())
    wire.initialize("2024-11-05")
    assert complete(wire, "word", "d")["result"]["completion"]["values"] == ["delta"]


def test_modern_completion_has_result_type():
    wire = Wire(completion_config())
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}
    result = wire.result("completion/complete", {
        "_meta": meta, "ref": {"type": "ref/prompt", "name": "pick"}, "argument": {"name": "word", "value": "a"},
        "context": {"arguments": {"free": "x"}}})
    assert result["resultType"] == "complete" and result["completion"]["values"] == ["alpha"]
    if (SPEC_DIR / "2026-07-28").exists():
        assert check_server_message("2026-07-28", {"jsonrpc": "2.0", "id": 1, "result": result},
                                    "completion/complete") == []


def test_completions_list_must_hold_strings():
    with pytest.raises(tinymcp.ConfigError) as info:
        tinymcp.load_config({"prompts": [{"name": "p", "arguments": [{"name": "a", "completions": ["x", 2]}],
                                          "messages": [{"role": "user", "text": "{a}"}]}]})
    assert info.value.problems == [("prompts[0].arguments[0].completions[1]", "expected a string, got the number 2")]


# --- logging (handshake era) --------------------------------------------------------------

def failing_config():
    return {"prompts": [{"name": "bad", "render": lambda a: 1 / 0},
                        {"name": "ok", "messages": [{"role": "user", "text": "fine"}]}]}


def get_lines(wire, name):
    return wire.send({"jsonrpc": "2.0", "id": 99, "method": "prompts/get", "params": {"name": name}})


@pytest.mark.parametrize("level", ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"])
def test_set_level_accepts_the_eight_levels(level):
    wire = Wire(failing_config())
    wire.initialize()
    assert wire.result("logging/setLevel", {"level": level}) == {}


@pytest.mark.parametrize("level", ["verbose", "ERROR", 3, None, ""])
def test_set_level_rejects_anything_else(level):
    wire = Wire(failing_config())
    wire.initialize()
    assert wire.error("logging/setLevel", {"level": level})["code"] == -32602


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


def test_server_events_reach_sessions_at_their_level():
    wire = Wire(failing_config())
    assert wire.session.log_event("error", {"event": "reload failed"}) == b""  # not initialized
    wire.initialize()
    assert wire.session.log_event("error", {"event": "reload failed"}) == b""  # no level set
    wire.result("logging/setLevel", {"level": "notice"})
    assert json.loads(wire.session.log_event("notice", {"event": "reloaded"}))["params"] == {
        "level": "notice", "logger": "tinymcp", "data": {"event": "reloaded"}}
    assert wire.session.log_event("info", "quiet") == b""


def test_log_messages_validate_against_the_schema():
    if not (SPEC_DIR / "2025-11-25").exists():
        pytest.skip("no spec")
    wire = Wire(failing_config())
    wire.initialize()
    wire.result("logging/setLevel", {"level": "debug"})
    note, reply = get_lines(wire, "bad")
    assert check_server_message("2025-11-25", note) == []


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
    wire = Wire(progress_config([(1,)]))
    replies = get_with_token(wire, 7, {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                       "io.modelcontextprotocol/clientCapabilities": {}})
    assert replies[0]["params"] == {"progressToken": 7, "progress": 1}
    assert replies[1]["result"]["resultType"] == "complete"


def test_argument_completions_win_over_the_prompt_callable():
    wire = Wire({"prompts": [{"name": "p", "complete": lambda name, value, ctx: ["FROM_PROMPT"],
                              "arguments": [{"name": "a", "completions": ["apple", "avocado"]}, {"name": "b"}],
                              "messages": [{"role": "user", "text": "{a}{b}"}]}]})
    wire.initialize()
    assert complete(wire, "a", "a", name="p")["result"]["completion"]["values"] == ["apple", "avocado"]
    assert complete(wire, "b", "", name="p")["result"]["completion"]["values"] == ["FROM_PROMPT"]


@pytest.mark.parametrize("args", [(float("nan"),), ("a",), (True,), (1, float("inf")), (1, None, 5)])
def test_progress_rejects_values_that_are_not_numbers(args):
    wire = Wire(progress_config([args]), log=lambda *a: None)
    wire.initialize()
    replies = get_with_token(wire)
    assert [r.get("method") for r in replies] == [None] and replies[0]["error"]["code"] == -32603


def test_conformance_fixture_prompt_with_arguments_and_completion():
    # the shape of the MCP conformance suite's prompts-get-with-args and completion scenarios
    wire = Wire({"prompts": [{"name": "test_prompt_with_arguments", "description": "A prompt with required arguments",
                              "arguments": [{"name": "arg1", "description": "First test argument", "required": True,
                                             "completions": ["paris", "park", "python"]},
                                            {"name": "arg2", "description": "Second test argument", "required": True}],
                              "messages": [{"role": "user", "text": "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"}]}]})
    wire.initialize()
    get = wire.result("prompts/get", {"name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}})
    assert get["messages"][0]["content"]["text"] == "Prompt with arguments: arg1='a', arg2='b'"
    completion = complete(wire, "arg1", "par", name="test_prompt_with_arguments")["result"]["completion"]
    assert completion == {"values": ["paris", "park"], "total": 2, "hasMore": False}
    assert complete(wire, "arg2", "x", name="test_prompt_with_arguments")["result"]["completion"]["values"] == []


def test_complete_callable_returning_one_string_is_an_internal_error():
    wire = Wire(completion_config(arguments=[{"name": "a", "complete": lambda v, c: "abc"}],
                                  messages=[{"role": "user", "text": "{a}"}]), log=lambda *a: None)
    wire.initialize()
    assert complete(wire, "a", "")["error"]["code"] == -32603
