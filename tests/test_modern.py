"""The stateless 2026-07-28 era beside the handshake era, through the sans-I/O core.

Every message the server writes here is validated against the 2026-07-28 schema.
"""

import json

import pytest

from conftest import simple_config
from schema_check import SPEC_DIR, check_server_message
import tinymcp
from tinymcp import Server

MODERN = "2026-07-28"
HAVE_SPEC = (SPEC_DIR / MODERN / "schema.json").exists()


def meta(version=MODERN, **extra):
    m = {"io.modelcontextprotocol/protocolVersion": version,
         "io.modelcontextprotocol/clientCapabilities": {},
         "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"}}
    m.update(extra)
    return m


class Modern:
    """A session driven with modern requests; validates everything it receives."""

    def __init__(self, config=None, **options):
        self.server = Server(config or simple_config(7, page_size=3), **options)
        self.session = self.server.session()
        self.methods = {}
        self.modern_ids = set()
        self.ids = 0
        self.validate = True

    def feed(self, *messages):
        for m in messages:
            if "id" in m and "method" in m:
                self.methods[m["id"]] = m["method"]
                params = m.get("params")
                if (isinstance(params, dict) and "_meta" in params) or m["method"] == "server/discover":
                    self.modern_ids.add(m["id"])
        data = b"".join(json.dumps(m).encode() + b"\n" for m in messages)
        return self.decode(self.session.receive_data(data))

    def decode(self, out):
        msgs = [json.loads(x) for x in out.split(b"\n") if x]
        for m in msgs:
            modern = "id" not in m or m["id"] in self.modern_ids
            if self.validate and HAVE_SPEC and modern:
                errors = check_server_message(MODERN, m, self.methods.get(m.get("id")))
                assert errors == [], (m, errors)
        return msgs

    def call(self, method, params=None, rid=None, **meta_extra):
        if rid is None:
            self.ids += 1
            rid = self.ids
        params = dict(params or {})
        params.setdefault("_meta", meta(**meta_extra))
        replies = self.feed({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return replies


def one(replies):
    assert len(replies) == 1, replies
    return replies[0]


def test_discover_answers_with_versions_capabilities_and_identity():
    m = Modern(simple_config(server={"name": "srv", "version": "2", "instructions": "hi"}, ttl_ms=5000))
    result = one(m.call("server/discover"))["result"]
    assert result == {
        "resultType": "complete", "supportedVersions": [MODERN],
        "capabilities": {"prompts": {"listChanged": False}, "logging": {}, "completions": {}},
        "instructions": "hi", "ttlMs": 5000, "cacheScope": "public",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "srv", "version": "2"}},
    }


def test_discover_without_meta_still_answers():
    m = Modern()
    m.feed({"jsonrpc": "2.0", "id": 1, "method": "server/discover"})
    [reply] = m.feed({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {}})
    assert reply["result"]["supportedVersions"] == [MODERN]


def test_discover_on_a_connection_that_ran_initialize():
    m = Modern()
    m.feed({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}})
    assert one(m.call("server/discover"))["result"]["resultType"] == "complete"
    [legacy] = m.feed({"jsonrpc": "2.0", "id": 9, "method": "prompts/list"})
    assert "resultType" not in legacy["result"] and len(legacy["result"]["prompts"]) == 3


def test_a_listing_never_mixes_cache_scopes_across_a_reload():
    # caching "Interaction with Pagination": the same scope MUST apply to every page; a
    # reload that changes it makes the old listing's cursor invalid, never a page 2 under
    # the new scope
    m = Modern(simple_config(7, page_size=3), list_changed=True)
    first = one(m.call("prompts/list"))["result"]
    assert first["cacheScope"] == "public"
    m.server.replace_config(simple_config(7, page_size=3, cache_scope="private"))
    assert one(m.call("prompts/list", {"cursor": first["nextCursor"]}))["error"] == {
        "code": -32602, "message": "Invalid cursor"}
    again = one(m.call("prompts/list"))["result"]
    second = one(m.call("prompts/list", {"cursor": again["nextCursor"]}))["result"]
    assert again["cacheScope"] == second["cacheScope"] == "private"
    # the handshake era has no cache scope: its cursors do not depend on it
    m.feed({"jsonrpc": "2.0", "id": "i", "method": "initialize", "params": {"protocolVersion": "2025-11-25"}})
    legacy = m.feed({"jsonrpc": "2.0", "id": "l", "method": "prompts/list"})[0]["result"]
    m.server.replace_config(simple_config(7, page_size=3, cache_scope="public"))
    page = m.feed({"jsonrpc": "2.0", "id": "l2", "method": "prompts/list", "params": {"cursor": legacy["nextCursor"]}})
    assert [p["name"] for p in page[0]["result"]["prompts"]] == ["p003", "p004", "p005"]


def test_handshake_cursors_keep_the_format_they_had_before_scopes():
    # a client paging across a server upgrade keeps its place in the handshake era
    import base64
    import binascii
    from tinymcp.prompts import decode_cursor, encode_cursor
    raw = "p002".encode()
    before = base64.urlsafe_b64encode(binascii.crc32(b"tinymcp-cursor-1\0" + raw).to_bytes(4, "big") + raw)
    assert encode_cursor("p002") == before.decode().rstrip("=")
    assert decode_cursor(before.decode().rstrip("=")) == "p002"


def test_modern_list_walks_every_page_with_cache_hints():
    m = Modern(simple_config(7, page_size=3, cache_scope="private", ttl_ms=0))
    names, cursor, pages = [], None, 0
    while True:
        result = one(m.call("prompts/list", {"cursor": cursor} if cursor else {}))["result"]
        pages += 1
        assert result["resultType"] == "complete"
        assert result["ttlMs"] == 0 and result["cacheScope"] == "private"
        assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "tinymcp"
        names += [p["name"] for p in result["prompts"]]
        cursor = result.get("nextCursor")
        if not cursor:
            break
    assert pages == 3 and names == ["p%03d" % i for i in range(7)]


def test_modern_get_renders_and_ignores_mrtr_fields():
    m = Modern()
    result = one(m.call("prompts/get", {"name": "p001", "arguments": {"topic": "owls"},
                                        "inputResponses": {}, "requestState": "opaque"}))["result"]
    assert result["resultType"] == "complete"
    assert result["messages"][0]["content"]["text"] == "Tell me about owls in a plain tone"
    assert "ttlMs" not in result


def test_modern_errors_keep_their_codes():
    m = Modern()
    assert one(m.call("prompts/get", {"name": "nope"}))["error"]["code"] == -32602
    assert one(m.call("prompts/get", {"name": "p000"}))["error"]["code"] == -32602
    assert one(m.call("prompts/list", {"cursor": "bogus"}))["error"] == {"code": -32602, "message": "Invalid cursor"}
    assert one(m.call("tools/list"))["error"]["code"] == -32601


@pytest.mark.parametrize("method", ["ping", "initialize", "logging/setLevel"])
def test_methods_removed_in_2026_are_not_found_in_modern_requests(method):
    m = Modern()
    assert one(m.call(method))["error"]["code"] == -32601


def test_request_without_meta_or_handshake_names_the_missing_keys():
    m = Modern()
    [reply] = m.feed({"jsonrpc": "2.0", "id": 1, "method": "prompts/list", "params": {}})
    error = reply["error"]
    assert error["code"] == -32602
    assert "io.modelcontextprotocol/protocolVersion" in error["message"]
    assert "io.modelcontextprotocol/clientCapabilities" in error["message"]
    assert MODERN in error["data"]["supported"] and "2025-11-25" in error["data"]["supported"]


@pytest.mark.parametrize("meta, missing", [
    (None, "io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities"),
    ({"io.modelcontextprotocol/clientCapabilities": {}}, "io.modelcontextprotocol/protocolVersion"),
])
def test_listen_without_its_version_key_names_the_missing_keys(meta, missing):
    # subscriptions/listen exists only in the stateless era: before any handshake, a listen
    # missing the version key is a modern request missing a field (-32602), not unknown.
    m = Modern()
    params = {"notifications": {"promptsListChanged": True}}
    if meta is not None:
        params["_meta"] = meta
    [reply] = m.feed({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": params})
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"] == "Invalid params: missing params._meta keys: " + missing


def test_listen_without_meta_after_a_handshake_is_not_found():
    m = Modern()
    [init] = m.feed({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}})
    assert init["result"]["protocolVersion"] == "2025-11-25"
    [reply] = m.feed({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {}})
    assert reply["error"]["code"] == -32601


def test_missing_client_capabilities_is_invalid_params_naming_it():
    m = Modern()
    params = {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}
    [reply] = m.feed({"jsonrpc": "2.0", "id": 1, "method": "prompts/list", "params": params})
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"] == (
        "Invalid params: missing params._meta keys: io.modelcontextprotocol/clientCapabilities")
    assert reply["error"]["data"] == {"supported": [MODERN]}  # it named a stateless version


@pytest.mark.parametrize("method", ["tools/list", "ping", "initialize", "subscriptions/listen"])
def test_unsupported_version_is_32022_whatever_the_method(method):
    m = Modern()
    error = one(m.call(method, version="2099-01-01"))["error"]
    assert error["code"] == -32022 and error["data"]["requested"] == "2099-01-01"


def test_unsupported_version_echo_is_bounded():
    m = Modern()
    error = one(m.call("prompts/list", version="9" * 100000))["error"]
    assert error["code"] == -32022 and error["data"]["requested"] == "9" * 80 + "..."


@pytest.mark.parametrize("version", ["2025-11-25", "2099-01-01", "1.0"])
def test_unsupported_version_is_32022_with_supported_and_requested(version):
    m = Modern()
    error = one(m.call("prompts/list", version=version))["error"]
    assert error == {"code": -32022, "message": "Unsupported protocol version",
                     "data": {"supported": [MODERN], "requested": version}}


def test_unsupported_version_on_discover_is_a_modern_error():
    m = Modern()
    assert one(m.call("server/discover", version="2030-01-01"))["error"]["code"] == -32022


def test_nothing_is_inferred_from_earlier_requests():
    m = Modern()
    assert "result" in one(m.call("prompts/list"))
    [reply] = m.feed({"jsonrpc": "2.0", "id": 50, "method": "prompts/list", "params": {}})
    assert reply["error"]["code"] == -32602


def test_mixed_legacy_and_modern_requests_on_one_connection():
    m = Modern()
    [init] = m.feed({"jsonrpc": "2.0", "id": "i", "method": "initialize",
                     "params": {"protocolVersion": "2024-11-05"}})
    assert init["result"]["protocolVersion"] == "2024-11-05"
    modern = one(m.call("prompts/list"))["result"]
    [legacy] = m.feed({"jsonrpc": "2.0", "id": "l", "method": "prompts/list"})
    assert modern["resultType"] == "complete" and "resultType" not in legacy["result"]
    assert [p["name"] for p in modern["prompts"]] == [p["name"] for p in legacy["result"]["prompts"]]
    [ping] = m.feed({"jsonrpc": "2.0", "id": "p", "method": "ping"})
    assert ping["result"] == {}


def test_modern_prompt_fields_follow_the_2026_schema():
    prompt = {"name": "p", "title": "P", "icons": [{"src": "https://x/i.png", "sizes": ["any"]}],
              "_meta": {"x.y/z": 1}, "arguments": [{"name": "a", "title": "A"}],
              "messages": [{"role": "user", "content": {
                  "type": "resource_link", "uri": "file:///{a}", "name": "n", "icons": [{"src": "https://x/i.png"}],
                  "annotations": {"lastModified": "2025-01-01T00:00:00Z"}}}]}
    m = Modern({"prompts": [prompt]})
    listed = one(m.call("prompts/list"))["result"]["prompts"][0]
    assert listed == {"name": "p", "title": "P", "icons": prompt["icons"], "_meta": {"x.y/z": 1},
                      "arguments": [{"name": "a", "title": "A"}]}
    content = one(m.call("prompts/get", {"name": "p", "arguments": {"a": "f"}}))["result"]["messages"][0]["content"]
    assert content["uri"] == "file:///f" and content["icons"] and content["annotations"]


def test_batches_are_refused_for_modern_requests():
    m = Modern()
    m.feed({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}})
    m.validate = False
    [batch] = m.feed([{"jsonrpc": "2.0", "id": 2, "method": "prompts/list", "params": {"_meta": meta()}}])
    assert batch[0]["error"]["code"] == -32600


# --- per-request logging -----------------------------------------------------------------

def test_log_messages_only_when_asked_and_before_the_response():
    m = Modern()
    replies = m.call("prompts/get", {"name": "p000", "arguments": {"topic": "t"}},
                     **{"io.modelcontextprotocol/logLevel": "debug"})
    assert [r.get("method") for r in replies] == ["notifications/message", None]
    note = replies[0]["params"]
    assert note["level"] == "debug" and note["logger"] == "tinymcp" and "p000" in note["data"]
    assert len(m.call("prompts/get", {"name": "p000", "arguments": {"topic": "t"}})) == 1


def test_log_messages_below_the_level_are_not_sent():
    m = Modern()
    replies = m.call("prompts/get", {"name": "p000", "arguments": {"topic": "t"}},
                     **{"io.modelcontextprotocol/logLevel": "info"})
    assert len(replies) == 1 and "result" in replies[0]


def test_failing_render_logs_an_error_for_that_request_only():
    m = Modern({"prompts": [{"name": "bad", "render": lambda a: 1 / 0}]})
    replies = m.call("prompts/get", {"name": "bad"}, **{"io.modelcontextprotocol/logLevel": "error"})
    assert [r.get("method") for r in replies] == ["notifications/message", None]
    assert replies[0]["params"]["level"] == "error"
    assert replies[0]["params"]["data"]["errorId"] == replies[1]["error"]["data"]["errorId"]


@pytest.mark.parametrize("level", ["verbose", 3, None, "DEBUG"])
def test_unknown_log_level_is_invalid_params(level):
    m = Modern()
    reply = one(m.call("prompts/list", **{"io.modelcontextprotocol/logLevel": level}))
    assert reply["error"]["code"] == -32602


def test_progress_token_is_accepted():
    m = Modern()
    params = {"name": "p000", "arguments": {"topic": "t"}}
    params["_meta"] = dict(meta(), progressToken="tok")
    assert "result" in one(m.call("prompts/get", params))


# --- subscriptions/listen -----------------------------------------------------------------

LISTEN = {"notifications": {"promptsListChanged": True, "toolsListChanged": True,
                            "resourceSubscriptions": ["file:///x"]}}


def test_listen_acknowledges_the_honoured_subset_and_stays_open():
    m = Modern(list_changed=True)
    replies = m.call("subscriptions/listen", LISTEN, rid="sub-1")
    assert replies == [{"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {
        "_meta": {"io.modelcontextprotocol/subscriptionId": "sub-1"},
        "notifications": {"promptsListChanged": True}}}]
    assert "sub-1" in m.session.streams


def test_listen_stream_gets_tagged_list_changed_after_a_runtime_change():
    m = Modern(list_changed=True)
    m.call("subscriptions/listen", LISTEN, rid=7)
    m.server.replace_config(simple_config(2))
    [note] = m.decode(m.session.prompts_changed())
    assert note == {"jsonrpc": "2.0", "method": "notifications/prompts/list_changed",
                    "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 7}}}
    assert len(one(m.call("prompts/list"))["result"]["prompts"]) == 2


def test_nothing_after_the_stream_is_cancelled():
    m = Modern(list_changed=True)
    m.call("subscriptions/listen", LISTEN, rid=7)
    assert m.feed({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}) == []
    m.server.replace_config(simple_config(2))
    assert m.session.prompts_changed() == b""


def test_a_listen_cancelled_in_the_same_read_sends_nothing_at_all():
    # stdio "Cancellation": no further messages for a cancelled request, so the queued
    # acknowledgement goes too; a later change notifies no one
    m = Modern(list_changed=True)
    listen = {"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": dict(LISTEN, _meta=meta())}
    replies = m.feed(listen, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
    assert replies == []
    m.server.replace_config(simple_config(2))
    assert m.session.prompts_changed() == b""


def test_types_not_asked_for_are_never_sent():
    m = Modern(list_changed=True)
    m.call("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, rid=1)
    assert m.session.streams[1] == {}
    assert m.session.prompts_changed() == b""


def test_listen_without_a_change_source_honours_nothing():
    m = Modern()
    [ack] = m.call("subscriptions/listen", LISTEN, rid=1)
    assert ack["params"]["notifications"] == {}


def test_several_streams_each_get_their_own_tag():
    m = Modern(list_changed=True)
    m.call("subscriptions/listen", LISTEN, rid=1)
    m.call("subscriptions/listen", LISTEN, rid="two")
    tags = [n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
            for n in m.decode(m.session.prompts_changed())]
    assert tags == [1, "two"]


def test_legacy_session_and_listen_stream_both_notified():
    m = Modern(list_changed=True)
    m.feed({"jsonrpc": "2.0", "id": "i", "method": "initialize", "params": {"protocolVersion": "2025-11-25"}})
    m.call("subscriptions/listen", LISTEN, rid=5)
    notes = m.decode(m.session.prompts_changed())
    assert [n.get("params") for n in notes] == [None, {"_meta": {"io.modelcontextprotocol/subscriptionId": 5}}]


def test_server_ending_streams_sends_cancelled_then_result():
    # cancelled while the request is still in progress (cancellation "Behavior
    # Requirements"), tagged like everything on the stream; then the graceful result
    m = Modern(list_changed=True)
    m.call("subscriptions/listen", LISTEN, rid=3)
    cancelled, result = m.decode(m.session.end_streams())
    assert result == {"jsonrpc": "2.0", "id": 3, "result": {
        "resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": 3,
                                            "io.modelcontextprotocol/serverInfo": {"name": "tinymcp",
                                                                                   "version": tinymcp.__version__}}}}
    assert cancelled == {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
        "requestId": 3, "reason": "server shutting down", "_meta": {"io.modelcontextprotocol/subscriptionId": 3}}}
    assert m.session.streams == {}


def test_eof_ends_open_streams_so_every_request_read_is_answered():
    m = Modern(list_changed=True)
    m.call("subscriptions/listen", LISTEN, rid=3)
    m.call("subscriptions/listen", LISTEN, rid=4)
    m.feed({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}})
    replies = m.decode(m.session.receive_data(b""))
    assert [(r.get("id"), r.get("method")) for r in replies] == [(None, "notifications/cancelled"), (3, None)]
    assert replies[1]["result"]["resultType"] == "complete"
    assert m.session.streams == {}


def test_eof_ends_streams_when_a_budget_held_lines_back_until_then():
    # the last lines (a request and its cancel) are served at EOF under a budget: the
    # cancel drops the reply, and the open stream still ends
    m = Modern(list_changed=True)
    m.call("subscriptions/listen", LISTEN, rid=3)
    meta_ = meta()
    data = b"".join(json.dumps(x).encode() + b"\n" for x in (
        {"jsonrpc": "2.0", "id": 10, "method": "prompts/list", "params": {"_meta": meta_}},
        {"jsonrpc": "2.0", "id": 11, "method": "prompts/list", "params": {"_meta": meta_}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 11}}))
    first = m.decode(m.session.receive_data(data, 1))
    assert [r.get("id") for r in first] == [10] and m.session.pending == 2
    last = m.decode(m.session.receive_data(b"", 1))
    assert [(r.get("id"), r.get("method")) for r in last] == [(None, "notifications/cancelled"), (3, None)]


@pytest.mark.parametrize("notifications", [None, [], "all"])
def test_listen_needs_a_filter_object(notifications):
    m = Modern(list_changed=True)
    params = {} if notifications is None else {"notifications": notifications}
    assert one(m.call("subscriptions/listen", params))["error"]["code"] == -32602


def test_unsupported_version_wins_over_missing_keys():
    m = Modern()
    params = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}}
    [reply] = m.feed({"jsonrpc": "2.0", "id": 1, "method": "prompts/list", "params": params})
    assert reply["error"]["code"] == -32022


@pytest.mark.parametrize("params", ["x", [1], 3])
def test_discover_params_must_be_an_object(params):
    m = Modern()
    m.validate = False
    [reply] = m.feed({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": params})
    assert reply["error"]["code"] == -32602


def test_an_unhashable_log_level_is_invalid_params():
    m = Modern()
    reply = one(m.call("prompts/list", **{"io.modelcontextprotocol/logLevel": ["debug"]}))
    assert reply["error"]["code"] == -32602
