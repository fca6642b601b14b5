"""The validator's words: every problem at its path, typos named with a hint."""

from collections.abc import Sequence

from conftest import problems, prompt


def test_wrong_type_names_the_path():
    config = {"prompts": [prompt(), prompt(name="q"),
                          prompt(name="r", arguments=[{"name": 3}])]}
    assert problems(config) == [("prompts[2].arguments[0].name", "expected a string, got the number 3")]


def test_unknown_keys_are_typos_with_a_hint():
    assert problems({"prompts": [prompt(descripton="x")]}) == [
        ("prompts[0].descripton", "unknown key (did you mean 'description'?)")]
    assert problems({"prompts": [], "sever": {}}) == [("sever", "unknown key (did you mean 'server'?)")]


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


def test_any_sequence_is_a_list_but_text_and_bytes_are_not():
    from tinymcp.validate import Check, is_list
    assert all(is_list(v) for v in ([], (), ("a",), range(2), _sequence("a")))
    assert not any(is_list(v) for v in ("ab", b"ab", bytearray(b"ab"), memoryview(b"ab"), {}, {"a"},
                                        None, 3, iter([1])))
    check = Check()
    given = ("a", "b")
    value = check.field({"k": given}, "k", "", "list")
    assert value == ["a", "b"] and type(value) is list  # handed on as a list
    same = ["a"]
    assert check.field({"k": same}, "k", "", "list") is same  # a list as it is: no copy
    assert check.strings({"k": _sequence("x")}, "k", "") == ["x"]
    assert check.problems == []
    for value, got in (("ab", "a string"), (b"ab", "a bytes"), ({"a"}, "a set")):
        assert problems({"prompts": [prompt(arguments=value)]}) == [
            ("prompts[0].arguments", "expected a list, got %s" % got)]
