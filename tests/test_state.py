"""Connection state: the handshake state table, each request's era, stateless _meta rules, batches, listen streams."""

import json

import pytest

from conftest import LISTEN, META_SUB, MODERN, Wire, meta, modern_wire, one, req, simple_config
from tinymcp import Session
from tinymcp.protocol.revisions import ALL_VERSIONS


# --- the handshake state table ----------------------------------------------------------

def test_ping_before_initialize(wire):
    assert wire.result("ping") == {}


def test_known_request_before_initialize_fails_at_once(wire):
    expected = {
        "code": -32602,
        "message": "Session not initialized: send initialize before prompts/list, or give "
                   "io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities "
                   "in params._meta",
        "data": {"supported": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]}}
    assert wire.error("prompts/list") == expected
    assert wire.error("prompts/list", {}) == expected  # params without _meta: the same


def test_unknown_request_before_initialize_is_method_not_found(wire):
    assert wire.error("server/discover-ish")["code"] == -32601


def test_second_initialize_is_invalid_request(wire):
    wire.initialize()
    assert wire.error("initialize", {"protocolVersion": "2025-11-25"}) == {
        "code": -32600, "message": "Invalid Request: already initialized"}


def test_prompts_served_without_initialized_notification(wire):
    wire.result("initialize", {"protocolVersion": "2025-11-25"})
    assert len(wire.result("prompts/list")["prompts"]) == 3


def test_initialize_cannot_be_cancelled(wire):
    replies = wire.send(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
    )
    assert [r["id"] for r in replies] == [1]


def test_prompts_changed_notifies_only_when_promised():
    wire = Wire(simple_config(), list_changed=True)
    session = wire.session
    assert session.prompts_changed() == b""  # not initialized yet
    wire.send(req(1, "initialize", {"protocolVersion": "2025-11-25"}))
    assert json.loads(session.prompts_changed()) == {
        "jsonrpc": "2.0", "method": "notifications/prompts/list_changed"}
    quiet = Wire(simple_config())
    quiet.send(req(1, "initialize", {"protocolVersion": "2025-11-25"}))
    assert quiet.session.prompts_changed() == b""


def test_server_events_reach_sessions_at_their_level(wire):
    assert wire.session.log_event("error", {"event": "reload failed"}) == b""  # not initialized
    wire.initialize()
    assert wire.session.log_event("error", {"event": "reload failed"}) == b""  # no level set
    wire.result("logging/setLevel", {"level": "notice"})
    assert json.loads(wire.session.log_event("notice", {"event": "reloaded"}))["params"] == {
        "level": "notice", "logger": "tinymcp", "data": {"event": "reloaded"}}
    assert wire.session.log_event("info", "quiet") == b""


# --- each request's era ------------------------------------------------------------------

@pytest.mark.parametrize("params", [None, {}, {"_meta": None}, {"_meta": {}},
                                    {"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}])
def test_discover_without_its_meta_keys_is_refused_naming_them(params):
    # 2026-07-28 basic-overview "Per-request protocol fields": missing a required field,
    # MUST be -32602 (the conformance suite's server-stateless scenario sends these)
    m = modern_wire()
    request = {"jsonrpc": "2.0", "id": 2, "method": "server/discover"}
    if params is not None:
        request["params"] = params
    [reply] = m.send(request)
    error = reply["error"]
    assert error["code"] == -32602 and error["data"] == {"supported": list(ALL_VERSIONS)}
    assert error["message"].startswith("Invalid params: missing params._meta keys: ")
    assert "io.modelcontextprotocol/protocolVersion" in error["message"]
    assert "result" in one(m.modern("server/discover"))  # (and the next one, complete, is served)


def test_discover_naming_its_version_without_capabilities_is_offered_stateless_versions():
    m = modern_wire()
    [reply] = m.send({"jsonrpc": "2.0", "id": 2, "method": "server/discover",
                      "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}})
    assert reply["error"] == {"code": -32602, "data": {"supported": [MODERN]}, "message":
                              "Invalid params: missing params._meta keys: "
                              "io.modelcontextprotocol/clientCapabilities"}


def test_discover_on_a_connection_that_ran_initialize():
    m = modern_wire()
    m.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}})
    assert one(m.modern("server/discover"))["result"]["resultType"] == "complete"
    [legacy] = m.send({"jsonrpc": "2.0", "id": 9, "method": "prompts/list"})
    assert "resultType" not in legacy["result"] and len(legacy["result"]["prompts"]) == 3


def test_nothing_is_inferred_from_earlier_requests():
    m = modern_wire()
    assert "result" in one(m.modern("prompts/list"))
    [reply] = m.send({"jsonrpc": "2.0", "id": 50, "method": "prompts/list", "params": {}})
    assert reply["error"]["code"] == -32602


def test_mixed_legacy_and_modern_requests_on_one_connection():
    m = modern_wire()
    [init] = m.send({"jsonrpc": "2.0", "id": "i", "method": "initialize",
                     "params": {"protocolVersion": "2024-11-05"}})
    assert init["result"]["protocolVersion"] == "2024-11-05"
    modern = one(m.modern("prompts/list"))["result"]
    [legacy] = m.send({"jsonrpc": "2.0", "id": "l", "method": "prompts/list"})
    assert modern["resultType"] == "complete" and "resultType" not in legacy["result"]
    assert [p["name"] for p in modern["prompts"]] == [p["name"] for p in legacy["result"]["prompts"]]
    [ping] = m.send({"jsonrpc": "2.0", "id": "p", "method": "ping"})
    assert ping["result"] == {}


@pytest.mark.parametrize("meta, missing", [
    (None, "io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities"),
    ({"io.modelcontextprotocol/clientCapabilities": {}}, "io.modelcontextprotocol/protocolVersion"),
])
def test_listen_without_its_version_key_names_the_missing_keys(meta, missing):
    # subscriptions/listen exists only in the stateless era: before any handshake, a listen
    # missing the version key is a modern request missing a field (-32602), not unknown.
    m = modern_wire()
    params = {"notifications": {"promptsListChanged": True}}
    if meta is not None:
        params["_meta"] = meta
    [reply] = m.send({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": params})
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"] == "Invalid params: missing params._meta keys: " + missing


def test_listen_without_meta_after_a_handshake_is_not_found():
    m = modern_wire()
    [init] = m.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}})
    assert init["result"]["protocolVersion"] == "2025-11-25"
    [reply] = m.send({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {}})
    assert reply["error"]["code"] == -32601


# --- the stateless era's _meta -------------------------------------------------------------

def test_missing_client_capabilities_is_invalid_params_naming_it():
    m = modern_wire()
    params = {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}
    [reply] = m.send({"jsonrpc": "2.0", "id": 1, "method": "prompts/list", "params": params})
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"] == (
        "Invalid params: missing params._meta keys: io.modelcontextprotocol/clientCapabilities")
    assert reply["error"]["data"] == {"supported": [MODERN]}  # it named a stateless version


@pytest.mark.parametrize("caps", ["yes", None, []])
def test_client_capabilities_that_are_no_object_are_invalid_params(caps):
    params = {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                        "io.modelcontextprotocol/clientCapabilities": caps}}
    [reply] = modern_wire().send({"jsonrpc": "2.0", "id": 1, "method": "prompts/list", "params": params})
    assert reply["error"] == {"code": -32602, "message": "Invalid params: "
                              "io.modelcontextprotocol/clientCapabilities must be an object"}


@pytest.mark.parametrize("method", ["tools/list", "ping", "initialize", "subscriptions/listen",
                                    "server/discover"])
def test_unsupported_version_is_32022_whatever_the_method(method):
    m = modern_wire()
    error = one(m.modern(method, version="2099-01-01"))["error"]
    assert error["code"] == -32022 and error["data"]["requested"] == "2099-01-01"


def test_unsupported_version_echo_is_bounded():
    m = modern_wire()
    error = one(m.modern("prompts/list", version="9" * 100000))["error"]
    assert error["code"] == -32022 and error["data"]["requested"] == "9" * 80 + "..."


@pytest.mark.parametrize("version", ["2025-11-25", "2099-01-01", "1.0"])
def test_unsupported_version_is_32022_with_supported_and_requested(version):
    m = modern_wire()
    error = one(m.modern("prompts/list", version=version))["error"]
    assert error == {"code": -32022, "message": "Unsupported protocol version",
                     "data": {"supported": [MODERN], "requested": version}}


def test_unsupported_version_wins_over_missing_keys():
    m = modern_wire()
    params = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}}
    [reply] = m.send({"jsonrpc": "2.0", "id": 1, "method": "prompts/list", "params": params})
    assert reply["error"]["code"] == -32022


@pytest.mark.parametrize("level", ["verbose", 3, None, "DEBUG", ["debug"]])
def test_unknown_log_level_is_invalid_params(level):
    m = modern_wire()
    reply = one(m.modern("prompts/list", **{"io.modelcontextprotocol/logLevel": level}))
    assert reply["error"]["code"] == -32602


# --- batches -----------------------------------------------------------------------------

def test_batch_refused_unless_2025_03_26(wire):
    wire.initialize("2025-06-18")
    [reply] = wire.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
    assert reply["id"] is None and reply["error"]["code"] == -32600


def test_batch_refused_before_initialize(wire):
    [reply] = wire.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
    assert reply["error"]["code"] == -32600


def test_empty_batch_is_invalid_request(wire):
    wire.initialize("2025-03-26")
    [reply] = wire.send([])
    assert reply["error"]["code"] == -32600


def test_batches_are_refused_for_modern_requests():
    m = modern_wire()
    m.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}})
    m.validate = False
    [batch] = m.send([{"jsonrpc": "2.0", "id": 2, "method": "prompts/list", "params": {"_meta": meta()}}])
    assert batch[0]["error"]["code"] == -32600


@pytest.mark.parametrize("params", [None, {}, {"_meta": {}}, "full"])
def test_a_discover_probe_in_a_batch_is_refused_with_or_without_meta(params):
    # (without _meta it was once served, with an empty one refused: found in review)
    m = modern_wire()
    m.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}})
    m.validate = False
    probe = {"jsonrpc": "2.0", "id": 2, "method": "server/discover"}
    if params == "full":
        probe["params"] = {"_meta": meta()}
    elif params is not None:
        probe["params"] = params
    [batch] = m.send([probe, {"jsonrpc": "2.0", "id": 3, "method": "ping"}])
    assert [r["id"] for r in batch] == [2, 3]
    if params == "full":
        assert batch[0]["error"] == {"code": -32600, "message": "Invalid Request: a stateless request "
                                     "(params._meta naming 2026-07-28) cannot be part of a batch"}
    else:  # (its missing keys first, as for every stateless request)
        assert batch[0]["error"]["code"] == -32602
    assert batch[1]["result"] == {}


# --- listen streams ------------------------------------------------------------------------

def test_listen_stream_gets_tagged_list_changed_after_a_runtime_change():
    m = modern_wire(list_changed=True)
    m.modern("subscriptions/listen", LISTEN, rid=7)
    m.server.replace_config(simple_config(2))
    [note] = m.decode(m.session.prompts_changed())
    assert note == {"jsonrpc": "2.0", "method": "notifications/prompts/list_changed",
                    "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 7}}}
    assert len(one(m.modern("prompts/list"))["result"]["prompts"]) == 2


def test_nothing_after_the_stream_is_cancelled():
    m = modern_wire(list_changed=True)
    m.modern("subscriptions/listen", LISTEN, rid=7)
    assert m.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}) == []
    m.server.replace_config(simple_config(2))
    assert m.session.prompts_changed() == b""


def test_types_not_asked_for_are_never_sent():
    m = modern_wire(list_changed=True)
    m.modern("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, rid=1)
    assert m.session.streams[1] == {}
    assert m.session.prompts_changed() == b""


def test_listen_without_a_change_source_honours_nothing():
    m = modern_wire()
    [ack] = m.modern("subscriptions/listen", LISTEN, rid=1)
    assert ack["params"]["notifications"] == {}


def test_several_streams_each_get_their_own_tag():
    m = modern_wire(list_changed=True)
    m.modern("subscriptions/listen", LISTEN, rid=1)
    m.modern("subscriptions/listen", LISTEN, rid="two")
    tags = [n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
            for n in m.decode(m.session.prompts_changed())]
    assert tags == [1, "two"]


def test_legacy_session_and_listen_stream_both_notified():
    m = modern_wire(list_changed=True)
    m.send({"jsonrpc": "2.0", "id": "i", "method": "initialize", "params": {"protocolVersion": "2025-11-25"}})
    m.modern("subscriptions/listen", LISTEN, rid=5)
    notes = m.decode(m.session.prompts_changed())
    assert [n.get("params") for n in notes] == [None, {"_meta": {"io.modelcontextprotocol/subscriptionId": 5}}]


def test_list_changed_is_read_from_the_server_when_it_is_needed():
    from conftest import Wire
    from conftest import simple_config
    from tinymcp import Server
    server = Server(simple_config())
    session = Session(server)
    server.list_changed = True
    wire = Wire(simple_config())
    wire.session = session
    assert wire.initialize()["capabilities"]["prompts"] == {"listChanged": True}
    assert session.prompts_changed() == b'{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}\n'
    assert Session(server, list_changed=False).prompts_changed() == b""


def test_a_protocol_version_that_is_no_string_is_invalid_params_not_unsupported():
    m = modern_wire()
    reply = one(m.modern("prompts/list", **{"io.modelcontextprotocol/protocolVersion": 20260728}))
    assert reply["error"]["code"] == -32602


def test_server_events_wait_for_initialize_and_then_follow_the_config_log_level():
    wire = Wire(simple_config(log_level="info"))
    assert wire.session.log_event("info", "reloaded") == b""
    wire.initialize()
    assert json.loads(wire.session.log_event("info", "reloaded"))["params"]["level"] == "info"
    assert wire.session.log_event("debug", "reloaded") == b""


# A second listen with an open stream's id was acknowledged and replaced the first stream's filter
def test_a_listen_reusing_the_id_of_an_open_stream_is_refused_and_the_stream_keeps_its_filter():
    m = modern_wire(list_changed=True)
    assert m.modern("subscriptions/listen", LISTEN, rid="s")[0]["params"]["notifications"] == {
        "promptsListChanged": True}
    assert one(m.modern("subscriptions/listen", {"notifications": {}}, rid="s"))["error"] == {
        "code": -32600, "message": "Invalid Request: a listen stream with this id is already open"}
    assert m.decode(m.session.prompts_changed()) == [{"jsonrpc": "2.0", "method": "notifications/prompts/list_changed",
                                                      "params": {"_meta": {META_SUB: "s"}}}]


# The documented bound (docs/decisions.md, docs/security.md: "at most 256 characters") was held only
# through the constant itself
def test_a_listen_streams_id_may_be_the_documented_256_characters():
    m = modern_wire()
    assert "error" not in one(m.modern("subscriptions/listen", LISTEN, rid="x" * 256))
    assert one(m.modern("subscriptions/listen", LISTEN, rid="y" * 257))["error"]["message"] == (
        "Invalid Request: a listen stream's id may be 256 characters at most")
