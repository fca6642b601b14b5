"""The validator's words: every problem at its path, typos named with a hint."""

from conftest import problems, prompt


def test_wrong_type_names_the_path():
    config = {"prompts": [prompt(), prompt(name="q"),
                          prompt(name="r", arguments=[{"name": 3}])]}
    assert problems(config) == [("prompts[2].arguments[0].name", "expected a string, got the number 3")]


def test_unknown_keys_are_typos_with_a_hint():
    assert problems({"prompts": [prompt(descripton="x")]}) == [
        ("prompts[0].descripton", "unknown key (did you mean 'description'?)")]
    assert problems({"prompts": [], "sever": {}}) == [("sever", "unknown key (did you mean 'server'?)")]
