"""Prompts and their arguments: validation (from_wire, and the fast path that must agree), listings per revision."""

import json
import random

import pytest

from conftest import Wire, modern_wire, one, problems, prompt


def test_duplicate_argument_names():
    config = {"prompts": [prompt(arguments=[{"name": "a"}, {"name": "a"}])]}
    assert problems(config) == [("prompts[0].arguments[1].name", "duplicate argument name 'a'")]


def test_placeholder_must_name_a_declared_argument():
    config = {"prompts": [prompt(messages=[{"role": "user", "text": "{nope}"}])]}
    assert problems(config) == [("prompts[0].messages[0].text", "placeholder {nope} names no declared argument")]
    # (one a slip, a case or spaces away from a declared one: named)
    for text, meant in (("{ code }", "code"), ("{cod}", "code"), ("{X}", "x")):
        config = {"prompts": [prompt(arguments=[{"name": meant}], messages=[{"role": "user", "text": text}])]}
        assert problems(config) == [("prompts[0].messages[0].text", "placeholder %s names no declared argument "
                                     "(did you mean {%s}?)" % (text, meant))]


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


def test_messages_or_render_exactly_one():
    assert problems({"prompts": [{"name": "p"}]}) == [
        ("prompts[0]", "expected exactly one of 'messages' or 'render'")]


def test_both_messages_and_render_still_checks_the_messages():
    assert problems({"prompts": [{"name": "p", "render": lambda a: "x",
                                  "messages": [{"role": "bot", "text": "x"}]}]}) == [
        ("prompts[0]", "expected exactly one of 'messages' or 'render'"),
        ("prompts[0].messages[0].role", "expected 'user' or 'assistant', got 'bot'"),
    ]


def test_json_config_cannot_smuggle_code():
    assert problems({"prompts": [{"name": "p", "render": "__import__('os').system('true')"}]}) == [
        ("prompts[0].render", "expected a callable, got the string \"__import__('os').system('true')\"")]


def test_an_async_callable_is_refused_at_load():
    # (its coroutine was never awaited: every get failed -32603, a RuntimeWarning each)
    async def render(arguments):
        return "x"
    told = "expected a callable, got an async function (never awaited here: call asyncio.run in a plain one)"
    assert problems({"prompts": [{"name": "p", "render": render}]}) == [("prompts[0].render", told)]


def test_an_async_callable_behind_a_partial_or_a_call_method_is_refused_at_load():
    import functools

    async def render(arguments, extra):
        return "x"

    class Render:
        async def __call__(self, arguments):
            return "x"

    class Sync:  # (as the message asks: a plain callable running the async one)
        func = render

        def __call__(self, arguments):
            return "x"

    told = "expected a callable, got an async function (never awaited here: call asyncio.run in a plain one)"
    for given in (functools.partial(render, extra=1), Render()):
        assert problems({"prompts": [{"name": "p", "render": given}]}) == [("prompts[0].render", told)]
    from tinymcp import load_config
    for given in (Sync(), Render):  # (a class: calling it makes an instance)
        assert load_config({"prompts": [{"name": "p", "render": given}]}).prompts


def test_required_argument_takes_no_default():
    config = {"prompts": [prompt(arguments=[{"name": "a", "required": True, "default": "x"}])]}
    assert problems(config) == [("prompts[0].arguments[0].default", "a required argument takes no default")]


def test_completions_list_must_hold_strings():
    assert problems({"prompts": [{"name": "p", "arguments": [{"name": "a", "completions": ["x", 2]}],
                                  "messages": [{"role": "user", "text": "{a}"}]}]}) == [
        ("prompts[0].arguments[0].completions[1]", "expected a string, got the number 2")]


def test_names_with_lone_surrogates_are_refused_at_load():
    # json.loads('"\\ud800"') gives a lone surrogate; such a name cannot be UTF-8 encoded
    # into a cursor or by a client, so it is a config error, not a -32603 at paging time.
    config = json.loads('{"prompts": [{"name": "x\\ud800", "messages": [{"role": "user", "text": "t"}]}, '
                        '{"name": "b", "arguments": [{"name": "\\udc00"}], '
                        '"messages": [{"role": "user", "text": "t"}]}]}')
    assert problems(config) == [
        ("prompts[0].name", "expected valid Unicode, got a lone surrogate at index 1 (a lone \\ud800 to \\udfff "
                            "escape, or a file's name not in UTF-8)"),
        ("prompts[1].arguments[0].name", "expected valid Unicode, got a lone surrogate at index 0 (a lone \\ud800 "
                                         "to \\udfff escape, or a file's name not in UTF-8)")]


def test_non_ascii_names_are_fine():
    from tinymcp import load_config
    assert load_config({"prompts": [prompt(name="caf\u00e9-\U0001f600")]}).prompts


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
    assert problems({"prompts": [prompt(arguments="ab")]}) == [  # (text is no list of arguments)
        ("prompts[0].arguments", "expected a list, got the string 'ab'")]


def test_whatever_load_config_accepts_is_served_and_whatever_it_refuses_is_named_in_the_prompt():
    # generated prompts, mostly valid and sometimes odd: the one validator either refuses a
    # prompt naming its problems there, or accepts it, and then every revision lists and
    # gets it without an internal error
    from generated_prompts import generated_prompt
    from tinymcp import ConfigError, load_config
    from tinymcp.protocol.revisions import HANDSHAKE_VERSIONS
    rng = random.Random(11)
    accepted = 0
    for _ in range(1500):
        p = generated_prompt(rng)
        try:
            load_config({"prompts": [p]})
        except ConfigError as exc:
            assert exc.problems and all(path.startswith("prompts[0]") for path, _ in exc.problems), p
            continue
        accepted += 1
        for version in HANDSHAKE_VERSIONS:
            wire = Wire({"prompts": [p]})
            wire.initialize(version)
            assert [x["name"] for x in wire.result("prompts/list")["prompts"]] == [p["name"]]
            reply = wire.get(p["name"], {a["name"]: "v" for a in p.get("arguments", ())})
            assert reply.get("error", {}).get("code") != -32603, (p, reply)
    assert 300 < accepted < 1500


# --- listings -------------------------------------------------------------------------------

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


def test_modern_prompt_fields_follow_the_2026_schema():
    prompt = {"name": "p", "title": "P", "icons": [{"src": "https://x/i.png", "sizes": ["any"]}],
              "_meta": {"x.y/z": 1}, "arguments": [{"name": "a", "title": "A"}],
              "messages": [{"role": "user", "content": {
                  "type": "resource_link", "uri": "file:///{a}", "name": "n", "icons": [{"src": "https://x/i.png"}],
                  "annotations": {"lastModified": "2025-01-01T00:00:00Z"}}}]}
    m = modern_wire({"prompts": [prompt]})
    listed = one(m.modern("prompts/list"))["result"]["prompts"][0]
    assert listed == {"name": "p", "title": "P", "icons": prompt["icons"], "_meta": {"x.y/z": 1},
                      "arguments": [{"name": "a", "title": "A"}]}
    content = one(m.modern("prompts/get", {"name": "p", "arguments": {"a": "f"}}))["result"]["messages"][0]["content"]
    assert content["uri"] == "file:///f" and content["icons"] and content["annotations"]


# A prompt that is no object is a problem at its path (not an AttributeError out of load_config)
@pytest.mark.parametrize("value, described", [(3, "the number 3"), ("p", "the string 'p'"), (None, "null"),
                                              (["p"], "a list")])
def test_a_prompt_that_is_no_object_is_a_problem_at_its_path(value, described):
    assert problems({"prompts": [prompt(), value]}) == [("prompts[1]", "expected an object, got %s" % described)]


# A non-callable argument 'complete' loaded, and its first completion/complete was an internal error
def test_an_arguments_complete_must_be_callable():
    assert problems({"prompts": [prompt(arguments=[{"name": "a", "complete": "words.txt"}])]}) == [
        ("prompts[0].arguments[0].complete", "expected a callable, got the string 'words.txt'")]


# A config that holds itself
def test_a_config_that_holds_itself_is_one_problem():
    config = {"prompts": []}
    config["prompts"].append(config)
    assert problems(config) == [("config", "nested too deeply (or a value that holds itself)")]


# A number of 19 digits is quoted in a message
def test_a_number_of_nineteen_digits_is_quoted_in_a_problem():
    assert problems({"prompts": [], "server": {"name": 10 ** 18}}) == [
        ("server.name", 'expected a string, got the number 1000000000000000000 (in quotes it is text)')]
    assert problems({"prompts": [], "server": {"name": 10 ** 19}}) == [
        ("server.name", "expected a string, got a number")]


# A wrong choice is shown whole up to 40 characters, else its first 40 and "..."
def test_a_wrong_choice_is_shown_up_to_forty_characters():
    assert problems({"prompts": [], "cache_scope": "x" * 40}) == [
        ("cache_scope", "expected 'public' or 'private', got '%s'" % ("x" * 40))]
    assert problems({"prompts": [], "cache_scope": "y" * 41}) == [
        ("cache_scope", "expected 'public' or 'private', got '%s...'" % ("y" * 40))]
