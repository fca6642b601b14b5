"""Tests for tests/schema_check.py (the JSON-Schema-subset validator used by the suite)."""
import json
import os
import subprocess
import sys

import pytest

try:
    import schema_check as sc
except ImportError:  # tests/ became a package
    from tests import schema_check as sc

v = sc.validate_against
HANDSHAKE_REVS = sc.REVISIONS[:4]  # revisions with initialize/ping
LATEST = "2026-07-28"

needs_spec = pytest.mark.skipif(bool(sc.missing_revisions()), reason=sc.skip_reason())


# ================================================================ keyword semantics
@pytest.mark.parametrize("typ, good, bad", [
    ("string", ["", "x"], [1, None, b"x", ["x"]]),
    ("integer", [0, -3, 2 ** 70, 1.0], [True, False, 1.5, "1", None]),
    ("number", [0, 1.5, -2], [True, "1", None]),
    ("boolean", [True, False], [0, 1, None, "true"]),
    ("null", [None], [0, "", False, {}]),
    ("array", [[], [1]], [(), {}, "ab"]),
    ("object", [{}, {"a": 1}], [[], None, "x"]),
])
def test_type_accepts_and_rejects_json_types(typ, good, bad):
    for value in good:
        assert v(value, {"type": typ}) == [], value
    for value in bad:
        errs = v(value, {"type": typ})
        assert errs and errs[0].startswith("$: expected %s, got " % typ), (value, errs)


def test_type_bool_is_never_integer_or_number():
    assert v(True, {"type": "integer"}) == ["$: expected integer, got boolean"]
    assert v(False, {"type": ["number", "null"]}) == ["$: expected number or null, got boolean"]


def test_type_list_accepts_any_listed_type():
    schema = {"type": ["string", "integer"]}
    assert v("a", schema) == [] and v(3, schema) == []
    assert v(1.5, schema) == ["$: expected string or integer, got number"]


def test_type_mismatch_stops_further_checks_at_that_node():
    assert v(5, {"type": "object", "required": ["a"]}) == ["$: expected object, got integer"]


def test_required_reports_each_missing_property():
    errs = v({"a": 1}, {"type": "object", "required": ["a", "b", "c"]})
    assert errs == ["$: missing required property 'b'", "$: missing required property 'c'"]


def test_properties_errors_carry_json_paths():
    schema = {"properties": {"result": {"properties": {"prompts": {"items": {
        "properties": {"name": {"type": "string"}}}}}}}}
    inst = {"result": {"prompts": [{"name": "ok"}, {"name": 7}]}}
    assert v(inst, schema) == ["$.result.prompts[1].name: expected string, got integer"]


def test_non_identifier_keys_are_bracket_quoted_in_paths():
    schema = {"properties": {"io.mcp/x": {"type": "string"}}}
    assert v({"io.mcp/x": 1}, schema) == ['$["io.mcp/x"]: expected string, got integer']


def test_properties_not_listed_are_allowed_by_default():
    assert v({"a": 1, "zzz": [1]}, {"properties": {"a": {"type": "integer"}}}) == []


def test_additional_properties_false_rejects_unknown_keys():
    schema = {"properties": {"a": {}}, "additionalProperties": False}
    assert v({"a": 1}, schema) == []
    assert v({"a": 1, "b": 2}, schema) == ["$: additional property 'b' is not allowed"]


def test_additional_properties_schema_applies_to_unknown_keys_only():
    schema = {"properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}}
    assert v({"a": "s", "b": 1}, schema) == []
    assert v({"a": "s", "b": "x"}, schema) == ["$.b: expected integer, got string"]


def test_additional_properties_ignores_properties_of_allof_siblings():
    # Standard JSON Schema trap: the second branch does not "see" the first one's properties.
    schema = {"allOf": [{"properties": {"a": {}}},
                        {"properties": {"b": {}}, "additionalProperties": False}]}
    assert v({"b": 1}, schema) == []
    assert v({"a": 1, "b": 1}, schema) == ["$: additional property 'a' is not allowed"]


def test_pattern_properties_validate_and_exempt_from_additional_properties():
    schema = {"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": False}
    assert v({"x-a": "ok"}, schema) == []
    assert v({"x-a": 1}, schema) == ['$["x-a"]: expected string, got integer']
    assert v({"y": "s"}, schema) == ["$: additional property 'y' is not allowed"]


def test_enum_uses_json_equality_so_true_is_not_1():
    assert v(1, {"enum": [1, 2]}) == [] and v(1.0, {"enum": [1]}) == []
    assert v(True, {"enum": [1, 2]}) == ["$: true is not one of [1, 2]"]
    assert v(1, {"enum": [True]}) == ["$: 1 is not one of [true]"]
    assert v({"a": [1]}, {"enum": [{"a": [1]}]}) == []


def test_const_matches_exactly():
    assert v("2.0", {"const": "2.0"}) == []
    assert v(2.0, {"const": "2.0"}) == ['$: expected const "2.0", got 2.0']
    assert v(False, {"const": 0}) == ['$: expected const 0, got false']


def test_any_of_passes_if_any_branch_passes():
    schema = {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 10}]}
    assert v("a", schema) == [] and v(12, schema) == []


def test_any_of_failure_reports_summary_and_closest_branch():
    root = {"$defs": {
        "Text": {"properties": {"type": {"const": "text"}, "text": {"type": "string"}},
                 "required": ["type", "text"]},
        "Image": {"properties": {"type": {"const": "image"}, "data": {"type": "string"}},
                  "required": ["type", "data"]}}}
    schema = {"anyOf": [{"$ref": "#/$defs/Image"}, {"$ref": "#/$defs/Text"}]}
    errs = v({"type": "text", "text": 5}, schema, root)
    assert errs == ["$: matches none of the 2 anyOf branches; closest is Text:",
                    "$.text: expected string, got integer"]


def test_one_of_requires_exactly_one_match():
    schema = {"oneOf": [{"type": "integer"}, {"minimum": 0}]}
    assert v(-1, schema) == []          # integer only
    assert v(0.5, schema) == []         # minimum only
    assert v(3, schema) == ["$: matches 2 oneOf branches [0, 1], expected exactly one"]
    assert v(-0.5, schema)[0].startswith("$: matches none of the 2 oneOf branches")


def test_all_of_collects_errors_from_every_branch():
    schema = {"allOf": [{"required": ["a"]}, {"required": ["b"]}]}
    assert v({}, schema) == ["$: missing required property 'a'", "$: missing required property 'b'"]


def test_items_validates_each_element_with_index_path():
    assert v([1, "x", 3, None], {"items": {"type": "integer"}}) == [
        "$[1]: expected integer, got string", "$[3]: expected integer, got null"]


def test_min_and_max_items():
    schema = {"minItems": 1, "maxItems": 2}
    assert v([1], schema) == [] and v([1, 2], schema) == []
    assert v([], schema) == ["$: fewer than 1 items"]
    assert v([1, 2, 3], schema) == ["$: more than 2 items (3)"]


def test_minimum_and_maximum_are_inclusive_and_ignore_non_numbers():
    schema = {"minimum": 0, "maximum": 1}
    assert v(0, schema) == [] and v(1, schema) == [] and v(0.5, schema) == []
    assert v(-0.1, schema) == ["$: -0.1 is less than minimum 0"]
    assert v(2, schema) == ["$: 2 is greater than maximum 1"]
    assert v("5", schema) == [] and v(True, schema) == []  # bounds only constrain numbers


def test_ref_resolves_definitions_and_defs_recursively():
    for key in ("definitions", "$defs"):
        root = {key: {"Node": {"type": "object", "required": ["v"], "properties": {
            "v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/%s/Node" % key}}}}}}
        ref = {"$ref": "#/%s/Node" % key}
        assert v({"v": 1, "kids": [{"v": 2, "kids": [{"v": 3}]}]}, ref, root) == []
        assert v({"v": 1, "kids": [{"v": 2, "kids": [{"v": "x"}]}]}, ref, root) == [
            "$.kids[0].kids[0].v: expected integer, got string"]


def test_ref_json_pointer_unescapes_tilde_and_slash():
    root = {"$defs": {"a/b": {"type": "string"}, "c~d": {"type": "integer"}}}
    assert v(1, {"$ref": "#/$defs/a~1b"}, root) == ["$: expected string, got integer"]
    assert v("x", {"$ref": "#/$defs/c~0d"}, root) == ["$: expected integer, got string"]


def test_ref_with_sibling_keywords_applies_both():
    root = {"$defs": {"S": {"type": "string"}}}
    assert v("", {"$ref": "#/$defs/S", "description": "annotation only"}, root) == []
    assert v("b", {"$ref": "#/$defs/S", "enum": ["a"]}, root) == ['$: "b" is not one of ["a"]']


def test_boolean_and_empty_schemas():
    assert v(object(), True) == [] and v(None, {}) == []
    assert v(1, False) == ["$: no value is allowed here"]
    assert v({"a": 1}, {"properties": {"a": False}}) == ["$.a: no value is allowed here"]


def test_annotations_and_formats_other_than_uri_are_ignored():
    schema = {"type": "string", "format": "date-time", "description": "d", "title": "t"}
    assert v("not a date at all", schema) == []


@pytest.mark.parametrize("uri, ok", [("file:///a%20b?q=1#f", True), ("urn:x", True), ("not a uri", False),
                                     ("a b:c", False), ("u:100%", False), ("u:\u00e9", False), ("1u:x", False)])
def test_the_uri_format_is_asserted(uri, ok):
    assert v(uri, {"type": "string", "format": "uri"}) == ([] if ok else ["$: %s is not an absolute URI"
                                                                        % json.dumps(uri)])


# ================================================================ real MCP schemas
def _walk_keywords(node, found):
    """Collect keyword names, skipping name maps and literal values."""
    if isinstance(node, dict):
        for key, value in node.items():
            found.add(key)
            if key in ("properties", "patternProperties", "definitions", "$defs"):
                for sub in value.values():
                    _walk_keywords(sub, found)
            elif key not in ("const", "enum", "default", "examples", "required"):
                _walk_keywords(value, found)
    elif isinstance(node, list):
        for item in node:
            _walk_keywords(item, found)


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_every_keyword_in_spec_schema_is_supported_or_annotation(rev):
    found = set()
    _walk_keywords(sc.load_schema(rev), found)
    assert found - sc.SUPPORTED_KEYWORDS - sc.ANNOTATION_KEYWORDS == set()


@needs_spec
def test_definition_names_use_right_container():
    assert "definitions" in sc.load_schema("2024-11-05")
    assert "$defs" in sc.load_schema("2025-11-25")
    assert "JSONRPCError" in sc.definition_names("2024-11-05")
    assert "JSONRPCErrorResponse" in sc.definition_names(LATEST)
    assert sc.definition_names(LATEST) == sorted(sc.definition_names(LATEST))


def test_spec_dir_honours_env_var(tmp_path):
    code = "import schema_check; print(schema_check.SPEC_DIR)"
    env = dict(os.environ, TINYMCP_SPEC_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         cwd=os.path.dirname(sc.__file__), stdout=subprocess.PIPE)
    assert out.stdout.decode().strip() == str(tmp_path)


def test_spec_dir_default_is_shared_spec_beside_the_clone(tmp_path):
    import shutil
    from pathlib import Path
    repo = tmp_path / "repo"
    for rel in ("tests/schema_check.py", "scripts/fetch-spec"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(str(Path(sc.__file__).resolve().parents[1] / rel), str(repo / rel))
    (tmp_path / "shared" / "spec").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k != "TINYMCP_SPEC_DIR"}
    out = subprocess.run([sys.executable, "-c", "import schema_check; print(schema_check.SPEC_DIR)"], env=env,
                         check=True, cwd=str(repo / "tests"), stdout=subprocess.PIPE)
    assert out.stdout.decode().strip() == str(tmp_path / "shared" / "spec")


def test_the_skip_reason_names_the_missing_revisions_and_the_command(monkeypatch, tmp_path):
    monkeypatch.setattr(sc, "SPEC_DIR", tmp_path)
    (tmp_path / "2024-11-05").mkdir()
    (tmp_path / "2024-11-05" / "schema.json").write_text("{}")
    assert sc.skip_reason() == (
        "MCP spec schemas missing for 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28 under %s: run "
        "scripts/fetch-spec (or put the spec at ../shared/spec beside the clone, or set "
        "TINYMCP_SPEC_DIR)" % tmp_path)


@needs_spec
def test_validate_reports_unknown_definition():
    assert sc.validate({}, "2024-11-05", "DiscoverResult") == [
        "$: no definition 'DiscoverResult' in 2024-11-05"]


@needs_spec
@pytest.mark.parametrize("rev, method, expected", [
    ("2024-11-05", "initialize", "InitializeResult"),
    ("2025-11-25", "ping", "EmptyResult"),
    ("2025-06-18", "logging/setLevel", "EmptyResult"),
    ("2025-03-26", "prompts/list", "ListPromptsResult"),
    (LATEST, "prompts/get", "GetPromptResult"),
    (LATEST, "completion/complete", "CompleteResult"),
    (LATEST, "server/discover", "DiscoverResult"),
    (LATEST, "subscriptions/listen", "SubscriptionsListenResult"),
    (LATEST, "tools/list", "ListToolsResult"),  # name convention fallback
    (LATEST, "initialize", None), (LATEST, "ping", None), (LATEST, "logging/setLevel", None),
    ("2025-11-25", "server/discover", None), ("2025-06-18", "no/such", None),
    ("2025-06-18", "notifications/message", None),  # a notification has no result
])
def test_result_definition_by_method(rev, method, expected):
    assert sc.result_definition(rev, method) == expected


def _resp(result, id_=1):
    return {"jsonrpc": "2.0", "id": id_, "result": result}


def _init_result(rev):
    return {"protocolVersion": rev, "capabilities": {"prompts": {"listChanged": True}},
            "serverInfo": {"name": "tinymcp", "version": "0.1"}}


@needs_spec
@pytest.mark.parametrize("rev", HANDSHAKE_REVS)
def test_initialize_result_well_formed_validates(rev):
    assert sc.check_server_message(rev, _resp(_init_result(rev)), "initialize") == []


@needs_spec
@pytest.mark.parametrize("rev", HANDSHAKE_REVS)
def test_initialize_result_missing_server_info_fails(rev):
    result = _init_result(rev)
    del result["serverInfo"]
    assert sc.check_server_message(rev, _resp(result), "initialize") == [
        "$.result: missing required property 'serverInfo'"]


@needs_spec
@pytest.mark.parametrize("method", ["initialize", "ping", "logging/setLevel"])
def test_methods_removed_in_2026_have_no_result_type(method):
    errs = sc.check_server_message(LATEST, _resp({"resultType": "complete"}), method)
    assert errs == ["$.result: no result type for method %r in %s" % (method, LATEST)]


@needs_spec
@pytest.mark.parametrize("rev", HANDSHAKE_REVS)
def test_ping_empty_result_validates_on_handshake_revs(rev):
    assert sc.check_server_message(rev, _resp({}), "ping") == []


def _list_prompts(rev, prompts):
    result = {"prompts": prompts}
    if rev == LATEST:
        result.update(resultType="complete", ttlMs=0, cacheScope="public")
    return _resp(result)


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_list_prompts_with_title_validates_since_schemas_are_open(rev):
    # Prompt has no additionalProperties:false in any rev, so `title` is accepted even
    # in 2024-11-05/2025-03-26 (where it is simply an unknown, unconstrained key).
    prompts = [{"name": "greet", "title": "Greeting", "description": "d",
                "arguments": [{"name": "who", "required": True}]}]
    assert sc.check_server_message(rev, _list_prompts(rev, prompts), "prompts/list") == []


@needs_spec
def test_prompt_title_is_only_type_checked_from_2025_06_18():
    msg = lambda rev: _list_prompts(rev, [{"name": "greet", "title": 5}])  # noqa: E731
    assert sc.check_server_message("2025-03-26", msg("2025-03-26"), "prompts/list") == []
    assert sc.check_server_message("2025-06-18", msg("2025-06-18"), "prompts/list") == [
        "$.result.prompts[0].title: expected string, got integer"]


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_prompt_missing_name_fails(rev):
    errs = sc.check_server_message(rev, _list_prompts(rev, [{"description": "x"}]), "prompts/list")
    assert errs == ["$.result.prompts[0]: missing required property 'name'"]


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_prompt_argument_missing_name_and_bad_required_fail(rev):
    prompts = [{"name": "p", "arguments": [{"required": "yes"}]}]
    errs = sc.check_server_message(rev, _list_prompts(rev, prompts), "prompts/list")
    assert errs == ["$.result.prompts[0].arguments[0]: missing required property 'name'",
                    "$.result.prompts[0].arguments[0].required: expected boolean, got string"]


def _get_prompt(rev, messages):
    result = {"description": "d", "messages": messages}
    if rev == LATEST:
        result["resultType"] = "complete"
    return _resp(result)


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_get_prompt_text_message_validates(rev):
    msgs = [{"role": "user", "content": {"type": "text", "text": "hi"}},
            {"role": "assistant", "content": {"type": "text", "text": "yo"}}]
    assert sc.check_server_message(rev, _get_prompt(rev, msgs), "prompts/get") == []


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_get_prompt_system_role_fails(rev):
    msgs = [{"role": "system", "content": {"type": "text", "text": "hi"}}]
    assert sc.check_server_message(rev, _get_prompt(rev, msgs), "prompts/get") == [
        '$.result.messages[0].role: "system" is not one of ["assistant", "user"]']


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_get_prompt_content_block_reports_closest_branch(rev):
    msgs = [{"role": "user", "content": {"type": "text", "text": 5}}]
    errs = sc.check_server_message(rev, _get_prompt(rev, msgs), "prompts/get")
    assert errs[0].startswith("$.result.messages[0].content: matches none of the")
    assert errs[0].endswith("closest is TextContent:")
    assert errs[1:] == ["$.result.messages[0].content.text: expected string, got integer"]


@needs_spec
@pytest.mark.parametrize("rev, ok", [("2024-11-05", False), ("2025-03-26", True),
                                     ("2025-06-18", True), (LATEST, True)])
def test_audio_content_exists_from_2025_03_26(rev, ok):
    msgs = [{"role": "user", "content": {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}}]
    assert (sc.check_server_message(rev, _get_prompt(rev, msgs), "prompts/get") == []) is ok


@needs_spec
@pytest.mark.parametrize("rev, ok", [("2025-03-26", False), ("2025-06-18", True),
                                     ("2025-11-25", True), (LATEST, True)])
def test_resource_link_content_exists_from_2025_06_18(rev, ok):
    msgs = [{"role": "user", "content": {"type": "resource_link", "uri": "file:///a", "name": "a"}}]
    assert (sc.check_server_message(rev, _get_prompt(rev, msgs), "prompts/get") == []) is ok


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_embedded_resource_content_validates(rev):
    res = {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "A"}
    msgs = [{"role": "user", "content": {"type": "resource", "resource": res}}]
    assert sc.check_server_message(rev, _get_prompt(rev, msgs), "prompts/get") == []


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_annotation_priority_out_of_range_fails(rev):
    content = {"type": "text", "text": "x", "annotations": {"priority": 1.5}}
    errs = sc.check_server_message(rev, _get_prompt(rev, [{"role": "user", "content": content}]),
                                   "prompts/get")
    assert "$.result.messages[0].content.annotations.priority: 1.5 is greater than maximum 1" in errs


# ---------------------------------------------------------------- 2026-07-28 specifics
@needs_spec
def test_2026_result_missing_result_type_fails():
    result = {"messages": [{"role": "user", "content": {"type": "text", "text": "x"}}]}
    assert sc.check_server_message(LATEST, _resp(result), "prompts/get") == [
        "$.result: missing required property 'resultType'"]
    # ...while the very same result is fine on the previous revision
    assert sc.check_server_message("2025-11-25", _resp(result), "prompts/get") == []


@needs_spec
def test_2026_envelope_alone_requires_result_type():
    assert sc.check_server_message(LATEST, _resp({})) == [
        "$.result: missing required property 'resultType'"]


@needs_spec
def test_2026_unknown_result_type_value_fails():
    errs = sc.check_server_message(LATEST, _resp({"resultType": "done"}))
    assert errs == ["$.result.resultType: \"done\" is not 'complete' or 'input_required'"]


@needs_spec
def test_2026_list_prompts_requires_cache_fields():
    result = {"prompts": [], "resultType": "complete"}
    assert sc.check_server_message(LATEST, _resp(result), "prompts/list") == [
        "$.result: missing required property 'cacheScope'",
        "$.result: missing required property 'ttlMs'"]
    result.update(ttlMs=-1, cacheScope="shared")
    assert sorted(sc.check_server_message(LATEST, _resp(result), "prompts/list")) == [
        '$.result.cacheScope: "shared" is not one of ["private", "public"]',
        "$.result.ttlMs: -1 is less than minimum 0"]


def _discover():
    return {"resultType": "complete", "supportedVersions": [LATEST], "ttlMs": 0,
            "cacheScope": "public", "capabilities": {"prompts": {"listChanged": True}},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "tinymcp", "version": "0.1"}}}


@needs_spec
def test_2026_discover_result_validates_and_requires_supported_versions():
    assert sc.check_server_message(LATEST, _resp(_discover()), "server/discover") == []
    bad = _discover()
    del bad["supportedVersions"]
    bad["_meta"]["io.modelcontextprotocol/serverInfo"] = {"name": "tinymcp"}
    assert sorted(sc.check_server_message(LATEST, _resp(bad), "server/discover")) == [
        '$.result._meta["io.modelcontextprotocol/serverInfo"]: missing required property \'version\'',
        "$.result: missing required property 'supportedVersions'"]


@needs_spec
def test_2026_subscriptions_listen_result_requires_subscription_id_meta():
    ok = {"resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": 7}}
    assert sc.check_server_message(LATEST, _resp(ok), "subscriptions/listen") == []
    assert sc.check_server_message(LATEST, _resp({"resultType": "complete"}),
                                   "subscriptions/listen") == ["$.result: missing required property '_meta'"]


@needs_spec
def test_2026_input_required_result_is_checked_as_input_required_result():
    result = {"resultType": "input_required", "requestState": "opaque"}
    assert sc.check_server_message(LATEST, _resp(result), "prompts/get") == []
    result["requestState"] = 3
    assert sc.check_server_message(LATEST, _resp(result), "prompts/get") == [
        "$.result.requestState: expected string, got integer"]


@needs_spec
def test_completion_values_max_100_only_enforced_by_2026_schema():
    result = {"completion": {"values": ["v%d" % i for i in range(101)], "hasMore": True}}
    assert sc.check_server_message("2025-11-25", _resp(result), "completion/complete") == []
    result["resultType"] = "complete"
    assert sc.check_server_message(LATEST, _resp(result), "completion/complete") == [
        "$.result.completion.values: more than 100 items (101)"]


# ---------------------------------------------------------------- errors / envelopes
def _err(code=-32601, id_=1):
    msg = {"jsonrpc": "2.0", "error": {"code": code, "message": "Method not found"}}
    if id_ is not sc:
        msg["id"] = id_
    return msg


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_error_response_validates(rev):
    assert sc.check_server_message(rev, _err()) == []
    assert sc.check_server_message(rev, _err(id_="abc")) == []


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_error_response_with_string_code_fails(rev):
    assert sc.check_server_message(rev, _err(code="-32601")) == [
        "$.error.code: expected integer, got string"]


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_error_response_with_null_id_fails_in_every_rev(rev):
    # RequestId is string|integer everywhere: JSON-RPC's `"id": null` is not allowed.
    assert sc.check_server_message(rev, _err(id_=None)) == ["$.id: expected string or integer, got null"]


@needs_spec
@pytest.mark.parametrize("rev, ok", [("2024-11-05", False), ("2025-03-26", False),
                                     ("2025-06-18", False), ("2025-11-25", True), (LATEST, True)])
def test_error_response_without_id_allowed_from_2025_11_25(rev, ok):
    errs = sc.check_server_message(rev, _err(id_=sc))  # sentinel: omit id
    assert errs == ([] if ok else ["$: missing required property 'id'"])


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_envelope_problems_are_reported(rev):
    assert sc.check_server_message(rev, {"jsonrpc": "1.0", "id": 1, "result": {"resultType": "complete"}}) \
        == ['$.jsonrpc: expected const "2.0", got "1.0"']
    assert sc.check_server_message(rev, {"jsonrpc": "2.0", "id": True, "result": {"resultType": "complete"}}) \
        == ["$.id: expected string or integer, got boolean"]
    assert sc.check_server_message(rev, {"jsonrpc": "2.0", "id": 1}) == [
        "$: neither a notification, a request, a result nor an error response"]
    assert "$: has both 'result' and 'error'" in sc.check_server_message(
        rev, dict(_err(), result={}))
    assert sc.check_server_message(rev, "x") == ["$: expected object, got string"]


# ---------------------------------------------------------------- notifications / requests
@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_prompt_list_changed_notification_validates(rev):
    msg = {"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"}
    assert sc.check_server_message(rev, msg) == []


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_logging_message_notification_checks_specific_definition(rev):
    ok = {"jsonrpc": "2.0", "method": "notifications/message",
          "params": {"level": "info", "logger": "tinymcp", "data": {"any": ["json"]}}}
    assert sc.check_server_message(rev, ok) == []
    bad = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "loud"}}
    assert sc.check_server_message(rev, bad) == [
        "$.params: missing required property 'data'",
        '$.params.level: "loud" is not one of ["alert", "critical", "debug", "emergency", '
        '"error", "info", "notice", "warning"]']


@needs_spec
@pytest.mark.parametrize("rev", sc.REVISIONS)
def test_progress_and_cancelled_notifications(rev):
    prog = {"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "t", "progress": 0.5, "total": 1}}
    assert sc.check_server_message(rev, prog) == []
    prog["params"] = {"progress": "half"}
    assert sc.check_server_message(rev, prog) == [
        "$.params: missing required property 'progressToken'",
        "$.params.progress: expected number, got string"]
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}
    assert sc.check_server_message(rev, cancel) == []


@needs_spec
def test_notification_missing_jsonrpc_fails():
    assert sc.check_server_message("2024-11-05", {"method": "notifications/prompts/list_changed"}) == [
        "$: missing required property 'jsonrpc'"]


@needs_spec
@pytest.mark.parametrize("rev", HANDSHAKE_REVS)
def test_client_only_notification_from_server_is_flagged(rev):
    msg = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert sc.check_server_message(rev, msg) == [
        "$.method: 'notifications/initialized' is not a server notification in %s" % rev]


@needs_spec
def test_2026_subscriptions_acknowledged_notification():
    msg = {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
           "params": {"notifications": {}}}
    assert sc.check_server_message(LATEST, msg) == []
    del msg["params"]
    assert sc.check_server_message(LATEST, msg) == ["$: missing required property 'params'"]


@needs_spec
def test_server_requests_ping_allowed_before_2026_but_no_requests_in_2026():
    msg = {"jsonrpc": "2.0", "id": "s1", "method": "ping"}
    assert sc.check_server_message("2025-11-25", msg) == []
    assert sc.check_server_message(LATEST, msg) == ["$: servers send no requests in %s" % LATEST]
    bad = {"jsonrpc": "2.0", "id": "s1", "method": "prompts/list"}
    assert sc.check_server_message("2025-06-18", bad) == [
        "$.method: 'prompts/list' is not a server request in 2025-06-18"]


# ---------------------------------------------------------------- batches (2025-03-26)
@needs_spec
def test_batch_response_validates_each_element_with_indexed_paths():
    batch = [_resp({"prompts": [{"name": "a"}]}, 1), _resp({"messages": [{"role": "x"}]}, 2), _err(id_=3)]
    errs = sc.check_server_message("2025-03-26", batch, ["prompts/list", "prompts/get", None])
    assert errs == ["$[1].result.messages[0]: missing required property 'content'",
                    '$[1].result.messages[0].role: "x" is not one of ["assistant", "user"]']
    assert sc.check_server_message("2025-03-26", [_resp({})], "ping") == []


@needs_spec
def test_batch_is_rejected_outside_2025_03_26_and_when_empty():
    for rev in sc.REVISIONS:
        if rev != "2025-03-26":
            assert sc.check_server_message(rev, [_resp({})]) == [
                "$: JSON-RPC batches are not allowed in %s" % rev]
    assert sc.check_server_message("2025-03-26", []) == ["$: empty batch response"]


def _fetch_spec_main(monkeypatch, tmp_path, source):
    """scripts/fetch-spec's ``main`` reading from ``source`` (a folder laid out as the
    repository at its commit) through file:// URLs, its cache under ``tmp_path``."""
    import runpy
    from pathlib import Path
    script = Path(sc.__file__).resolve().parents[1] / "scripts" / "fetch-spec"
    main = runpy.run_path(str(script), run_name="fetch_spec")["main"]
    monkeypatch.setitem(main.__globals__, "URL", source.as_uri() + "/%s/schema/%s/schema.json")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return main, main.__globals__


def test_fetch_spec_fills_the_cache_at_its_commit_and_then_fetches_nothing(monkeypatch, tmp_path, capsys):
    source = tmp_path / "repo"
    main, names = _fetch_spec_main(monkeypatch, tmp_path, source)
    for rev in names["REVISIONS"]:
        folder = source / names["COMMIT"] / "schema" / rev
        folder.mkdir(parents=True)
        (folder / "schema.json").write_text('{"revision": "%s"}' % rev)
    assert main() == 0
    target = tmp_path / "cache" / "tinymcp" / ("spec-" + names["COMMIT"][:12])
    assert capsys.readouterr().out == "%s\n" % target
    assert sorted(p.name for p in target.iterdir()) == sorted(names["REVISIONS"])
    assert (target / "2025-06-18" / "schema.json").read_text() == '{"revision": "2025-06-18"}'
    import shutil
    shutil.rmtree(str(source))
    assert main() == 0  # (all cached: nothing fetched)


def test_fetch_spec_says_why_and_keeps_no_part_when_a_schema_cannot_be_had(monkeypatch, tmp_path, capsys):
    source = tmp_path / "repo"
    main, names = _fetch_spec_main(monkeypatch, tmp_path, source)
    first = names["REVISIONS"][0]
    folder = source / names["COMMIT"] / "schema" / first
    folder.mkdir(parents=True)
    (folder / "schema.json").write_text("<html>not a schema</html>")  # (a proxy's page)
    assert main() == 1
    err = capsys.readouterr().err
    assert err.startswith("fetch-spec: cannot fetch the %s schema: " % first)
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("schema.json*"))
