"""The Server: page_size and limits overrides, and replace_config/apply_config deciding whether the prompts changed."""

import json
import os

import pytest

from conftest import LIST_CHANGED, Wire, initialize, limited_config, line, named_config, req, simple_config
from tinymcp import ConfigError, Server, load_config
from transport_helpers import piped_hub, read_lines


def test_page_size_override_beats_config():
    wire = Wire(simple_config(10, page_size=20), page_size=3)
    wire.initialize()
    assert [len(p) for p in wire.pages()] == [3, 3, 3, 1]


def test_server_keyword_overrides_config_limits():
    wire = Wire(limited_config(max_batch=3), limits={"max_batch": 1})
    wire.initialize("2025-03-26")
    batch = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(2)]
    assert wire.send(batch)[0]["error"]["code"] == -32600


@pytest.mark.parametrize("options, expected", [
    ({"page_size": 0}, [("page_size", "expected an integer of 1 or more, got 0")]),
    ({"page_size": True}, [("page_size", "expected an integer, got true")]),
    ({"limits": {"max_depth": True}}, [("limits.max_depth", "expected an integer, got true")]),
    ({"limits": {"max_batch": -5}}, [("limits.max_batch", "expected an integer of 1 or more, got -5")]),
    ({"prompts_as_tools": "no"}, [("prompts_as_tools", "expected true or false, got the string 'no'")]),  # (was on)
])
def test_server_options_are_validated_like_the_config(options, expected):
    with pytest.raises(ConfigError) as info:
        Server({"prompts": []}, **options)
    assert info.value.problems == expected


def test_apply_config_says_whether_the_prompts_changed():
    server = Server(named_config(["a", "b"]))
    assert server.apply_config(load_config(named_config(["a", "b"]))) is False
    assert server.apply_config(load_config(named_config(["a", "b"], text="other {topic}"))) is True
    assert server.apply_config(load_config(named_config(["a"], text="other {topic}"))) is True
    # (a client sees the order of keys too, and which value goes with which key)
    for meta in ({"k": 1, "j": 2}, {"j": 1, "k": 2}, {"k": 2, "j": 1}):
        assert server.apply_config(load_config({"prompts": [{"name": "a", "_meta": meta, "messages": [
            {"role": "user", "text": "x"}]}]})) is True
    render = lambda arguments: "x"  # noqa: E731
    server.apply_config(load_config({"prompts": [{"name": "r", "render": render}]}))
    assert server.apply_config(load_config({"prompts": [{"name": "r", "render": render}]})) is False
    assert server.apply_config(load_config({"prompts": [{"name": "r", "render": lambda a: "x"}]})) is True


def test_a_callable_is_compared_by_identity_never_by_its_own_eq():
    class Render:
        def __call__(self, args):
            return "x"

        def __eq__(self, other):
            raise RuntimeError("a caller's __eq__ ran")

        __hash__ = object.__hash__

    render = Render()
    server = Server({"prompts": [{"name": "r", "render": render}]})
    assert server.apply_config(load_config({"prompts": [{"name": "r", "render": render}]})) is False
    assert server.apply_config(load_config({"prompts": [{"name": "r", "render": Render()}]})) is True


def test_replace_config_with_the_same_prompts_notifies_no_one():
    # Bug: only reload.py compared old and new (as file bytes), so
    # server.replace_config(same_config) from Python told every session of a change.
    # The server decides, whatever the source: the prompts, not the bytes or the rest.
    with piped_hub(["one"]) as (server, loop, hub, w_in, r_out):
        os.write(w_in, line(initialize()) + line(req(2, "logging/setLevel", {"level": "info"})))
        read_lines(loop, r_out, 2)
        same = named_config(["one"])
        same.update(ttl_ms=5, server={"title": "another title"})
        server.replace_config(named_config(["one"]))
        server.replace_config(same)
        loop.run_once(0)
        assert server.config.ttl_ms == 5  # applied all the same
        server.replace_config(named_config(["one", "two"]))
        loop.run_once(0)
        notes = [json.loads(x) for x in os.read(r_out, 65536).split(b"\n") if x]
        assert notes[0] == LIST_CHANGED and len(notes) == 2  # (the second: the logged reload)
        assert notes[1]["params"]["data"] == {"message": "prompts reloaded", "prompts": 2}


def test_a_change_of_json_type_or_of_template_escapes_is_a_change():
    from tinymcp import Server, load_config

    def prompt(**fields):
        base = {"name": "p", "arguments": [{"name": "b"}], "messages": [{"role": "user", "text": "a"}]}
        base.update(fields)
        return {"prompts": [base]}

    server = Server(prompt(_meta={"x": 1}))
    for new in (prompt(_meta={"x": True}), prompt(_meta={"x": 1.0}), prompt(_meta={"x": 1.0, "y": 2}),
                prompt(_meta={"y": 2, "x": 1.0}), prompt(messages=[{"role": "user", "text": "a {{b}}"}]),
                prompt(messages=[{"role": "user", "text": "a {b}"}])):
        assert server.apply_config(load_config(new)) is True, new
    assert server.apply_config(load_config(prompt(messages=[{"role": "user", "text": "a {b}"}]))) is False


def test_a_reload_compares_a_deeply_nested_meta_without_recursing():
    # Bug: a config file whose _meta nests 450 deep loads and is served (the JSON decoder
    # and encoder take it), but the reload's comparison recursed twice a level:
    # RecursionError out of apply_config, which on SIGHUP ended the CLI (exit status 1)
    def deep(leaf):
        meta = {"a": leaf}
        for _ in range(450):
            meta = {"k": meta}
        text = json.dumps({"prompts": [{"name": "p", "_meta": {"x": meta},
                                        "messages": [{"role": "user", "text": "x"}]}]})
        return load_config(json.loads(text), owned=True)  # (as --config loads a file)

    server = Server(deep(1))
    assert server.apply_config(deep(1)) is False
    assert server.apply_config(deep(2)) is True


# --- a path is not a config -------------------------------------------------------------------

def test_a_path_given_as_the_config_is_a_type_error_that_says_what_to_do(tmp_path):
    # Bug: Server("prompts.json") said "config: expected an object, got a string".
    import pathlib
    message = ("Server() takes a config dict, not a path (%s): load the file yourself (json.load), "
               "or serve it with tinymcp.serve(path) or python3 -m tinymcp --config PATH")
    for path, shown in (("prompts.json", "'prompts.json'"), (b"prompts.json", "b'prompts.json'"),
                        (pathlib.PurePosixPath("dir/prompts.json"), "'dir/prompts.json'")):
        with pytest.raises(TypeError) as info:
            Server(path)
        assert str(info.value) == message % shown
    server = Server({"prompts": []})
    with pytest.raises(TypeError, match=r"^Server\(\) takes a config dict, not a path"):
        server.replace_config("prompts.json")
    # load_config still reports a JSON string at the top of a file as the config error it is
    with pytest.raises(ConfigError, match="^config: expected an object, got the string 'prompts.json'$"):
        load_config("prompts.json")
