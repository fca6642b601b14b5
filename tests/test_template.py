"""Prompt text templates: {arg} placeholders filled verbatim, {{ and }} for literal braces, stray braces refused."""

import pytest

from conftest import Wire, bounded, problems, prompt
from tinymcp.model.template import Template, fill, parse_template


@pytest.mark.parametrize("text, expected", [
    ("{{" * 1000000, "{" * 1000000), ("{{" * 1000000 + "}", None), ("a}}" * 1000000 + "{x}", "a}" * 1000000 + "X"),
])
def test_a_template_of_a_million_braces_is_read_in_linear_time(text, expected):
    # Bug: with no '}' after them, each '{{' looked for one to the end of the text again:
    # 400,000 of them took 1.8 s at load (and on the loop, at a --watch reload)
    with bounded(5):  # (a failure guard: many times what a linear read takes; no time is asserted)
        try:
            parsed = parse_template(text)
        except ValueError:
            parsed = None
    assert (parsed if type(parsed) is not Template else parsed.render({"x": "X"})) == expected


def test_placeholders_are_filled_verbatim():
    assert parse_template("Hi {name}, {name}!").render({"name": "Ann"}) == "Hi Ann, Ann!"


def test_doubled_braces_are_literal():
    assert parse_template("{{x}} and }}") == "{x} and }"
    assert parse_template("{{{a}}}").render({"a": "1"}) == "{1}"


@pytest.mark.parametrize("value", [
    "{tone}", "{other}", "{0.__class__}", "%s", "${x}", "{{", "}", "\0", "line\nbreak", "x" * 1000000,
])
def test_values_are_never_re_expanded(wire, value):
    wire.initialize()
    text = wire.get("p000", {"topic": value, "tone": "T"})["result"]["messages"][0]["content"]["text"]
    assert text == "Tell me about %s in a T tone" % value


def test_missing_value_renders_empty():
    assert parse_template("[{a}]").render({}) == "[]"


@pytest.mark.parametrize("text, message", [
    ("a { b", "'{' at column 3 opens no placeholder; write '{{' for a literal brace"),
    ("a {}", "'{' at column 3 opens no placeholder; write '{{' for a literal brace"),
    ("{a {b}", "'{' at column 1 opens no placeholder; write '{{' for a literal brace"),
    ("x } y", "'}' at column 3 closes no placeholder; write '}}' for a literal brace"),
    # (in a text of many lines, its line too: a column counted from the text's start was no place)
    ("Line one\nLine two\nuse } here", "'}' at line 3, column 5 closes no placeholder; write '}}' for a literal brace"),
    ("{a}\n{{b}}\n{c", "'{' at line 3, column 1 opens no placeholder; write '{{' for a literal brace"),
])
def test_stray_braces_are_rejected_with_their_column(text, message):
    with pytest.raises(ValueError) as info:
        parse_template(text)
    assert str(info.value) == message


def test_stray_brace_is_reported_with_column():
    config = {"prompts": [prompt(messages=[{"role": "user", "text": "json { x"}])]}
    assert problems(config) == [("prompts[0].messages[0].text",
                                 "'{' at column 6 opens no placeholder; write '{{' for a literal brace")]


def test_doubled_braces_are_served_single_with_or_without_placeholders():
    wire = Wire({"prompts": [
        {"name": "a", "messages": [{"role": "user", "text": 'JSON: {{"k": 1}}'}]},
        {"name": "b", "arguments": [{"name": "x"}], "messages": [{"role": "user", "text": 'JSON: {{"k": {x}}}'}]},
        {"name": "c", "messages": [{"role": "user", "content": {
            "type": "resource", "resource": {"uri": "u:a", "text": "{{t}}"}}}]},
        {"name": "d", "messages": [{"role": "user", "content": {"type": "text", "text": "{{}}"}}]},
    ]})
    wire.initialize()
    content = lambda name, args=None: wire.get(name, args)["result"]["messages"][0]["content"]  # noqa: E731
    assert content("a")["text"] == 'JSON: {"k": 1}'
    assert content("b", {"x": "2"})["text"] == 'JSON: {"k": 2}'
    assert content("c")["resource"] == {"uri": "u:a", "text": "{t}", "mimeType": "text/plain"}
    assert content("d")["text"] == "{}"


def test_names_within_says_true_only_of_a_template_whose_names_are_all_given():
    import random
    from tinymcp.model.check import Check
    from tinymcp.model.template import check_template, names_within
    rng = random.Random(5)
    pieces = ["{a}", "{b}", "{zz}", "{", "}", "{{", "}}", "x", " ", "{}", "{a", "a}", "é"]
    names = {"a", "b"}
    decided = 0
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(6)))
        if names_within(text, names):
            decided += 1
            check = Check()
            check_template(check, text, "t", names)
            assert check.problems == [], text  # (it parses, and every name it holds is given)
    assert decided > 1000


def test_a_template_reads_as_its_grammar_says_left_to_right():
    # The grammar, as a regular expression read left to right at each brace: '{{' or '}}' a
    # literal brace, '{name}' a placeholder, any other brace (and '{}') a mistake
    import random
    import re
    rng = random.Random(7)
    pieces = ["{", "}", "{{", "}}", "a", "b c", "{a}", "{}", " ", "é"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(9)))
        parts, literal, at, stray = [], [], 0, None
        for match in re.finditer(r"\{\{|\}\}|\{([^{}]*)\}|[{}]", text):
            literal.append(text[at:match.start()])
            at, piece = match.end(), match.group()
            if piece in ("{{", "}}"):
                literal.append(piece[0])
            elif match.group(1):
                parts += ("".join(literal), match.group(1))
                literal = []
            else:
                stray = (piece[0], match.start() + 1)
                break
        if stray:
            with pytest.raises(ValueError, match="^'%s' at column %d " % (re.escape(stray[0]), stray[1])):
                parse_template(text)
            continue
        parts.append("".join(literal) + text[at:])
        # (each name filled as <name>: no piece holds '<', so the text tells the parts apart)
        assert fill(text, {n: "<%s>" % n for n in parts[1::2]}) == "".join(
            p if i % 2 == 0 else "<%s>" % p for i, p in enumerate(parts)), text
