"""Prompts as tools (opt-in): list_prompts and get_prompt, as FastMCP 4.2 shapes them, in
every revision; without the option, tools/list is -32601."""

import json

import pytest

from conftest import Wire, modern_wire, prompt, problems

CONFIG = {"prompts_as_tools": True, "prompts": [
    {"name": "greet", "description": "Say hi", "arguments": [
        {"name": "who", "required": True, "description": "Whom"}, {"name": "tone", "default": "calm"}],
     "messages": [{"role": "user", "text": "Hi {who} ({tone})"},
                  {"role": "assistant", "content": {"type": "image", "data": "aGk=", "mimeType": "image/png"}}]},
    {"name": "bare", "messages": [{"role": "user", "text": "x"}]}]}


def tool_text(result):
    [block] = result["content"]
    assert block["type"] == "text"
    return block["text"]


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_the_two_tools_are_listed_in_each_revisions_shape(version):
    wire = Wire(CONFIG)
    assert wire.initialize(version)["capabilities"]["tools"] == {"listChanged": False}
    tools = wire.result("tools/list")["tools"]
    assert [t["name"] for t in tools] == ["list_prompts", "get_prompt"]
    assert tools[1]["inputSchema"]["required"] == ["name"]
    titled = version >= "2025-06-18"
    assert [("title" in t, "outputSchema" in t) for t in tools] == [(titled, titled)] * 2


def test_list_prompts_gives_every_prompt_as_fastmcp_does():
    wire = Wire(CONFIG)
    wire.initialize("2025-06-18")
    result = wire.result("tools/call", {"name": "list_prompts", "arguments": {}})
    assert json.loads(tool_text(result)) == [
        {"name": "greet", "description": "Say hi", "arguments": [
            {"name": "who", "description": "Whom", "required": True},
            {"name": "tone", "description": None, "required": False}]},
        {"name": "bare", "description": None, "arguments": []}]
    assert result["structuredContent"] == {"result": tool_text(result)}
    wire = Wire(CONFIG)  # (no structured content before 2025-06-18, which has none)
    wire.initialize("2025-03-26")
    assert list(wire.result("tools/call", {"name": "list_prompts", "arguments": {}})) == ["content"]


def test_get_prompt_renders_what_prompts_get_does_and_refuses_as_it_does():
    wire = Wire(CONFIG)
    wire.initialize("2025-11-25")
    got = wire.result("prompts/get", {"name": "greet", "arguments": {"who": "Ann"}})
    result = wire.result("tools/call", {"name": "get_prompt", "arguments": {"name": "greet",
                                                                            "arguments": {"who": "Ann"}}})
    assert json.loads(tool_text(result)) == {"messages": [
        {"role": "user", "content": "Hi Ann (calm)"},
        {"role": "assistant", "content": got["messages"][1]["content"]}]}
    for arguments, params in ((({"name": "nope"}), {"name": "nope"}),
                              ({"name": "greet"}, {"name": "greet"}),
                              ({"name": "greet", "arguments": {"who": "A", "x": "1"}},
                               {"name": "greet", "arguments": {"who": "A", "x": "1"}})):
        refused = wire.result("tools/call", {"name": "get_prompt", "arguments": arguments})
        assert refused["isError"] is True and "structuredContent" not in refused
        assert tool_text(refused) == wire.error("prompts/get", params)["message"]


@pytest.mark.parametrize("limit, text", [
    (10000, "\\" * 4000),  # (the messages, as JSON text escaped again and sent twice: a reply 4 times the limit)
    (13000, "\x01" * 1000),  # (a control character: 6 bytes in the JSON text, 7 escaped again, sent twice)
])
def test_a_tool_result_is_held_to_max_render_bytes_as_sent(limit, text):
    config = dict(CONFIG, limits={"max_render_bytes": limit},
                  prompts=[{"name": "t", "messages": [{"role": "user", "text": text}]}])
    wire = Wire(config)
    wire.initialize("2025-11-25")
    assert "result" in wire.request("prompts/get", {"name": "t"})  # (as a prompt: within the limit)
    refused = wire.result("tools/call", {"name": "get_prompt", "arguments": {"name": "t"}})
    assert refused["isError"] is True and "exceeds the limit of %d (max_render_bytes)" % limit in tool_text(refused)
    config["prompts"] = [{"name": "p%d" % i, "messages": [{"role": "user", "text": "x"}]} for i in range(400)]
    wire = Wire(config)
    wire.initialize("2025-11-25")
    assert wire.result("tools/call", {"name": "list_prompts"})["isError"] is True


def test_an_unknown_tool_or_bad_params_are_protocol_errors():
    wire = Wire(CONFIG)
    wire.initialize()
    assert wire.error("tools/call", {"name": "run"}) == {"code": -32602, "message": "Unknown tool: 'run'"}
    assert wire.error("tools/call", {"name": "get_prompt", "arguments": [1]})["code"] == -32602


def test_tools_list_pages_as_prompts_list_does():
    wire = Wire(dict(CONFIG, page_size=1))
    wire.initialize()
    first = wire.result("tools/list")
    second = wire.result("tools/list", {"cursor": first["nextCursor"]})
    assert [t["name"] for t in first["tools"] + second["tools"]] == ["list_prompts", "get_prompt"]
    assert "nextCursor" not in second
    assert wire.error("tools/list", {"cursor": "bogus"}) == {"code": -32602, "message": "Invalid cursor"}


def test_stateless_tools_requests_carry_the_caching_fields_and_validate():
    wire = modern_wire(CONFIG)
    [listed] = wire.modern("tools/list")
    assert listed["result"]["resultType"] == "complete" and "ttlMs" in listed["result"]
    [called] = wire.modern("tools/call", {"name": "get_prompt", "arguments": {"name": "bare"}})
    assert json.loads(tool_text(called["result"])) == {"messages": [{"role": "user", "content": "x"}]}


def test_a_render_callable_runs_behind_get_prompt_too():
    wire = Wire({"prompts_as_tools": True, "prompts": [{"name": "r", "render": lambda a: "made"}]})
    wire.initialize()
    result = wire.result("tools/call", {"name": "get_prompt", "arguments": {"name": "r"}})
    assert json.loads(tool_text(result)) == {"messages": [{"role": "user", "content": "made"}]}


def test_a_render_callable_too_big_to_serve_is_an_error_result_as_messages_are():
    # (it was a -32602 protocol error where the same prompt's messages gave an error result)
    made = {"render": lambda a: "x" * 200}, {"messages": [{"role": "user", "text": "x" * 200}]}
    wire = Wire({"prompts_as_tools": True, "limits": {"max_render_bytes": 100},
                 "prompts": [dict(shape, name="p%d" % i) for i, shape in enumerate(made)]})
    wire.initialize()
    texts = [tool_text(wire.result("tools/call", {"name": "get_prompt", "arguments": {"name": "p%d" % i}}))
             for i in (0, 1)]
    assert texts[0] == texts[1] and "exceeds the limit of 100 (max_render_bytes)" in texts[0]


def test_without_the_option_there_are_no_tools():
    wire = Wire({"prompts": [prompt()]})
    assert "tools" not in wire.initialize()["capabilities"]
    assert wire.error("tools/list")["code"] == -32601
    # (Server's option; the tools never change, even where the prompts may)
    wire = Wire({"prompts": [prompt()]}, prompts_as_tools=True, list_changed=True)
    assert wire.initialize()["capabilities"]["tools"] == {"listChanged": False}
    assert problems({"prompts": [], "prompts_as_tools": "yes"}) == [
        ("prompts_as_tools", "expected true or false, got the string 'yes'")]
