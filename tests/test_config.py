import json

import pytest

from tinymcp import ConfigError, load_config
from tinymcp.defaults import DEFAULT_CONFIG


def problems(config):
    with pytest.raises(ConfigError) as info:
        load_config(config)
    return info.value.problems


def prompt(**fields):
    base = {"name": "p", "messages": [{"role": "user", "text": "hi"}]}
    base.update(fields)
    return base


def test_default_config_is_valid():
    assert len(load_config(DEFAULT_CONFIG).prompts) >= 3


def test_config_must_be_an_object():
    assert problems([]) == [("config", "expected an object, got a list")]


def test_prompts_are_required():
    assert problems({}) == [("", "missing required key 'prompts'")]


def test_wrong_type_names_the_path():
    config = {"prompts": [prompt(), prompt(name="q"),
                          prompt(name="r", arguments=[{"name": 3}])]}
    assert problems(config) == [("prompts[2].arguments[0].name", "expected a string, got the number 3")]


def test_every_problem_is_listed():
    config = {"prompts": [
        prompt(),
        prompt(name="p"),
        prompt(name="y", arguments=[{"name": True}]),
        prompt(name="x", messages=[{"role": "system", "text": "hi"}]),
    ], "page_size": 0}
    assert problems(config) == [
        ("page_size", "expected an integer of 1 or more, got 0"),
        ("prompts[1].name", "duplicate prompt name 'p'"),
        ("prompts[2].arguments[0].name", "expected a string, got true"),
        ("prompts[3].messages[0].role", "expected 'user' or 'assistant', got 'system'"),
    ]


def test_unknown_keys_are_typos_with_a_hint():
    assert problems({"prompts": [prompt(descripton="x")]}) == [
        ("prompts[0].descripton", "unknown key (did you mean 'description'?)")]
    assert problems({"prompts": [], "sever": {}}) == [("sever", "unknown key (did you mean 'server'?)")]


def test_duplicate_argument_names():
    config = {"prompts": [prompt(arguments=[{"name": "a"}, {"name": "a"}])]}
    assert problems(config) == [("prompts[0].arguments[1].name", "duplicate argument name 'a'")]


def test_placeholder_must_name_a_declared_argument():
    config = {"prompts": [prompt(messages=[{"role": "user", "text": "{nope}"}])]}
    assert problems(config) == [("prompts[0].messages[0].text", "placeholder {nope} names no declared argument")]


def test_undeclared_placeholders_are_reported_at_their_field():
    config = {"prompts": [prompt(messages=[
        {"role": "user", "text": 'JSON: {"k": 1}'},
        {"role": "user", "content": {"type": "text", "text": "{a}"}},
        {"role": "user", "content": {"type": "resource", "resource": {"uri": "f:{b}", "text": "{c}"}}},
        {"role": "user", "content": {"type": "resource_link", "uri": "f:{d}", "name": "n"}}])]}
    assert problems(config) == [
        ("prompts[0].messages[0].text",
         'placeholder {"k": 1} names no declared argument (write {{ and }} for literal braces)'),
        ("prompts[0].messages[1].content.text", "placeholder {a} names no declared argument"),
        ("prompts[0].messages[2].content.resource.uri", "placeholder {b} names no declared argument"),
        ("prompts[0].messages[2].content.resource.text", "placeholder {c} names no declared argument"),
        ("prompts[0].messages[3].content.uri", "placeholder {d} names no declared argument")]


def test_stray_brace_is_reported_with_column():
    config = {"prompts": [prompt(messages=[{"role": "user", "text": "json { x"}])]}
    assert problems(config) == [("prompts[0].messages[0].text",
                                 "'{' at column 6 opens no placeholder; write '{{' for a literal brace")]


def test_bad_base64_is_rejected():
    block = {"type": "image", "data": "not base64!", "mimeType": "image/png"}
    config = {"prompts": [prompt(messages=[{"role": "user", "content": block}])]}
    assert problems(config) == [("prompts[0].messages[0].content.data", "expected base64 data")]


def test_unknown_content_type_is_rejected():
    config = {"prompts": [prompt(messages=[{"role": "user", "content": {"type": "video"}}])]}
    assert problems(config) == [("prompts[0].messages[0].content.type",
                                 "expected one of 'text', 'image', 'audio', 'resource', "
                                 "'resource_link', got 'video'")]


def test_message_needs_text_or_content_not_both():
    config = {"prompts": [prompt(messages=[{"role": "user", "text": "a",
                                            "content": {"type": "text", "text": "b"}}])]}
    assert problems(config) == [("prompts[0].messages[0]", "expected exactly one of 'text' or 'content'")]


def test_messages_or_render_exactly_one():
    assert problems({"prompts": [{"name": "p"}]}) == [
        ("prompts[0]", "expected exactly one of 'messages' or 'render'")]


def test_render_must_be_callable():
    assert problems({"prompts": [{"name": "p", "render": "code"}]}) == [
        ("prompts[0].render", "expected a callable, got a string")]


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
        ("prompts[0].messages[0].content.annotations.priority", "expected a number from 0 to 1, got 2"),
    ]


def test_required_argument_takes_no_default():
    config = {"prompts": [prompt(arguments=[{"name": "a", "required": True, "default": "x"}])]}
    assert problems(config) == [("prompts[0].arguments[0].default", "a required argument takes no default")]


def test_server_info_fields_are_strings():
    assert problems({"prompts": [], "server": {"name": 1}}) == [
        ("server.name", "expected a string, got the number 1")]


def test_bool_is_not_an_integer_page_size():
    assert problems({"prompts": [], "page_size": True}) == [
        ("page_size", "expected an integer, got true")]


def test_config_error_str_has_one_line_per_problem():
    err = ConfigError([("a", "x"), ("b.c", "y")])
    assert str(err) == "a: x\nb.c: y"


def test_a_duplicate_of_a_fast_prompt_is_reported_and_not_stored():
    with pytest.raises(ConfigError) as info:
        load_config({"prompts": [prompt(name="a"), prompt(name="a")]})
    assert info.value.problems == [("prompts[1].name", "duplicate prompt name 'a'")]


def test_names_with_lone_surrogates_are_refused_at_load():
    # json.loads('"\\ud800"') gives a lone surrogate; such a name cannot be UTF-8 encoded
    # into a cursor or by a client, so it is a config error, not a -32603 at paging time.
    config = json.loads('{"prompts": [{"name": "x\\ud800", "messages": [{"role": "user", "text": "t"}]}, '
                        '{"name": "b", "arguments": [{"name": "\\udc00"}], '
                        '"messages": [{"role": "user", "text": "t"}]}]}')
    assert problems(config) == [
        ("prompts[0].name", "expected valid Unicode, got a lone surrogate at index 1"),
        ("prompts[1].arguments[0].name", "expected valid Unicode, got a lone surrogate at index 0")]


def test_non_ascii_names_are_fine():
    assert load_config({"prompts": [prompt(name="caf\u00e9-\U0001f600")]}).prompts


def test_an_unhashable_content_type_is_a_config_error():
    config = {"prompts": [prompt(messages=[{"role": "user", "content": {"type": ["text"]}}])]}
    assert problems(config) == [("prompts[0].messages[0].content.type",
                                 "expected one of 'text', 'image', 'audio', 'resource', "
                                 "'resource_link', got a list")]


@pytest.mark.parametrize("options, expected", [
    ({"page_size": 0}, [("page_size", "expected an integer of 1 or more, got 0")]),
    ({"page_size": True}, [("page_size", "expected an integer, got true")]),
    ({"limits": {"max_depth": True}}, [("limits.max_depth", "expected an integer, got true")]),
    ({"limits": {"max_batch": -5}}, [("limits.max_batch", "expected an integer of 1 or more, got -5")]),
])
def test_server_options_are_validated_like_the_config(options, expected):
    from tinymcp import Server
    with pytest.raises(ConfigError) as info:
        Server({"prompts": []}, **options)
    assert info.value.problems == expected


# --- one validator: the fast path only accepts what the full validator accepts -----------

def test_null_fields_are_config_errors_whatever_else_the_prompt_holds():
    # Bug: the fast path let "title": null (and description, an argument's title and
    # default) through, the full validator refused them, so --check depended on whether
    # a prompt happened to have icons or content blocks.
    for extra in ({}, {"icons": [{"src": "https://x/i.png"}]}):
        assert problems({"prompts": [dict(prompt(name="mid", title=None), **extra)]}) == [
            ("prompts[0].title", "expected a string, got null")]
        assert problems({"prompts": [dict(prompt(description=None), **extra)]}) == [
            ("prompts[0].description", "expected a string, got null")]
        assert problems({"prompts": [dict(prompt(arguments=[{"name": "a", "title": None},
                                                            {"name": "b", "default": None},
                                                            {"name": "c", "required": None}]),
                                          **extra)]}) == [
            ("prompts[0].arguments[0].title", "expected a string, got null"),
            ("prompts[0].arguments[1].default", "expected a string, got null"),
            ("prompts[0].arguments[2].required", "expected true or false, got null")]
    assert problems({"prompts": [prompt(arguments=())]}) == [
        ("prompts[0].arguments", "expected a list, got a tuple")]


_ODD = [None, "", "x", "\u00e9", "\ud800", 0, 7, -1, True, False, 1.5, float("nan"), [], ["a"], [1],
        {}, {"a": 1}, (), ("a",), "{", "}", "{a}", "{{a}}", "{zz}", len]


def _maybe(rng, valid):
    """``valid`` most of the time, else an odd value."""
    return valid if rng.random() < 0.95 else rng.choice(_ODD)


def _text(rng):
    if rng.random() < 0.6:
        return "hi"
    return _maybe(rng, rng.choice(["say {a}", "{a} and {b}", "{{a}}", "{a}{a}", "x}y", "{"]))


def _block(rng):
    kind = rng.choice(["text", "image", "audio", "resource", "resource_link", "video"])
    block = {"type": kind}
    if kind == "text":
        block["text"] = _text(rng)
    elif kind in ("image", "audio"):
        block.update(data=_maybe(rng, "AAAA"), mimeType=_maybe(rng, "image/png"))
    elif kind == "resource":
        block["resource"] = _maybe(rng, {"uri": _text(rng), rng.choice(["text", "blob"]): "AAAA"})
    elif kind == "resource_link":
        block.update(uri=_text(rng), name=_maybe(rng, "r"))
    for key, value in (("annotations", {"priority": 0.5}), ("_meta", {"k": 1}), ("extra", 1)):
        if rng.random() < 0.15:
            block[key] = _maybe(rng, value)
    return block


def _message(rng):
    msg = {"role": _maybe(rng, rng.choice(["user", "assistant"]))}
    if rng.random() < 0.8:
        msg["text"] = _text(rng)
    else:
        msg["content"] = _block(rng)
    if rng.random() < 0.05:
        msg[rng.choice(["text", "content", "rol"])] = "x"
    return msg


def _argument(rng, name):
    arg = {"name": _maybe(rng, name if rng.random() < 0.95 else "a")}
    for key, value in (("title", "T"), ("description", "D"), ("required", rng.random() < 0.5),
                       ("default", "d"), ("completions", ["x"]), ("requird", True)):
        if rng.random() < (0.05 if key == "requird" else 0.3):
            arg[key] = _maybe(rng, value)
    if rng.random() < 0.05:
        del arg["name"]
    return _maybe(rng, arg)


def _prompt(rng):
    p = {"name": _maybe(rng, rng.choice(["p", "q", "caf\u00e9"]))}
    for key, value in (("title", "T"), ("description", "D"), ("icons", [{"src": "s"}]),
                       ("_meta", {"k": 1}), ("descripton", "x")):
        if rng.random() < (0.05 if key in ("descripton", "icons", "_meta") else 0.3):
            p[key] = _maybe(rng, value)
    if rng.random() < 0.9:
        p["arguments"] = _maybe(rng, [_argument(rng, n) for n in "abc"[:rng.randrange(4)]])
    if rng.random() < 0.95:
        p["messages"] = _maybe(rng, [_message(rng) for _ in range(rng.choice((0, 1, 1, 1, 1, 2)))])
    if rng.random() < 0.03:
        p["render"] = _maybe(rng, lambda arguments: "x")
    return p


def test_fast_path_and_full_validator_agree_on_generated_prompts():
    import random
    from tinymcp.models import Prompt, fast_prompt
    from tinymcp.validate import Check
    rng = random.Random(11)
    fast_taken = 0
    for _ in range(6000):
        p = _prompt(rng)
        check = Check()
        full = Prompt.from_wire(check, p, "prompts[0]")
        fast = fast_prompt(p)
        if fast is not None:
            fast_taken += 1
            assert check.problems == [] and fast == full, (p, check.problems)
    assert fast_taken > 600  # the fast path was really exercised


def test_load_config_answers_the_same_with_and_without_the_fast_path(monkeypatch):
    import random
    from tinymcp import config as config_module
    rng = random.Random(12)
    configs = [{"prompts": [_prompt(rng) for _ in range(rng.randrange(1, 5))]} for _ in range(1500)]

    def outcome(config):
        try:
            return "ok", load_config(config).prompts
        except ConfigError as exc:
            return "error", exc.problems

    with_fast = [outcome(c) for c in configs]
    monkeypatch.setattr(config_module, "fast_prompt", lambda p: None)
    without = [outcome(c) for c in configs]
    assert with_fast == without
    assert 100 < sum(kind == "ok" for kind, _ in with_fast) < len(configs)
