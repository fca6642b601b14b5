"""Content blocks: validation (types, base64, MIME types, annotations, JSON _meta) and shaping for each revision."""

import json

import pytest

from conftest import Wire, bounded, problems, prompt
from transport_helpers import run
from tinymcp import ConfigError, load_config


# --- validation -------------------------------------------------------------------------

@pytest.mark.parametrize("data", ["not base64!", "A===", "AAA"])  # (RFC 4648: two pad characters at most; padded)
def test_bad_base64_is_rejected(data):
    block = {"type": "image", "data": data, "mimeType": "image/png"}
    config = {"prompts": [prompt(messages=[{"role": "user", "content": block}])]}
    assert problems(config) == [("prompts[0].messages[0].content.data", "expected base64 data")]


def test_unknown_content_type_is_rejected():
    config = {"prompts": [prompt(messages=[{"role": "user", "content": {"type": "video"}}])]}
    assert problems(config) == [("prompts[0].messages[0].content.type",
                                 "expected one of 'text', 'image', 'audio', 'resource', "
                                 "'resource_link', got 'video'")]


def test_an_unhashable_content_type_is_a_config_error():
    config = {"prompts": [prompt(messages=[{"role": "user", "content": {"type": ["text"]}}])]}
    assert problems(config) == [("prompts[0].messages[0].content.type",
                                 "expected one of 'text', 'image', 'audio', 'resource', "
                                 "'resource_link', got a list")]


def test_message_needs_text_or_content_not_both():
    config = {"prompts": [prompt(messages=[{"role": "user", "text": "a",
                                            "content": {"type": "text", "text": "b"}}])]}
    assert problems(config) == [("prompts[0].messages[0]", "expected exactly one of 'text' or 'content'")]


def test_embedded_resource_needs_text_or_blob():
    block = {"type": "resource", "resource": {"uri": "file:///x"}}
    config = {"prompts": [prompt(messages=[{"role": "user", "content": block}])]}
    assert problems(config) == [("prompts[0].messages[0].content.resource",
                                 "expected exactly one of 'text' or 'blob'")]


def test_annotation_priority_range():
    block = {"type": "text", "text": "x", "annotations": {"priority": 2, "audience": ["bot"]}}
    config = {"prompts": [prompt(messages=[{"role": "user", "content": block}])]}
    assert problems(config) == [
        ("prompts[0].messages[0].content.annotations.audience[0]",
         "expected 'user' or 'assistant', got 'bot'"),
        ("prompts[0].messages[0].content.annotations.priority", "expected a number from 0 to 1, got the number 2"),
    ]
    for edge in (0, 1):  # (the schema's minimum and maximum are allowed)
        block["annotations"] = {"priority": edge}
        assert load_config(config).prompts.by_name["p"]


@pytest.mark.parametrize("mime", ["", "png", "image/", "/png", "image/p ng", " image/png", "image/png\n", "+a/b"])
def test_image_audio_and_resource_mime_types_must_look_like_one(mime):
    for block, where in (({"type": "image", "data": "AAAA", "mimeType": mime}, "content.mimeType"),
                         ({"type": "resource", "resource": {"uri": "u:x", "text": "t", "mimeType": mime}},
                          "content.resource.mimeType")):
        assert problems({"prompts": [{"name": "p", "messages": [{"role": "user", "content": block}]}]}) == [
            ("prompts[0].messages[0].%s" % where, "expected a MIME type like 'image/png', got %r" % mime)]


def test_a_meta_nested_past_500_levels_is_refused_at_load_not_by_every_list(tmp_path):
    # Bug: 978 levels passed --check (encoded at load's shallow stack), then every prompts/list
    # failed to encode it while serving: -32603 for the whole list
    def config(levels):
        return '{"prompts": [{"name": "p", "_meta": {"x": %s}, "messages": [{"role": "user", "text": "x"}]}]}' % (
            "[" * (levels - 1) + "]" * (levels - 1))
    wire = Wire(json.loads(config(400)))  # (a dict config: plain() copies it recursively, at this test's stack)
    wire.initialize()
    assert [p["name"] for p in wire.result("prompts/list")["prompts"]] == ["p"]
    path = tmp_path / "deep.json"
    for levels, rc in ((500, 0), (501, 1), (978, 1)):
        path.write_text(config(levels))
        done = run(["--check", "--config", str(path)])
        # (refused at load: by the check, or where the decoder is jsonlite (PyPy, python3-minimal), which reads
        # ~495 levels, already by the parse)
        assert done[0] == rc and (rc == 0 or "prompts[0]._meta: nested deeper than 500 levels: flatten it\n"
                                  in done[2] or "nested too deeply to parse" in done[2])


def test_a_meta_that_holds_itself_twice_is_refused_at_once():
    # (each level of the depth walk held every path to its containers: a value in a loop twice
    # doubled each level, and a config loaded as parsed JSON (owned) never finished loading)
    meta = {}
    meta["a"] = [meta, meta]
    with pytest.raises(ConfigError) as info:
        with bounded(2):
            load_config({"prompts": [{"name": "p", "_meta": meta, "messages": [{"role": "user", "text": "x"}]}]},
                        owned=True)
    assert info.value.problems == [("prompts[0]._meta", "nested deeper than 500 levels: flatten it")]


def test_config_meta_must_be_json():
    [(path, message)] = problems({"prompts": [{"name": "p", "_meta": {"x": float("nan")},
                                               "messages": [{"role": "user", "text": "x"}]}]})
    assert path == "prompts[0]._meta" and message.startswith("expected JSON data")


NAME_RULE = ("its name (after any prefix and '/') must begin and end with a letter or digit, only "
             "letters, digits, '-', '_' and '.' between")
PREFIX_RULE = ("its prefix must be labels separated by dots, each beginning with a letter and ending "
               "with a letter or digit, only letters, digits and '-' between, then '/' (like com.example/)")


@pytest.mark.parametrize("key, rule", [
    ("bad key!", NAME_RULE), ("-bad-", NAME_RULE), ("x_", NAME_RULE), ("com.example/.x", NAME_RULE),
    ("1a.b/c", PREFIX_RULE), ("a..b/c", PREFIX_RULE), ("/x", PREFIX_RULE), ("a-/x", PREFIX_RULE),
    ("a b/x", PREFIX_RULE), ("\u00e9t\u00e9/x", PREFIX_RULE),
])
def test_config_meta_keys_follow_the_key_name_format(key, rule):
    # basic-overview, _meta "Key name format" (2025-06-18 on): every _meta the config
    # holds (a prompt's, a block's, a resource's) is sent as it is, so it is checked at load
    key = key.encode().decode("unicode_escape")
    block = {"type": "resource", "resource": {"uri": "u:x", "text": "t", "_meta": {key: 1}}, "_meta": {key: 1}}
    config = {"prompts": [{"name": "p", "_meta": {key: 1}, "messages": [{"role": "user", "content": block}]}]}
    message = "%r is not a valid _meta key: %s" % (key, rule)
    assert problems(config) == [("prompts[0]._meta", message),
                                ("prompts[0].messages[0].content.resource._meta", message),
                                ("prompts[0].messages[0].content._meta", message)]


def test_a_python_configs_meta_keys_must_be_strings():
    # Bug: a key that is no string (a dict config's; JSON has none) crashed load_config
    # with AttributeError in the key name check
    config = {"prompts": [{"name": "p", "_meta": {1: 2, None: 3, "ok": 4},
                           "messages": [{"role": "user", "text": "x"}]}]}
    assert problems(config) == [("prompts[0]._meta", "expected string keys, got the number 1"),
                                ("prompts[0]._meta", "expected string keys, got null")]


def test_config_meta_keys_may_be_empty_plain_prefixed_or_reserved_for_mcp():
    # (an official extension's keys are under io.modelcontextprotocol/: a config may set them)
    meta = {"": 1, "a": 2, "a.b-c_d": 3, "com.example/x": 4, "io.modelcontextprotocol/ui": 5,
            "traceparent": 6, "com.example-2.a1/": 7}
    from tinymcp import load_config
    config = load_config({"prompts": [{"name": "p", "_meta": meta, "messages": [{"role": "user", "text": "x"}]}]})
    assert config.prompts.get("p")["_meta"] == meta


def test_render_callable_may_return_a_string():
    wire = Wire({"prompts": [{"name": "r", "render": lambda args: "plain"}]})
    wire.initialize()
    assert wire.get("r")["result"]["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "plain"}}]


def test_render_callable_may_return_any_sequence_of_messages():
    wire = Wire({"prompts": [{"name": "r", "render": lambda args: (
        {"role": "user", "text": "one"},
        {"role": "assistant", "content": {"type": "text", "text": "two",
                                          "annotations": {"audience": ("user",)}}})}]})
    wire.initialize()
    assert wire.get("r")["result"]["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "one"}},
        {"role": "assistant", "content": {"type": "text", "text": "two",
                                          "annotations": {"audience": ["user"]}}}]


@pytest.mark.parametrize("empty", [[], ()])
def test_a_render_that_returns_no_messages_fails_as_a_config_without_messages_would(empty):
    # Bug: a render returning [] sent "messages": [], which a static config may not.
    logged = []
    wire = Wire({"prompts": [{"name": "r", "render": lambda args: empty}]},
                log=lambda level, message, exc=None: logged.append((level, message)))
    wire.initialize()
    error = wire.get("r")["error"]
    assert error["code"] == -32603 and error["message"] == "Internal error"
    assert logged == [("error", "internal error %s in prompts/get: render callable of prompt 'r' "
                                "returned an invalid result: render(): expected at least one message"
                       % error["data"]["errorId"])]
    assert problems({"prompts": [prompt(messages=empty)]}) == [
        ("prompts[0].messages", "expected at least one message")]  # the same rule


def test_an_invalid_render_result_is_named_in_the_log():
    logged = []
    wire = Wire({"prompts": [{"name": "r", "render": lambda args: [{"role": "system", "text": "x"}, 3]}]},
                log=lambda level, message, exc=None: logged.append(message))
    wire.initialize()
    tag = wire.get("r")["error"]["data"]["errorId"]
    assert logged == ["internal error %s in prompts/get: render callable of prompt 'r' returned an "
                      "invalid result: render()[0].role: expected 'user' or 'assistant', got 'system'; "
                      "render()[1]: expected an object, got the number 3" % tag]


def test_numbers_too_long_to_write_are_named_not_written():
    # (a text of an int over 4,300 digits raises: a config mistake came out as a ValueError)
    huge = 10 ** 5000
    link = {"type": "resource_link", "uri": "file:///x", "name": "n", "size": huge}
    assert problems({"prompts": [prompt(name=huge, messages=[{"role": "user", "content": link}])],
                     "page_size": -huge}) == [
        ("page_size", "expected an integer of 1 or more, got one of more than 19 digits"),
        ("prompts[0].name", "expected a string, got a number"),
        ("prompts[0].messages[0].content.size", "expected an integer of 9007199254740991 or less, got one of more than 19 digits")]


class _Hostile(str):
    """Text whose own methods fail as a callable's code may: only ``str``'s are run."""

    def __len__(self):
        raise KeyboardInterrupt

    __eq__ = __hash__ = __str__ = __len__


@pytest.mark.parametrize("result", [_Hostile("hi"), [{"role": "user", "text": _Hostile("hi")}]],
                         ids=["text", "messages"])
def test_text_of_a_str_subclass_is_served_as_its_text(result):
    wire = Wire({"prompts": [{"name": "r", "render": lambda args: result}]})
    wire.initialize()
    assert wire.get("r")["result"]["messages"] == [{"role": "user", "content": {"type": "text", "text": "hi"}}]
    assert wire.request("ping")["result"] == {}


def test_a_config_of_str_subclasses_is_read_as_its_text():
    wire = Wire({"prompts": [prompt(name=_Hostile("p"), messages=[{"role": "user", "text": _Hostile("hi")}])]})
    wire.initialize()
    assert wire.get("p")["result"]["messages"] == [{"role": "user", "content": {"type": "text", "text": "hi"}}]


def test_templates_fill_resource_uri_and_text():
    block = {"type": "resource", "resource": {"uri": "file:///{f}", "text": "<{f}>", "mimeType": "text/plain"}}
    wire = Wire({"prompts": [{"name": "p", "arguments": [{"name": "f"}],
                              "messages": [{"role": "user", "content": block}]}]})
    wire.initialize()
    content = wire.get("p", {"f": "a.txt"})["result"]["messages"][0]["content"]
    assert content == {"type": "resource", "resource": {
        "uri": "file:///a.txt", "text": "<a.txt>", "mimeType": "text/plain"}}
    assert block["resource"]["uri"] == "file:///{f}"  # the template itself is untouched


_NO_SCHEME = "it must begin with a scheme and ':', like 'file:' or 'https:'"


@pytest.mark.parametrize("uri, problem", [
    ("no scheme here", _NO_SCHEME),
    ("docs/{path}", _NO_SCHEME),  # (a relative reference: no value can give it a scheme)
    ("1x:{a}", _NO_SCHEME),
    ("1{a}", _NO_SCHEME),  # (a scheme left to a value must still begin with a letter)
    ("", _NO_SCHEME),
    ("file:///a b/{a}", "' ' cannot stand in a URI; write it percent-encoded, as '%20'"),
    ("u:{{a}}", "'{' cannot stand in a URI; write it percent-encoded, as '%7B'"),
    ("u:{a}/\u00e9", "'\u00e9' cannot stand in a URI; write it percent-encoded, as '%C3%A9'"),
    ("u:100%", "'%' must begin an escape like '%20' (write '%25' for '%' itself)"),
    ("u:%2{a}", "'%' must begin an escape like '%20' (write '%25' for '%' itself)"),
])
@pytest.mark.parametrize("where", ["resource", "resource_link"])
def test_a_uri_must_be_absolute_and_only_uri_characters_at_load(uri, problem, where):
    # prompts "Embedded Resources": MUST include a valid resource URI; the schema's "uri" format
    block = ({"type": "resource", "resource": {"uri": uri, "text": "t"}} if where == "resource"
             else {"type": "resource_link", "uri": uri, "name": "n"})
    config = {"prompts": [prompt(arguments=[{"name": "a"}], messages=[{"role": "user", "content": block}])]}
    path = "prompts[0].messages[0].content" + (".resource.uri" if where == "resource" else ".uri")
    assert problems(config) == [(path, "expected an absolute URI, got %r: %s" % (uri, problem))]


@pytest.mark.parametrize("uri", ["file:///{a}", "{a}", "h{a}", "u:{a}{a}", "urn:x-y:%20{a}#f",
                                 "data:text/plain;base64,QQ==", "u:[::1]/?a=b&c=d;e,f(g)*+'!$~@"])
def test_absolute_uris_and_templates_that_can_make_one_load(uri):
    from tinymcp import load_config
    block = {"type": "resource_link", "uri": uri, "name": "n"}
    load_config({"prompts": [prompt(arguments=[{"name": "a"}], messages=[{"role": "user", "content": block}])]})


def test_an_icon_src_must_be_an_absolute_uri():
    link = {"type": "resource_link", "uri": "u:x", "name": "n", "icons": [{"src": "i.png"}]}
    config = {"prompts": [prompt(icons=[{"src": "data:image/svg+xml,<svg/>"}],
                                 messages=[{"role": "user", "content": link}])]}
    assert problems(config) == [
        ("prompts[0].icons[0].src", "expected an absolute URI, got 'data:image/svg+xml,<svg/>': "
                                    "'<' cannot stand in a URI; write it percent-encoded, as '%3C'"),
        ("prompts[0].messages[0].content.icons[0].src", "expected an absolute URI, got 'i.png': " + _NO_SCHEME)]


def _uri_wire(uri, **arg):
    block = {"type": "resource", "resource": {"uri": uri, "text": "t"}}
    wire = Wire({"prompts": [{"name": "p", "arguments": [dict({"name": "a"}, **arg)],
                              "messages": [{"role": "user", "content": block}]}]})
    wire.initialize()
    return wire


@pytest.mark.parametrize("value, expected", [
    ("a b\nc", "file:///docs/a%20b%0Ac"),
    ("x/y?q=1&r=[2]#f", "file:///docs/x/y?q=1&r=[2]#f"),  # (reserved characters keep their meaning)
    ("a%20b", "file:///docs/a%20b"),  # (an escape stays one)
    ("100%", "file:///docs/100%25"),
    ("%zz%2", "file:///docs/%25zz%252"),
    ('{b}"<>\\^`|', "file:///docs/%7Bb%7D%22%3C%3E%5C%5E%60%7C"),
    ("\u00e9\U0001f600", "file:///docs/%C3%A9%F0%9F%98%80"),
    ("\ud800", "file:///docs/%ED%A0%80"),  # (a lone surrogate, as JSON may carry one)
    ("\x00\x7f", "file:///docs/%00%7F"),
])
def test_values_put_into_a_uri_are_percent_encoded_where_a_uri_cannot_hold_them(value, expected):
    wire = _uri_wire("file:///docs/{a}")
    for _ in range(3):  # (the first get is built, later ones are framed: the same uri)
        resource = wire.get("p", {"a": value})["result"]["messages"][0]["content"]["resource"]
        assert resource["uri"] == expected


def test_a_uri_whose_scheme_is_left_to_a_value_must_get_one():
    wire = _uri_wire("{a}", default="")
    assert wire.get("p", {"a": "https://e.x/a b"})["result"]["messages"][0]["content"]["resource"]["uri"] \
        == "https://e.x/a%20b"
    for arguments, shown in (({"a": "not a uri"}, "'not%20a%20uri'"), ({}, "''"), ({"a": "1:x"}, "'1:x'")):
        for _ in range(3):
            assert wire.get("p", arguments)["error"] == {
                "code": -32602, "message": "Invalid params: the arguments make the uri %s, which is not an "
                                           "absolute URI: %s" % (shown, _NO_SCHEME)}
    assert "result" in wire.get("p", {"a": "u:x"})  # (and the next request is served)


def test_a_render_result_with_a_bad_uri_fails_naming_it():
    logged = []
    link = {"type": "resource_link", "uri": "a b", "name": "n"}
    wire = Wire({"prompts": [{"name": "r", "render": lambda args: [{"role": "user", "content": link}]}]},
                log=lambda level, message, exc=None: logged.append(message))
    wire.initialize()
    tag = wire.get("r")["error"]["data"]["errorId"]
    assert logged == ["internal error %s in prompts/get: render callable of prompt 'r' returned an "
                      "invalid result: render()[0].content.uri: expected an absolute URI, got 'a b': %s"
                      % (tag, _NO_SCHEME)]


def test_a_value_that_grows_in_a_uri_past_max_render_bytes_is_refused_before_it_is_made(monkeypatch):
    from tinymcp.model.template import Template
    from tinymcp.model.uri import UriTemplate
    block = {"type": "resource_link", "uri": "u:{a}", "name": "n"}
    wire = Wire({"limits": {"max_render_bytes": 1000}, "prompts": [
        {"name": "p", "arguments": [{"name": "a"}], "messages": [{"role": "user", "content": block}]}]})
    wire.initialize()
    made = []
    for cls in (Template, UriTemplate):
        monkeypatch.setattr(cls, "render", lambda self, values: made.append(1))
    error = wire.get("p", {"a": "\U0001f600" * 200})["error"]  # (200 characters; 2,400 in the uri)
    assert made == []
    assert error == {"code": -32602, "message": "Invalid params: the rendered prompt (2402 bytes on the wire) "
                                                "exceeds the limit of 1000 (max_render_bytes)"}


# --- shaping for each revision ---------------------------------------------------------------

AUDIO = {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}
LINK = {"type": "resource_link", "uri": "file:///r.txt", "name": "r", "title": "R", "mimeType": "text/plain",
        "size": 3, "description": "a file", "icons": [{"src": "https://x/i.png"}]}
DATED = {"type": "text", "text": "t", "annotations": {"priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"},
         "_meta": {"k": 1}}


def content_for(version, block):
    wire = Wire({"prompts": [{"name": "p", "messages": [{"role": "user", "content": block}]}]})
    wire.initialize(version)
    return wire.get("p")["result"]["messages"][0]["content"]


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
    empty = {"type": "resource_link", "uri": "file:///e", "name": "e", "size": 0}  # (a size, though 0)
    assert content_for("2025-03-26", empty)["text"] == "[resource link] e <file:///e> 0 bytes"


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


def test_a_date_alone_leaves_no_empty_annotations_before_2025_06_18():
    block = {"type": "text", "text": "t", "annotations": {"lastModified": "2025-01-01T00:00:00Z"}}
    assert content_for("2025-03-26", block) == {"type": "text", "text": "t\n[last modified 2025-01-01T00:00:00Z]"}


def test_an_embedded_resources_meta_is_dropped_before_2025_06_18():
    block = {"type": "resource", "resource": {"uri": "file:///a", "mimeType": "text/plain", "text": "hi",
                                              "_meta": {"k": 1}}}
    assert content_for("2025-03-26", block) == {"type": "resource", "resource": {
        "uri": "file:///a", "mimeType": "text/plain", "text": "hi"}}
    assert content_for("2025-06-18", block) == block
