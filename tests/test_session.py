"""The sans-I/O session, bytes in and bytes out: JSON-RPC handling, lifecycle, prompts."""

import json

import pytest

from conftest import Wire, simple_config
from tinymcp import Server, Session
from tinymcp.revisions import HANDSHAKE_VERSIONS as LEGACY_VERSIONS


def lines(session, data):
    return [json.loads(x) for x in session.receive_data(data).split(b"\n") if x]


# --- JSON-RPC -------------------------------------------------------------------------

def test_invalid_json_is_parse_error_with_null_id(wire):
    assert wire.raw(b"{nope\n") == [{"jsonrpc": "2.0", "id": None, "error": {
        "code": -32700, "message": "Parse error: Expecting property name enclosed in double quotes: "
                                   "line 1 column 2 (char 1)"}}]


def test_invalid_utf8_is_parse_error(wire):
    [reply] = wire.raw(b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"\xc3"}\n')
    assert reply["id"] is None and reply["error"]["code"] == -32700


def test_next_line_is_served_after_a_bad_one(wire):
    replies = wire.raw(b'garbage\n{"jsonrpc":"2.0","id":7,"method":"ping"}\n')
    assert [r.get("id") for r in replies] == [None, 7]
    assert replies[1]["result"] == {}


@pytest.mark.parametrize("message", [1, "x", None, True])
def test_non_object_is_invalid_request(wire, message):
    [reply] = wire.send(message)
    assert reply == {"jsonrpc": "2.0", "id": None,
                     "error": {"code": -32600, "message": "Invalid Request: expected a JSON object"}}


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


def test_unknown_method_is_method_not_found(wire):
    wire.initialize()
    assert wire.error("tools/list") == {"code": -32601, "message": "Method not found: 'tools/list'"}


def test_method_resolved_before_params_validated(wire):
    wire.initialize()
    [reply] = wire.send({"jsonrpc": "2.0", "id": 1, "method": "nope", "params": [1]})
    assert reply["error"]["code"] == -32601
    [reply] = wire.send({"jsonrpc": "2.0", "id": 2, "method": "prompts/list", "params": [1]})
    assert reply["error"]["code"] == -32602


def test_notifications_never_get_a_reply(wire):
    assert wire.send({"jsonrpc": "2.0", "method": "nope"}) == []
    assert wire.send({"jsonrpc": "2.0", "method": "prompts/get", "params": 5}) == []
    assert wire.send({"jsonrpc": "1.0", "method": "nope"}) == []
    assert wire.send({"jsonrpc": "2.0", "method": 3}) == []


def test_client_responses_are_ignored(wire):
    assert wire.send({"jsonrpc": "2.0", "id": 1, "result": {}}) == []
    assert wire.send({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "x"}}) == []


def test_overlong_line_is_answered_and_skipped():
    wire = Wire(simple_config(), limits={"max_line_bytes": 100})
    replies = wire.raw(b'{"x":"' + b"a" * 200 + b'"}\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    assert replies[0]["error"] == {"code": -32600, "message":
                                   "Invalid Request: line longer than the 100-byte limit (max_line_bytes)"}
    assert replies[1] == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_replies_are_compact_single_lines(wire):
    out = wire.session.receive_data(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    assert out == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'


# --- batches --------------------------------------------------------------------------

def test_batch_refused_unless_2025_03_26(wire):
    wire.initialize("2025-06-18")
    [reply] = wire.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
    assert reply["id"] is None and reply["error"]["code"] == -32600


def test_batch_refused_before_initialize(wire):
    [reply] = wire.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
    assert reply["error"]["code"] == -32600


def test_batch_served_as_array_under_2025_03_26(wire):
    wire.initialize("2025-03-26")
    [reply] = wire.send([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/whatever"},
        {"jsonrpc": "2.0", "id": "b", "method": "prompts/get", "params": {"name": "nope"}},
        {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}},
    ])
    assert isinstance(reply, list)
    assert [r["id"] for r in reply] == [1, "b", 3]
    assert reply[0]["result"] == {}
    assert reply[1]["error"]["code"] == -32602
    assert reply[2]["error"] == {"code": -32600,
                                 "message": "Invalid Request: initialize cannot be part of a batch"}


def test_batch_of_notifications_gets_no_reply(wire):
    wire.initialize("2025-03-26")
    assert wire.send([{"jsonrpc": "2.0", "method": "notifications/x"}]) == []


def test_empty_batch_is_invalid_request(wire):
    wire.initialize("2025-03-26")
    [reply] = wire.send([])
    assert reply["error"]["code"] == -32600


# --- lifecycle --------------------------------------------------------------------------

@pytest.mark.parametrize("version", LEGACY_VERSIONS)
def test_initialize_echoes_supported_versions(wire, version):
    assert wire.initialize(version)["protocolVersion"] == version


@pytest.mark.parametrize("version", ["2026-07-28", "2099-01-01", "1.0", ""])
def test_initialize_answers_latest_for_other_versions(wire, version):
    assert wire.initialize(version)["protocolVersion"] == "2025-11-25"


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


def test_ping_before_initialize(wire):
    assert wire.result("ping") == {}


def test_known_request_before_initialize_fails_at_once(wire):
    assert wire.error("prompts/list") == {
        "code": -32602,
        "message": "Session not initialized: send initialize before prompts/list, or give "
                   "io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities "
                   "in params._meta",
        "data": {"supported": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]}}


def test_unknown_request_before_initialize_is_method_not_found(wire):
    assert wire.error("server/discover-ish")["code"] == -32601


def test_second_initialize_is_invalid_request(wire):
    wire.initialize()
    assert wire.error("initialize", {"protocolVersion": "2025-11-25"}) == {
        "code": -32600, "message": "Invalid Request: already initialized"}


def test_prompts_served_without_initialized_notification(wire):
    wire.result("initialize", {"protocolVersion": "2025-11-25"})
    assert len(wire.result("prompts/list")["prompts"]) == 3


# --- prompts/list ---------------------------------------------------------------------

def walk(wire):
    pages, cursor = [], None
    while True:
        result = wire.result("prompts/list", {"cursor": cursor} if cursor else {})
        pages.append([p["name"] for p in result["prompts"]])
        cursor = result.get("nextCursor")
        if cursor is None:
            assert "nextCursor" not in result
            return pages


def test_pages_cover_every_prompt_once():
    wire = Wire(simple_config(250, page_size=20))
    wire.initialize()
    pages = walk(wire)
    assert len(pages) == 13
    names = [n for page in pages for n in page]
    assert names == sorted(names) and len(set(names)) == 250


def test_page_size_override_beats_config():
    wire = Wire(simple_config(10, page_size=20), page_size=3)
    wire.initialize()
    assert [len(p) for p in walk(wire)] == [3, 3, 3, 1]


def test_default_page_size_is_50():
    wire = Wire(simple_config(120))
    wire.initialize()
    assert [len(p) for p in walk(wire)] == [50, 50, 20]


def test_cursor_survives_prompt_set_changes():
    wire = Wire(simple_config(6, page_size=2))
    wire.initialize()
    first = wire.result("prompts/list")
    assert [p["name"] for p in first["prompts"]] == ["p000", "p001"]
    config = simple_config(6, page_size=2)
    config["prompts"] = [p for p in config["prompts"] if p["name"] != "p001"]
    config["prompts"].append(dict(config["prompts"][0], name="p0005"))
    wire.server.replace_config(config)
    second = wire.result("prompts/list", {"cursor": first["nextCursor"]})
    assert [p["name"] for p in second["prompts"]] == ["p002", "p003"]


@pytest.mark.parametrize("cursor", ["", "garbage", "AAAAAAAA", 5, None, "x" * 5000])
def test_tampered_or_foreign_cursor_is_invalid(cursor):
    wire = Wire(simple_config(6, page_size=2))
    wire.initialize()
    good = wire.result("prompts/list")["nextCursor"]
    if cursor is None:
        cursor = good[:-1] + ("A" if good[-1] != "A" else "B")
    assert wire.error("prompts/list", {"cursor": cursor}) == {"code": -32602, "message": "Invalid cursor"}


def test_listing_fields_follow_the_revision():
    prompt = {"name": "p", "title": "P", "description": "d", "_meta": {"k": 1},
              "icons": [{"src": "https://x/i.png"}],
              "arguments": [{"name": "a", "title": "A", "description": "da", "default": "z"}],
              "messages": [{"role": "user", "text": "{a}"}]}
    expected = {
        "2024-11-05": {"name": "p", "description": "d", "arguments": [{"name": "a", "description": "da"}]},
        "2025-06-18": {"name": "p", "title": "P", "description": "d", "_meta": {"k": 1},
                       "arguments": [{"name": "a", "title": "A", "description": "da"}]},
        "2025-11-25": {"name": "p", "title": "P", "description": "d", "_meta": {"k": 1},
                       "icons": [{"src": "https://x/i.png"}],
                       "arguments": [{"name": "a", "title": "A", "description": "da"}]},
    }
    for version, want in expected.items():
        wire = Wire({"prompts": [prompt]})
        wire.initialize(version)
        assert wire.result("prompts/list")["prompts"] == [want]


# --- prompts/get ------------------------------------------------------------------------

def get(wire, name, arguments=None):
    params = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return wire.request("prompts/get", params)


def test_get_renders_arguments_and_defaults(wire):
    wire.initialize()
    result = get(wire, "p001", {"topic": "owls"})["result"]
    assert result == {"description": "prompt 1", "messages": [
        {"role": "user", "content": {"type": "text", "text": "Tell me about owls in a plain tone"}}]}


def test_get_unknown_prompt_names_it(wire):
    wire.initialize()
    assert get(wire, "nope")["error"] == {"code": -32602, "message": "Unknown prompt: 'nope'"}


def test_get_lists_every_missing_required_argument():
    wire = Wire({"prompts": [{"name": "p", "arguments": [
        {"name": "a", "required": True}, {"name": "b", "required": True}, {"name": "c"}],
        "messages": [{"role": "user", "text": "{a}{b}{c}"}]}]})
    wire.initialize()
    assert get(wire, "p", {"c": "1"})["error"] == {"code": -32602, "message": (
        "Invalid arguments for prompt 'p': missing required arguments: 'a', 'b'")}


def test_get_names_undeclared_arguments(wire):
    wire.initialize()
    assert get(wire, "p000", {"topic": "t", "zzz": "1", "yyy": "2"})["error"]["message"] == (
        "Invalid arguments for prompt 'p000': undeclared arguments: 'zzz', 'yyy'")


@pytest.mark.parametrize("arguments", [[], "a", 3, True])
def test_get_arguments_must_be_an_object(wire, arguments):
    wire.initialize()
    assert get(wire, "p000", arguments)["error"]["code"] == -32602


@pytest.mark.parametrize("value", [1, None, True, ["x"], {"x": 1}])
def test_get_argument_values_must_be_strings(wire, value):
    wire.initialize()
    error = get(wire, "p000", {"topic": value})["error"]
    assert error["code"] == -32602 and "must be strings: 'topic'" in error["message"]


@pytest.mark.parametrize("name", [None, 3, True, ["p000"]])
def test_get_name_must_be_a_string(wire, name):
    wire.initialize()
    assert get(wire, name)["error"]["code"] == -32602


def test_get_error_message_echo_is_bounded(wire):
    wire.initialize()
    message = get(wire, "x" * 10000)["error"]["message"]
    assert len(message) < 200


def test_values_are_inserted_verbatim(wire):
    wire.initialize()
    for value in ["{tone}", "{0.__class__}", "%s", "${x}", "\0", "a\nb", "x" * 1000000]:
        text = get(wire, "p000", {"topic": value, "tone": "T"})["result"]["messages"][0]["content"]["text"]
        assert text == "Tell me about %s in a T tone" % value


def test_render_callable_output_is_served():
    calls = []

    def render(arguments):
        calls.append(arguments)
        return [{"role": "assistant", "text": "got " + arguments["a"] + arguments["b"]}]

    wire = Wire({"prompts": [{"name": "r", "arguments": [{"name": "a"}, {"name": "b", "default": "B"}],
                              "render": render}]})
    wire.initialize()
    assert get(wire, "r", {"a": "A"})["result"]["messages"] == [
        {"role": "assistant", "content": {"type": "text", "text": "got AB"}}]
    assert calls == [{"a": "A", "b": "B"}]


def test_render_callable_may_return_a_string():
    wire = Wire({"prompts": [{"name": "r", "render": lambda args: "plain"}]})
    wire.initialize()
    assert get(wire, "r")["result"]["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "plain"}}]


@pytest.mark.parametrize("render", [lambda a: 1 / 0, lambda a: 42, lambda a: [{"role": "system", "text": "x"}]])
def test_failing_render_is_internal_error_with_logged_id(render):
    logged = []
    wire = Wire({"prompts": [{"name": "r", "render": render}]},
                log=lambda level, msg, exc=None: logged.append((level, msg, exc)))
    wire.initialize()
    error = get(wire, "r")["error"]
    assert error["code"] == -32603
    assert error["message"] == "Internal error"  # fixed: the id is in data, the details on stderr
    assert "Traceback" not in json.dumps(error)
    [(level, msg, exc)] = logged
    assert level == "error" and error["data"]["errorId"] in msg and exc is not None
    assert wire.result("ping") == {}


# --- content shaping ----------------------------------------------------------------------

AUDIO = {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}
LINK = {"type": "resource_link", "uri": "file:///r.txt", "name": "r", "title": "R", "mimeType": "text/plain",
        "size": 3, "description": "a file", "icons": [{"src": "https://x/i.png"}]}
DATED = {"type": "text", "text": "t", "annotations": {"priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"},
         "_meta": {"k": 1}}


def content_for(version, block):
    wire = Wire({"prompts": [{"name": "p", "messages": [{"role": "user", "content": block}]}]})
    wire.initialize(version)
    return get(wire, "p")["result"]["messages"][0]["content"]


def test_audio_becomes_text_before_2025_03_26():
    assert content_for("2024-11-05", AUDIO) == {"type": "text", "text": "[audio audio/wav, base64] AAAA"}
    assert content_for("2025-03-26", AUDIO) == AUDIO


def test_resource_link_becomes_text_before_2025_06_18():
    assert content_for("2025-03-26", LINK) == {
        "type": "text", "text": "[resource link] R (r) <file:///r.txt> (text/plain) 3 bytes: a file"}
    without_icons = dict(LINK)
    del without_icons["icons"]
    assert content_for("2025-06-18", LINK) == without_icons
    assert content_for("2025-11-25", LINK) == LINK


def test_last_modified_becomes_a_line_of_text_and_meta_is_dropped_before_2025_06_18():
    assert content_for("2025-03-26", DATED) == {
        "type": "text", "text": "t\n[last modified 2025-01-01T00:00:00Z]", "annotations": {"priority": 0.5}}
    assert content_for("2025-06-18", DATED) == DATED


@pytest.mark.parametrize("block, text", [
    ({"type": "image", "data": "AAAA", "mimeType": "image/png"}, "[image image/png, base64] AAAA"),
    ({"type": "resource", "resource": {"uri": "file:///a", "mimeType": "text/plain", "text": "hi"}},
     "[resource <file:///a> (text/plain)]\nhi"),
    ({"type": "resource", "resource": {"uri": "file:///a", "mimeType": "application/zip", "blob": "AAAA"}},
     "[resource <file:///a> (application/zip), base64] AAAA"),
    (AUDIO, "[audio audio/wav, base64] AAAA"),
])
def test_a_dated_block_becomes_text_carrying_its_data_and_date_before_2025_06_18(block, text):
    dated = dict(block, annotations={"audience": ["user"], "lastModified": "2025-01-01T00:00:00Z"})
    assert content_for("2025-03-26", dated) == {
        "type": "text", "text": text + "\n[last modified 2025-01-01T00:00:00Z]", "annotations": {"audience": ["user"]}}
    assert content_for("2025-06-18", dated) == dated


def test_templates_fill_resource_uri_and_text():
    block = {"type": "resource", "resource": {"uri": "file:///{f}", "text": "<{f}>", "mimeType": "text/plain"}}
    wire = Wire({"prompts": [{"name": "p", "arguments": [{"name": "f"}],
                              "messages": [{"role": "user", "content": block}]}]})
    wire.initialize()
    content = get(wire, "p", {"f": "a.txt"})["result"]["messages"][0]["content"]
    assert content == {"type": "resource", "resource": {
        "uri": "file:///a.txt", "text": "<a.txt>", "mimeType": "text/plain"}}
    assert block["resource"]["uri"] == "file:///{f}"  # the template itself is untouched


def test_session_accepts_a_plain_config_dict():
    session = Session(simple_config())
    assert lines(session, b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n') == [
        {"jsonrpc": "2.0", "id": 1, "result": {}}]


def test_prompts_changed_notifies_only_when_promised():
    server = Server(simple_config(), list_changed=True)
    session = server.session()
    assert session.prompts_changed() == b""  # not initialized yet
    lines(session, b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}\n')
    assert json.loads(session.prompts_changed()) == {
        "jsonrpc": "2.0", "method": "notifications/prompts/list_changed"}
    quiet = Server(simple_config()).session()
    lines(quiet, b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}\n')
    assert quiet.prompts_changed() == b""


# --- cancellation ---------------------------------------------------------------------------

def test_cancelled_request_pipelined_in_the_same_read_gets_no_reply(wire):
    wire.initialize()
    replies = wire.send(
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "p000", "arguments": {"topic": "x"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}},
    )
    assert [r["id"] for r in replies] == [1, 3]


@pytest.mark.parametrize("budget", [1, 10 ** 6])
def test_a_cancel_read_with_its_request_drops_the_reply_whatever_the_budget(wire, budget):
    # with budget 1 the session stops after each reply: the cancels held back behind them
    # still drop them before anything is returned, as one unbudgeted call would
    wire.initialize()
    data = b"".join(json.dumps(m).encode() + b"\n" for m in (
        {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "p000", "arguments": {"topic": "x"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}},
        {"jsonrpc": "2.0", "id": 4, "method": "ping"}))
    out = wire.session.receive_data(data, budget)
    while wire.session.pending:
        out += wire.session.resume(budget)
    assert [json.loads(x)["id"] for x in out.splitlines()] == [4]


def test_cancel_matches_the_id_type(wire):
    wire.initialize()
    replies = wire.send(
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "2"}},
    )
    assert [r["id"] for r in replies] == [2]


def test_cancel_of_unknown_or_finished_id_is_ignored(wire):
    wire.initialize()
    assert wire.result("ping") == {}
    assert wire.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}) == []
    assert wire.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}) == []
    assert wire.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": 7}) == []
    assert wire.result("ping") == {}


def test_initialize_cannot_be_cancelled(wire):
    replies = wire.send(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
    )
    assert [r["id"] for r in replies] == [1]


# --- literal braces ----------------------------------------------------------------------------

def test_doubled_braces_are_served_single_with_or_without_placeholders():
    wire = Wire({"prompts": [
        {"name": "a", "messages": [{"role": "user", "text": 'JSON: {{"k": 1}}'}]},
        {"name": "b", "arguments": [{"name": "x"}], "messages": [{"role": "user", "text": 'JSON: {{"k": {x}}}'}]},
        {"name": "c", "messages": [{"role": "user", "content": {
            "type": "resource", "resource": {"uri": "u:{{a}}", "text": "{{t}}"}}}]},
        {"name": "d", "messages": [{"role": "user", "content": {"type": "text", "text": "{{}}"}}]},
    ]})
    wire.initialize()
    content = lambda name, args=None: get(wire, name, args)["result"]["messages"][0]["content"]  # noqa: E731
    assert content("a")["text"] == 'JSON: {"k": 1}'
    assert content("b", {"x": "2"})["text"] == 'JSON: {"k": 2}'
    assert content("c")["resource"] == {"uri": "u:{a}", "text": "{t}", "mimeType": "text/plain"}
    assert content("d")["text"] == "{}"


@pytest.mark.parametrize("resource, mime", [
    ({"uri": "file:///a", "text": "t"}, "text/plain"),
    ({"uri": "file:///a", "blob": "AAAA"}, "application/octet-stream"),
    ({"uri": "file:///a", "text": "t", "mimeType": "text/markdown"}, "text/markdown"),
])
def test_an_embedded_resource_always_carries_a_mime_type(resource, mime):
    # every revision's prompts page: embedded resources MUST include the appropriate MIME type
    block = {"type": "resource", "resource": resource}
    for version in ("2024-11-05", "2025-11-25"):
        assert content_for(version, block)["resource"]["mimeType"] == mime


@pytest.mark.parametrize("mime", ["", "png", "image/", "/png", "image/p ng", " image/png", "image/png\n", "+a/b"])
def test_image_audio_and_resource_mime_types_must_look_like_one(mime):
    from tinymcp import ConfigError, load_config
    for block, where in (({"type": "image", "data": "AAAA", "mimeType": mime}, "content.mimeType"),
                         ({"type": "resource", "resource": {"uri": "u:x", "text": "t", "mimeType": mime}},
                          "content.resource.mimeType")):
        with pytest.raises(ConfigError) as info:
            load_config({"prompts": [{"name": "p", "messages": [{"role": "user", "content": block}]}]})
        assert info.value.problems == [("prompts[0].messages[0].%s" % where,
                                        "expected a MIME type like 'image/png', got %r" % mime)]


def test_config_dicts_are_never_changed_by_loading():
    import copy
    config = {"prompts": [{"name": "c", "messages": [{"role": "user", "content": {
        "type": "resource", "resource": {"uri": "u:{{a}}", "text": "{{t}}"}}}]}]}
    before = copy.deepcopy(config)
    Wire(config)
    assert config == before


def test_cancel_drops_an_error_reply_too(wire):
    wire.initialize()
    replies = wire.send(
        {"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "nope"}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    )
    assert [r["id"] for r in replies] == [2]


def test_cancel_drops_the_requests_notifications_with_its_reply(wire):
    wire.initialize()
    wire.result("logging/setLevel", {"level": "debug"})
    replies = wire.send(
        {"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "p000", "arguments": {"topic": "t"}}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
    )
    assert replies == []


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


def test_cursor_after_a_very_long_name_is_accepted():
    long = "n" * 5000
    wire = Wire({"page_size": 1, "prompts": [{"name": long, "messages": [{"role": "user", "text": "x"}]},
                                             {"name": "z", "messages": [{"role": "user", "text": "x"}]}]})
    wire.initialize()
    first = wire.result("prompts/list")
    assert [p["name"] for p in wire.result("prompts/list", {"cursor": first["nextCursor"]})["prompts"]] == ["z"]


def test_integer_literals_are_bounded_the_same_on_every_python(wire):
    [reply] = wire.raw(b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"ping"}\n')
    assert reply["error"] == {"code": -32700, "message": "Parse error: integer literal longer than 4000 digits"}


def test_both_messages_and_render_still_checks_the_messages():
    from tinymcp import ConfigError, load_config
    with pytest.raises(ConfigError) as info:
        load_config({"prompts": [{"name": "p", "render": lambda a: "x",
                                  "messages": [{"role": "bot", "text": "x"}]}]})
    assert info.value.problems == [
        ("prompts[0]", "expected exactly one of 'messages' or 'render'"),
        ("prompts[0].messages[0].role", "expected 'user' or 'assistant', got 'bot'"),
    ]


def test_config_meta_must_be_json():
    from tinymcp import ConfigError, load_config
    with pytest.raises(ConfigError) as info:
        load_config({"prompts": [{"name": "p", "_meta": {"x": float("nan")},
                                  "messages": [{"role": "user", "text": "x"}]}]})
    [(path, message)] = info.value.problems
    assert path == "prompts[0]._meta" and message.startswith("expected JSON data")


def test_json_config_cannot_smuggle_code():
    from tinymcp import ConfigError, load_config
    with pytest.raises(ConfigError) as info:
        load_config({"prompts": [{"name": "p", "render": "__import__('os').system('true')"}]})
    assert info.value.problems == [("prompts[0].render", "expected a callable, got a string")]
