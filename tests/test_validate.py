"""The validator's words: every problem at its path, typos named with a hint."""

from collections.abc import Sequence

from conftest import problems, prompt


def test_wrong_type_names_the_path():
    config = {"prompts": [prompt(), prompt(name="q"),
                          prompt(name="r", arguments=[{"name": 3}])]}
    assert problems(config) == [("prompts[2].arguments[0].name", 'expected a string, got the number 3 (in quotes it is text)')]


def test_unknown_keys_are_typos_with_a_hint():
    assert problems({"prompts": [prompt(descripton="x")]}) == [
        ("prompts[0].descripton", "unknown key (did you mean 'description'?)")]
    assert problems({"prompts": [], "sever": {}}) == [("sever", "unknown key (did you mean 'server'?)")]
    assert problems({"prompts": [], None: 1}) == [("None", "unknown key")]  # (a Python key: named, not lost)


# --- sequences ------------------------------------------------------------------------------

class Letters(Sequence):
    """A Sequence that is neither a list nor a tuple (and that json cannot encode)."""

    def __init__(self, *items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def _sequence(*items):
    return Letters(*items)


def test_any_sequence_is_a_list_but_text_bytes_and_sets_are_not():
    config = {"prompts": [prompt(arguments=_sequence({"name": "a"}), messages=({"role": "user", "text": "{a}"},))]}
    from tinymcp import load_config
    assert load_config(config).prompts.get("p")["arguments"] == [{"name": "a"}]
    for value, got in (("ab", "the string 'ab'"), (b"ab", "a bytes"), ({"a"}, "a set")):
        assert problems({"prompts": [prompt(arguments=value)]}) == [
            ("prompts[0].arguments", "expected a list, got %s" % got)]
