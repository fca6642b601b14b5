import pytest

from tinymcp.template import Template, parse_template


def test_text_without_braces_stays_a_plain_string():
    assert parse_template("hello") == "hello"


def test_placeholders_are_filled_verbatim():
    tpl = parse_template("Hi {name}, {name}!")
    assert isinstance(tpl, Template)
    assert tpl.render({"name": "Ann"}) == "Hi Ann, Ann!"


def test_doubled_braces_are_literal():
    assert parse_template("{{x}} and }}") == "{x} and }"
    assert parse_template("{{{a}}}").render({"a": "1"}) == "{1}"


@pytest.mark.parametrize("value", [
    "{other}", "{0.__class__}", "%s", "${x}", "{{", "}", "\0", "line\nbreak", "x" * 1000000,
])
def test_values_are_never_re_expanded(value):
    tpl = parse_template("<{a}|{other}>")
    assert tpl.render({"a": value, "other": "O"}) == "<" + value + "|O>"


def test_missing_value_renders_empty():
    assert parse_template("[{a}]").render({}) == "[]"


@pytest.mark.parametrize("text, message", [
    ("a { b", "'{' at column 3 opens no placeholder; write '{{' for a literal brace"),
    ("a {}", "'{' at column 3 opens no placeholder; write '{{' for a literal brace"),
    ("{a {b}", "'{' at column 1 opens no placeholder; write '{{' for a literal brace"),
    ("x } y", "'}' at column 3 closes no placeholder; write '}}' for a literal brace"),
])
def test_stray_braces_are_rejected_with_their_column(text, message):
    with pytest.raises(ValueError) as info:
        parse_template(text)
    assert str(info.value) == message
