"""The methods served, one registry row each: resolution, params checks, and each handler's result."""

import pytest

from conftest import LISTEN, MODERN, Wire, completion_config, modern_wire, one, prompt, simple_config
from schema_check import SPEC_DIR, check_server_message


# --- the registry ------------------------------------------------------------------------

def test_unknown_method_is_method_not_found(wire):
    wire.initialize()
    assert wire.error("tools/list") == {"code": -32601, "message": "Method not found: 'tools/list'"}


def test_method_resolved_before_params_validated(wire):
    wire.initialize()
    [reply] = wire.send({"jsonrpc": "2.0", "id": 1, "method": "nope", "params": [1]})
    assert reply["error"]["code"] == -32601
    [reply] = wire.send({"jsonrpc": "2.0", "id": 2, "method": "prompts/list", "params": [1]})
    assert reply["error"]["code"] == -32602


@pytest.mark.parametrize("method", ["ping", "initialize", "logging/setLevel"])
def test_methods_removed_in_2026_are_not_found_in_modern_requests(method):
    m = modern_wire()
    assert one(m.modern(method))["error"]["code"] == -32601


@pytest.mark.parametrize("params", ["x", [1], 3])
def test_discover_params_must_be_an_object(params):
    m = modern_wire()
    m.validate = False
    [reply] = m.send({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": params})
    assert reply["error"]["code"] == -32602


PLAIN = {"prompts": [{"name": "p", "messages": [{"role": "user", "text": "hi"}]}]}


@pytest.mark.parametrize("fields, message", [
    ({"inputResponses": "garbage"}, "Invalid params: inputResponses must be an object"),
    ({"inputResponses": None}, "Invalid params: inputResponses must be an object"),
    ({"inputResponses": {"ask": 3}}, "Invalid params: inputResponses['ask'] must be an object"),
    ({"requestState": 12345}, "Invalid params: requestState must be a string"),
    ({"inputResponses": {}, "requestState": None}, "Invalid params: requestState must be a string"),
])
def test_a_stateless_get_with_malformed_retry_fields_is_invalid_params(fields, message):
    # 2026-07-28 mrtr "Error Handling": servers SHOULD validate inputResponses (and the
    # schema types requestState as a string)
    m = modern_wire(PLAIN)
    m.validate = False  # (the request is what is malformed)
    error = one(m.modern("prompts/get", dict({"name": "p"}, **fields)))["error"]
    assert error == {"code": -32602, "message": message}


def test_well_formed_retry_fields_are_ignored_and_the_handshake_era_never_reads_them():
    fields = {"inputResponses": {"ask": {"action": "accept", "content": {}}}, "requestState": "s"}
    m = modern_wire(PLAIN)
    result = one(m.modern("prompts/get", dict({"name": "p"}, **fields)))["result"]
    assert result["messages"][0]["content"]["text"] == "hi"
    wire = Wire(PLAIN)
    wire.initialize()
    reply = wire.request("prompts/get", {"name": "p", "inputResponses": 3, "requestState": 4})
    assert reply["result"]["messages"][0]["content"]["text"] == "hi"


# --- initialize, ping, logging/setLevel ------------------------------------------------------

@pytest.mark.parametrize("params", [{}, {"protocolVersion": 20250618}, {"protocolVersion": None}])
def test_initialize_needs_a_string_version(wire, params):
    assert wire.error("initialize", params)["code"] == -32602
    assert "not initialized" in wire.error("prompts/list")["message"]  # (the refused one changed nothing)
    assert wire.initialize()["protocolVersion"]


def test_initialize_result_shape():
    wire = Wire(simple_config(server={"name": "srv", "version": "9", "title": "Srv",
                                      "instructions": "Use it."}))
    result = wire.initialize("2025-06-18")
    assert result == {
        "protocolVersion": "2025-06-18",
        "capabilities": {"prompts": {"listChanged": False}, "logging": {}, "completions": {}},
        "serverInfo": {"name": "srv", "version": "9", "title": "Srv"},
        "instructions": "Use it.",
    }


def test_server_title_only_from_2025_06_18():
    wire = Wire(simple_config(server={"title": "Srv"}))
    info = wire.initialize("2025-03-26")["serverInfo"]
    assert "title" not in info and info["name"] == "tinymcp"


def test_list_changed_true_only_with_a_change_source():
    wire = Wire(simple_config(), list_changed=True)
    assert wire.initialize()["capabilities"]["prompts"] == {"listChanged": True}


def test_completions_capability_from_2025_03_26():
    assert "completions" not in Wire(simple_config()).initialize("2024-11-05")["capabilities"]
    assert "completions" in Wire(simple_config()).initialize("2025-03-26")["capabilities"]


@pytest.mark.parametrize("level", ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"])
def test_set_level_accepts_the_eight_levels(wire, level):
    wire.initialize()
    assert wire.result("logging/setLevel", {"level": level}) == {}


@pytest.mark.parametrize("level", ["verbose", "ERROR", 3, None, ""])
def test_set_level_rejects_anything_else(wire, level):
    wire.initialize()
    assert wire.error("logging/setLevel", {"level": level})["code"] == -32602


# --- prompts/list and prompts/get ----------------------------------------------------------

def test_modern_list_walks_every_page_with_cache_hints():
    m = modern_wire(simple_config(7, page_size=3, cache_scope="private", ttl_ms=0))
    names, cursor, pages = [], None, 0
    while True:
        result = one(m.modern("prompts/list", {"cursor": cursor} if cursor else {}))["result"]
        pages += 1
        assert result["resultType"] == "complete"
        assert result["ttlMs"] == 0 and result["cacheScope"] == "private"
        assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "tinymcp"
        names += [p["name"] for p in result["prompts"]]
        cursor = result.get("nextCursor")
        if not cursor:
            break
    assert pages == 3 and names == ["p%03d" % i for i in range(7)]


def test_get_unknown_prompt_names_it(wire):
    wire.initialize()
    assert wire.get("nope")["error"] == {"code": -32602, "message": "Unknown prompt: 'nope'"}


@pytest.mark.parametrize("name", [None, 3, True, ["p000"]])
def test_get_name_must_be_a_string(wire, name):
    wire.initialize()
    assert wire.get(name)["error"]["code"] == -32602


def test_modern_get_renders_and_ignores_mrtr_fields():
    m = modern_wire()
    result = one(m.modern("prompts/get", {"name": "p001", "arguments": {"topic": "owls"},
                                        "inputResponses": {}, "requestState": "opaque"}))["result"]
    assert result["resultType"] == "complete"
    assert result["messages"][0]["content"]["text"] == "Tell me about owls in a plain tone"
    assert "ttlMs" not in result


def test_modern_errors_keep_their_codes():
    m = modern_wire()
    assert one(m.modern("prompts/get", {"name": "nope"}))["error"]["code"] == -32602
    assert one(m.modern("prompts/get", {"name": "p000"}))["error"]["code"] == -32602
    assert one(m.modern("prompts/list", {"cursor": "bogus"}))["error"] == {"code": -32602, "message": "Invalid cursor"}
    assert one(m.modern("tools/list"))["error"]["code"] == -32601


def test_a_stateless_get_result_carries_its_type_and_server_info_after_its_messages():
    wire = modern_wire(simple_config(3, server={"name": "srv", "version": "2", "title": "Srv"}))
    for arguments in ({"topic": "owls"}, {"topic": 'q"\\\u00e9\ud800', "tone": ""}):
        [reply] = wire.modern("prompts/get", {"name": "p001", "arguments": arguments})
        assert list(reply["result"]) == ["messages", "description", "resultType", "_meta"]
        assert reply["result"]["messages"][0]["content"]["text"] == "Tell me about %s in a %s tone" % (
            arguments["topic"], arguments.get("tone") or "plain")
        assert reply["result"]["_meta"]["io.modelcontextprotocol/serverInfo"] == {
            "name": "srv", "version": "2", "title": "Srv"}


def test_callable_gets_context_from_2025_06_18():
    wire = Wire(completion_config())
    wire.initialize("2025-06-18")
    values = wire.complete("smart", "v", context={"word": "alpha", "free": "f"})["result"]["completion"]["values"]
    assert values == ["v-free", "v-word"]


def test_callable_gets_no_context_before_2025_06_18():
    seen = []
    wire = Wire(completion_config(arguments=[{"name": "a", "complete": lambda v, c: seen.append(c) or []}],
                                  messages=[{"role": "user", "text": "{a}"}]))
    wire.initialize("2025-03-26")
    wire.complete("a", "", context={"a": "x"})
    assert seen == [None]


def test_unknown_prompt_or_argument_is_invalid_params():
    wire = Wire(completion_config())
    wire.initialize()
    assert wire.complete("word", "", name="nope")["error"] == {"code": -32602, "message": "Unknown prompt: 'nope'"}
    assert wire.complete("zzz", "")["error"] == {
        "code": -32602, "message": "Invalid params: prompt 'pick' has no argument 'zzz'"}


def test_resource_refs_are_refused_saying_why():
    wire = Wire(completion_config())
    wire.initialize()
    error = wire.complete("x", "", ref_type="ref/resource")["error"]
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
    assert wire.complete("word", "d")["result"]["completion"]["values"] == ["delta"]


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
    completion = wire.complete("arg1", "par", name="test_prompt_with_arguments")["result"]["completion"]
    assert completion == {"values": ["paris", "park"], "total": 2, "hasMore": False}
    assert wire.complete("arg2", "x", name="test_prompt_with_arguments")["result"]["completion"]["values"] == []


# --- server/discover and subscriptions/listen ----------------------------------------------

def test_discover_answers_with_versions_capabilities_and_identity():
    m = modern_wire(simple_config(server={"name": "srv", "version": "2", "instructions": "hi"}, ttl_ms=5000))
    result = one(m.modern("server/discover"))["result"]
    assert result == {
        "resultType": "complete", "supportedVersions": [MODERN],
        "capabilities": {"prompts": {"listChanged": False}, "logging": {}, "completions": {}},
        "instructions": "hi", "ttlMs": 5000, "cacheScope": "public",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "srv", "version": "2"}},
    }


def test_listen_acknowledges_the_honoured_subset_and_stays_open():
    m = modern_wire(list_changed=True)
    replies = m.modern("subscriptions/listen", LISTEN, rid="sub-1")
    assert replies == [{"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {
        "_meta": {"io.modelcontextprotocol/subscriptionId": "sub-1"},
        "notifications": {"promptsListChanged": True}}}]
    assert "sub-1" in m.session.streams


def test_listen_honours_only_a_filter_of_true():
    # (the schema types promptsListChanged boolean, "if true"; and the server MUST NOT send a type not asked for)
    m = modern_wire(list_changed=True)
    replies = m.modern("subscriptions/listen", {"notifications": {"promptsListChanged": 1}}, rid="s")
    assert replies[0]["params"]["notifications"] == {}
    assert m.session.prompts_changed() == b""


def test_listen_streams_per_connection_are_capped_by_the_limit_in_force():
    m = modern_wire(list_changed=True, limits={"max_listen_streams": 2})
    for rid in ("a", "b"):
        assert "error" not in one(m.modern("subscriptions/listen", LISTEN, rid=rid))
    refused = one(m.modern("subscriptions/listen", LISTEN, rid="c"))
    assert refused == {"jsonrpc": "2.0", "id": "c", "error": {
        "code": -32600, "message": "Invalid Request: 2 listen streams are open on this connection, "
                                   "the limit (limits.max_listen_streams); cancel one first"}}
    assert sorted(m.session.streams) == ["a", "b"]
    m.session.receive_data(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":'
                           b'{"requestId":"a","_meta":{}}}\n')
    assert "error" not in one(m.modern("subscriptions/listen", LISTEN, rid="c"))


def test_a_listen_streams_id_is_bounded_as_it_is_held_and_repeated_while_the_stream_is_open():
    # (review: 16 streams with ids of 8 MiB each held 128 MiB a connection, pushed whole on each reload)
    from tinymcp.protocol.state import MAX_STREAM_ID
    m = modern_wire(list_changed=True)
    assert "error" not in one(m.modern("subscriptions/listen", LISTEN, rid="x" * MAX_STREAM_ID))
    long_id = "y" * (MAX_STREAM_ID + 1)
    assert one(m.modern("subscriptions/listen", LISTEN, rid=long_id)) == {"jsonrpc": "2.0", "id": long_id,
                                                                          "error": {"code": -32600, "message":
        "Invalid Request: a listen stream's id may be %d characters at most" % MAX_STREAM_ID}}
    assert list(m.session.streams) == ["x" * MAX_STREAM_ID]
    assert "error" not in one(m.modern("prompts/list", rid=long_id))  # (any other request's id: as it is)


@pytest.mark.parametrize("notifications", [None, [], "all"])
def test_listen_needs_a_filter_object(notifications):
    m = modern_wire(list_changed=True)
    params = {} if notifications is None else {"notifications": notifications}
    assert one(m.modern("subscriptions/listen", params))["error"]["code"] == -32602


def test_a_page_asked_for_again_is_the_same_until_the_config_changes():
    from conftest import Wire, simple_config
    wire = Wire(simple_config(5, page_size=2))
    wire.initialize()
    ask = b'{"jsonrpc":"2.0","id":7,"method":"prompts/list","params":{}}\n'
    first = wire.session.receive_data(ask)
    assert wire.session.receive_data(ask) == first
    wire.server.replace_config(simple_config(6, page_size=2, ttl_ms=5))
    assert wire.session.receive_data(ask) == first  # (the first page did not change)
    bad = wire.request("prompts/list", {"cursor": ["not", "a", "cursor"]})
    assert bad["error"]["code"] == -32602


def test_a_complete_callable_is_given_no_context_when_the_client_sends_none():
    seen = []
    config = {"prompts": [{"name": "pick", "arguments": [
        {"name": "smart", "complete": lambda value, context: seen.append(context) or ["v"]}],
        "messages": [{"role": "user", "text": "{smart}"}]}]}
    wire = Wire(config)
    wire.initialize()
    assert wire.complete("smart", "")["result"]["completion"]["values"] == ["v"]
    assert wire.complete("smart", "", context={"a": "b"})["result"]["completion"]["values"] == ["v"]
    assert seen == [None, {"a": "b"}]


# An argument that is no object was an internal error (-32603)
@pytest.mark.parametrize("argument", ["word", 3, ["word", ""]])
def test_a_completion_argument_that_is_no_object_is_invalid_params(argument):
    wire = Wire(completion_config())
    wire.initialize()
    assert wire.error("completion/complete", {"ref": {"type": "ref/prompt", "name": "pick"},
                                              "argument": argument}) == {
        "code": -32602, "message": "Invalid params: argument must be an object with string name and value"}


# A complete callable that returns a generator (any iterable of strings) was answered -32603
def test_a_complete_callable_may_return_any_iterable_of_strings():
    wire = Wire(completion_config(arguments=[{"name": "a", "complete": lambda v, c: (v + s for s in "xy")}],
                                  messages=[{"role": "user", "text": "{a}"}]))
    wire.initialize()
    assert wire.complete("a", "q")["result"]["completion"] == {"values": ["qx", "qy"], "total": 2, "hasMore": False}


# A cursor is base64 of 4 bytes and the name, so its length (and padding) follows the name's: every
# length resumes
@pytest.mark.parametrize("era", ["handshake", "stateless"])
def test_pages_follow_prompts_whose_names_have_any_length(era):
    names = ["n" * k for k in range(1, 41)]
    wire = Wire({"page_size": 1, "prompts": [prompt(name=n) for n in names]})
    if era == "handshake":
        wire.initialize()
        assert wire.pages() == [[n] for n in names]
        return
    cursor, pages = None, []
    while True:
        [reply] = wire.modern("prompts/list", {"cursor": cursor} if cursor else {})
        pages.append([p["name"] for p in reply["result"]["prompts"]])
        cursor = reply["result"].get("nextCursor")
        if cursor is None:
            break
    assert pages == [[n] for n in names]
