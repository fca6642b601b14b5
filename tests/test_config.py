"""The config: load_config's top level (every problem in one ConfigError), ServerConfig defaults."""

import copy

import pytest

from conftest import Wire, problems, prompt, simple_config
from tinymcp import load_config


def test_config_must_be_an_object():
    assert problems([]) == [("config", "expected an object, got a list")]


def test_prompts_are_required():
    assert problems({}) == [("", "missing required key 'prompts'")]


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
        ("prompts[2].arguments[0].name", 'expected a string, got true (in quotes it is text)'),
        ("prompts[3].messages[0].role", "expected 'user' or 'assistant', got 'system'"),
    ]


def test_a_duplicate_of_a_prompt_of_the_common_shape_is_reported_and_not_stored():
    assert problems({"prompts": [prompt(name="a"), prompt(name="a")]}) == [
        ("prompts[1].name", "duplicate prompt name 'a'")]


def test_server_info_fields_are_strings():
    assert problems({"prompts": [], "server": {"name": 1}}) == [
        ("server.name", 'expected a string, got the number 1 (in quotes it is text)')]


def test_a_ttl_no_json_reader_holds_exactly_is_a_problem_not_a_failing_reply():
    # (10**5000 loaded, then every server/discover and modern prompts/list failed to encode: -32603)
    assert load_config({"prompts": [], "ttl_ms": 2 ** 53 - 1}).ttl_ms == 2 ** 53 - 1
    assert problems({"prompts": [], "ttl_ms": 10 ** 5000}) == [
        ("ttl_ms", "expected an integer of 9007199254740991 or less, got one of more than 19 digits")]


def test_an_empty_key_is_named_where_it_is():
    # (it was told as "  unknown key", with no path at all)
    assert problems({"": 1, "prompts": [{"name": "p", "": 2, "messages": [{"role": "user", "text": "x"}]}]}) == [
        ('""', "unknown key"), ('prompts[0].""', "unknown key")]


def test_bool_is_not_an_integer_page_size():
    assert problems({"prompts": [], "page_size": True}) == [
        ("page_size", "expected an integer, got true")]


def test_default_page_size_delivers_a_library_of_hundreds_in_one_page():
    wire = Wire(simple_config(2500))
    wire.initialize()
    assert [len(p) for p in wire.pages()] == [1000, 1000, 500]


def test_config_dicts_are_never_changed_by_loading():
    config = {"prompts": [{"name": "c", "messages": [{"role": "user", "content": {
        "type": "resource", "resource": {"uri": "u:a", "text": "{{t}}"}}}]}]}
    before = copy.deepcopy(config)
    Wire(config)
    assert config == before


# --- sequences where the config has lists ----------------------------------------------------

def _every_list_a_tuple(value):
    if isinstance(value, dict):
        return {k: _every_list_a_tuple(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(_every_list_a_tuple(v) for v in value)
    return value


#: a config with a list in every place one can be
LISTS = {"prompts": [
    {"name": "plain", "arguments": [{"name": "a"}], "messages": [{"role": "user", "text": "{a}"}]},
    {"name": "full", "icons": [{"src": "https://x/i.png", "sizes": ["16x16", "32x32"]}],
     "arguments": [{"name": "a", "completions": ["apple", "avocado"]}],
     "messages": [{"role": "user", "content": {"type": "text", "text": "{a}",
                                               "annotations": {"audience": ["user", "assistant"]}}},
                  {"role": "user", "content": {"type": "resource_link", "uri": "file:///x", "name": "x",
                                               "icons": [{"src": "https://e.x/i.png", "sizes": ["any"]}]}}]}]}


def _served(config):
    wire = Wire(config)
    wire.initialize()
    out = [wire.result("prompts/list"), wire.complete("a", "a", name="full")]
    out += [wire.get(name, {"a": "A"}) for name in ("plain", "full")]
    return wire.output, out


def test_tuples_are_taken_wherever_a_list_is_and_serve_the_same():
    # Bug: a Python caller's tuples were refused ("expected a list, got a tuple").
    tuples = _every_list_a_tuple(LISTS)
    assert type(tuples["prompts"]) is tuple and type(tuples["prompts"][1]["icons"][0]["sizes"]) is tuple
    assert _served(tuples) == _served(LISTS)
    assert load_config(tuples).prompts == load_config(LISTS).prompts  # (a reload sees no change)


def test_dict_subclasses_are_taken_wherever_a_dict_is_and_copied():
    # (an OrderedDict, or any mapping a Python caller built as a dict subclass)
    from collections import OrderedDict

    def ordered(value):
        if isinstance(value, dict):
            return OrderedDict((k, ordered(v)) for k, v in value.items())
        return [ordered(v) for v in value] if isinstance(value, list) else value

    config = ordered(LISTS)
    served = load_config(config)
    assert served.prompts == load_config(LISTS).prompts
    config["prompts"][0]["messages"][0]["text"] = "changed after the load"
    assert served.prompts == load_config(LISTS).prompts  # (a copy: the caller's dicts stay its own)
    assert _served(ordered(LISTS)) == _served(LISTS)


def test_other_sequences_are_taken_too_and_sent_as_lists():
    from test_validate import _sequence
    config = copy.deepcopy(LISTS)
    full = config["prompts"][1]
    full["icons"] = _sequence(full["icons"][0])
    full["icons"][0]["sizes"] = _sequence("16x16", "32x32")
    full["arguments"][0]["completions"] = _sequence("apple", "avocado")
    full["messages"][0]["content"]["annotations"]["audience"] = _sequence("user", "assistant")
    full["messages"][1]["content"]["icons"] = _sequence({"src": "https://e.x/i.png", "sizes": _sequence("any")})
    full["messages"] = _sequence(*full["messages"])
    config["prompts"] = _sequence(*config["prompts"])
    assert _served(config) == _served(LISTS)


@pytest.mark.parametrize("char", ["\n", "\t", "\x1b", "\x7f", "\x85", "\u202e", "\u2066", "\u200f"])
def test_names_with_control_or_bidirectional_characters_are_refused(char):
    # a newline or ESC in a name reaches a client's menu and logs; U+202E shows
    # "evil\u202egpj.md" as "evilmd.jpg"
    name = "a%sb" % char
    config = {"prompts": [prompt(name=name, arguments=[{"name": name}])]}
    assert [(path, message.split(" at index")[0]) for path, message in problems(config)] == [
        (path, "expected a printable name, got %s" % ascii(char))
        for path in ("prompts[0].name", "prompts[0].arguments[0].name")]


def test_names_in_any_script_with_spaces_and_emoji_are_taken():
    names = ["résumé", "日本語", "review code", "ship it 🚀"]
    assert load_config({"prompts": [prompt(name=n) for n in names]}).prompts.names == names


def test_a_prompt_with_100000_arguments_is_loaded_listed_and_got_in_linear_time():
    # (a tuple of the required ones grew one by one: 40,000 arguments took 3.5 s)
    from conftest import bounded
    arguments = [{"name": "a%d" % i, "required": i % 2 == 0} for i in range(100000)]
    with bounded(10):
        wire = Wire({"prompts": [prompt(arguments=arguments)]})
        wire.initialize()
        assert len(wire.result("prompts/list")["prompts"][0]["arguments"]) == 100000
        error = wire.error("prompts/get", {"name": "p", "arguments": {"a0": "v"}})
    assert error["code"] == -32602 and "and 49989 more" in error["message"]


def test_an_empty_server_name_is_refused():
    assert problems({"server": {"name": ""}, "prompts": []}) == [("server.name", "expected a non-empty string")]
