"""The methods served, one registry row each: resolution, params checks, and each handler's result."""

import pytest

from conftest import LISTEN, MODERN, Wire, completion_config, modern_wire, one, simple_config
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
    assert wire.session.state == "NEW"


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


def _get_both_ways(prompt, rev, arguments, limits):
    """(the fast path's encoded result or None, the general path's) of one prompts/get."""
    from tinymcp.call import Call
    from tinymcp.jsonrpc import encode
    from tinymcp.methods import _framed, _get_result
    from tinymcp.prompts import render
    from tinymcp.errors import InvalidParams
    call = Call(1, "prompts/get", rev, False, False)

    def outcome(way):  # (the arguments may make a uri with no scheme: -32602 either way)
        try:
            return way()
        except InvalidParams as exc:
            return exc.message

    fast = outcome(lambda: _framed(prompt, rev, arguments, limits))
    return fast, outcome(lambda: encode(_get_result(call, prompt, render(prompt, arguments), limits))[:-1])


def test_a_prompts_first_get_is_answered_from_its_frame(monkeypatch):
    """A template prompt's first get under a revision makes its frame and answers from it,
    not the general way; a get the frame cannot serve (past the cheap render bound) still
    takes the general way."""
    import tinymcp.methods as methods
    general = methods._get_result
    taken = []
    monkeypatch.setattr(methods, "_get_result", lambda *a: taken.append(a) or general(*a))
    for version in ("2025-06-18", "2025-11-25"):
        wire = Wire({"limits": {"max_render_bytes": 120}, "prompts": [
            {"name": "p", "arguments": [{"name": "a"}], "messages": [{"role": "user", "text": "<{a}>"}]}]})
        wire.initialize(version)
        assert wire.result("prompts/get", {"name": "p", "arguments": {"a": "owl"}})["messages"] == [
            {"role": "user", "content": {"type": "text", "text": "<owl>"}}]
        assert taken == []
        assert wire.result("prompts/get", {"name": "p", "arguments": {"a": "x" * 9}})["messages"][0][
            "content"]["text"] == "<xxxxxxxxx>"  # (11 characters * 12 > 120)
        assert len(taken) == 1
        taken.clear()


def test_a_stateless_get_is_the_same_either_way():
    """A stateless get takes its frame too, with what ``stateless_result`` adds after it:
    the same result as a request whose log level sends it the general way."""
    wire = modern_wire(simple_config(3, server={"name": "srv", "version": "2", "title": "Srv"}))
    for arguments in ({"topic": "owls"}, {"topic": 'q"\\\u00e9\ud800', "tone": ""}):
        fast = wire.modern("prompts/get", {"name": "p001", "arguments": arguments})
        general = wire.modern("prompts/get", {"name": "p001", "arguments": arguments},
                              **{"io.modelcontextprotocol/logLevel": "emergency"})
        assert len(fast) == len(general) == 1
        assert fast[0]["result"] == general[0]["result"]
        assert list(fast[0]["result"]) == list(general[0]["result"]) == [
            "messages", "description", "resultType", "_meta"]
        assert fast[0]["result"]["_meta"]["io.modelcontextprotocol/serverInfo"] == {
            "name": "srv", "version": "2", "title": "Srv"}


def test_an_encoded_get_result_is_byte_for_byte_the_general_one():
    """``methods._framed`` (a prompt's encoded result with gaps for its texts) against
    building and encoding the result, on generated prompts, every handshake revision and
    argument values that escape every way."""
    import random
    from generated_prompts import generated_prompt
    from tinymcp.limits import Limits
    from tinymcp.models import Prompt
    from tinymcp.revisions import REVISIONS
    from tinymcp.validate import Check
    rng = random.Random(17)
    values = ["", "x", 'q"\\/', "\u00e9\n\t\x00\x1f\x7f", "\U0001f600", "\ud800", "\udc00x", "{a}",
              "\ue000tinymcp gap 0\ue001", "\u2028" * 3]
    limits = Limits()
    framed = general = 0
    for _ in range(4000):
        prompt = Prompt.from_wire(Check(), generated_prompt(rng), "prompts[0]")
        if prompt is None or prompt.render_fn is not None:
            continue
        arguments = {a.name: rng.choice(values) for a in prompt.arguments if rng.random() < 0.8}
        for rev in REVISIONS.values():
            if rev.stateless:
                continue
            fast, slow = _get_both_ways(prompt, rev, arguments, limits)
            if fast is None:
                general += 1
            else:
                framed += 1
                assert fast == slow, (prompt.name, rev, arguments)
    assert framed > 3000 and general > 0  # (both ways were taken)


@pytest.mark.parametrize("content, framed_in", [
    # a resource link's uri, or a dated block's text, are in a text block where the
    # revision has no such block or date: no frame there
    ({"type": "resource_link", "uri": "file:///{a}", "name": "r"}, ("2025-06-18", "2025-11-25")),
    ({"type": "text", "text": "{a}", "annotations": {"lastModified": "2025-01-01T00:00:00Z"}},
     ("2025-06-18", "2025-11-25")),
    ({"type": "resource", "resource": {"uri": "u:{a}", "text": "{a}!", "_meta": {"k": 1}}},
     ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")),
    # a fixed text that reads as a gap: the result could not be cut there
    ({"type": "text", "text": "\ue000tinymcp gap 0\ue001"}, ()),
    # the same after an escaped quote, and within a text (found in review: with a
    # resource link turned into text, the value went where the fixed text was)
    ({"type": "text", "text": 'say "\ue000tinymcp gap 0\ue001'}, ()),
    ({"type": "text", "text": "x\ue000tinymcp gap 0\ue001y"}, ()),
    # a resource's text before its uri: the gaps come in another order than the templates
    ({"type": "resource", "resource": {"text": "{a}!", "uri": "u:{a}"}},
     ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")),
])
def test_a_get_result_is_framed_only_where_each_value_stands_whole(content, framed_in):
    from tinymcp.limits import Limits
    from tinymcp.models import Prompt
    from tinymcp.revisions import REVISIONS
    from tinymcp.validate import Check
    messages = [{"role": "user", "content": content}]
    if "{a}" not in str(content):
        messages.append({"role": "user", "text": "and {a}"})
    prompt = Prompt.from_wire(Check(), {"name": "p", "arguments": [{"name": "a"}],
                                        "messages": messages}, "prompts[0]")
    for version, rev in REVISIONS.items():
        if not rev.stateless:
            fast, slow = _get_both_ways(prompt, rev, {"a": 'x"y'}, Limits())
            assert (fast is not None) == (version in framed_in), version
            assert fast in (None, slow)


@pytest.mark.parametrize("fixed", ['say "\ue000tinymcp gap 0\ue001', "\ue000tinymcp gap 0\ue001",
                                   "\\ue000tinymcp gap 0\ue001"])
@pytest.mark.parametrize("block", [
    {"type": "resource_link", "uri": "file:///{a}", "name": "r"},
    {"type": "text", "text": "Hi {a}", "annotations": {"lastModified": "2025-01-01T00:00:00Z"}}])
def test_a_fixed_text_like_a_gap_never_takes_a_value(block, fixed):
    """Where a revision turns the templated block into text, a fixed text (a message, the
    description) that holds what stands in for the value is sent as it is, and the value
    where it belongs (found in review)."""
    for where in ("message", "description"):
        prompt = {"name": "p", "arguments": [{"name": "a"}],
                  "messages": [{"role": "user", "content": block}]}
        if where == "message":
            prompt["messages"].append({"role": "user", "text": fixed})
        else:
            prompt["description"] = fixed
        for version in ("2024-11-05", "2025-03-26", "2025-11-25"):
            wire = Wire({"prompts": [prompt]})
            wire.initialize(version)
            results = [wire.result("prompts/get", {"name": "p", "arguments": {"a": "XYZ"}})
                       for _ in range(3)]  # (the frame made at the first)
            assert results[0] == results[1] == results[2]
            first = results[0]["messages"][0]["content"]
            assert "XYZ" in (first.get("text") or first.get("uri")), (version, first)
            assert (results[0]["messages"][1]["content"]["text"] if where == "message"
                    else results[0]["description"]) == fixed


def test_a_get_whose_result_does_not_encode_answers_as_it_did():
    """A frame is never made of a result that does not encode or nests too deep: the
    general path answers (found in review: -32603 where the render limit said -32602)."""
    from tinymcp.errors import ConfigError
    cases = [({"size": 10 ** 5000}, 100, -32602)]
    for depth in range(900, 1000, 10):  # (the deepest ones answered -32603 framed, found in review)
        deep = {}
        for _ in range(depth):
            deep = {"k": deep}
        cases.append(({"_meta": deep}, None, None))
    for extra, limit, error in cases:
        link = dict({"type": "resource_link", "uri": "file:///{a}", "name": "r"}, **extra)
        config = {"prompts": [{"name": "p", "arguments": [{"name": "a"}],
                               "messages": [{"role": "user", "content": link}]}]}
        if limit:
            config["limits"] = {"max_render_bytes": limit}
        try:
            Wire(config)
        except ConfigError:
            continue  # (too deep to load here: nothing to serve)
        for version in ("2025-06-18", "2025-11-25"):
            answers = []
            for framed in (True, False):
                wire = Wire(config)
                wire.validate = False
                wire.initialize(version)
                if not framed:
                    wire.result("logging/setLevel", {"level": "emergency"})  # (the general path)
                answers.append([wire.get("p", {"a": "x" * 150}).get("error", {}).get("code")
                                for _ in range(3)])
            assert answers[0] == answers[1], (extra.keys(), version, answers)
            if error is not None:
                assert answers[0] == [error] * 3


def test_a_framed_get_leaves_the_render_limit_to_the_general_path():
    """Past the cheap bound (12 bytes a character), the general path measures the text
    escaped and answers or refuses."""
    from tinymcp.limits import Limits
    from tinymcp.models import Prompt
    from tinymcp.revisions import LATEST_HANDSHAKE
    from tinymcp.validate import Check
    prompt = Prompt.from_wire(Check(), {"name": "p", "arguments": [{"name": "a"}],
                                        "messages": [{"role": "user", "text": "<{a}>"}]}, "prompts[0]")
    limits = Limits(max_render_bytes=120)
    assert _get_both_ways(prompt, LATEST_HANDSHAKE, {"a": "x" * 8}, limits)[0] is not None
    assert _get_both_ways(prompt, LATEST_HANDSHAKE, {"a": "x" * 9}, limits)[0] is None  # 11 * 12 > 120
    wire = Wire({"limits": {"max_render_bytes": 120}, "prompts": [
        {"name": "p", "arguments": [{"name": "a"}], "messages": [{"role": "user", "text": "<{a}>"}]}]})
    wire.initialize()
    assert wire.result("prompts/get", {"name": "p", "arguments": {"a": "x" * 118}})["messages"][0][
        "content"]["text"] == "<" + "x" * 118 + ">"
    assert "max_render_bytes" in wire.error("prompts/get", {"name": "p", "arguments": {"a": "x" * 119}})["message"]


# --- completion/complete -------------------------------------------------------------------

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


@pytest.mark.parametrize("notifications", [None, [], "all"])
def test_listen_needs_a_filter_object(notifications):
    m = modern_wire(list_changed=True)
    params = {} if notifications is None else {"notifications": notifications}
    assert one(m.modern("subscriptions/listen", params))["error"]["code"] == -32602


def test_a_page_asked_for_again_is_the_same_bytes_until_the_config_changes():
    from conftest import Wire, simple_config
    wire = Wire(simple_config(5, page_size=2))
    wire.initialize()
    ask = b'{"jsonrpc":"2.0","id":7,"method":"prompts/list","params":{}}\n'
    first = wire.session.receive_data(ask)
    assert wire.session.receive_data(ask) == first
    cached = wire.server.config.pages
    wire.server.replace_config(simple_config(6, page_size=2, ttl_ms=5))
    assert wire.server.config.pages is not cached
    assert wire.session.receive_data(ask) == first  # (the first page did not change)
    bad = wire.request("prompts/list", {"cursor": ["not", "a", "cursor"]})
    assert bad["error"]["code"] == -32602
