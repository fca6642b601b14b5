"""tinymcp/yamlish.py: the YAML subset prompt files' front matter is read with.

What each construct of the subset reads as; the exact error (line, column, message) of
each construct outside it (tests/data/yaml_errors.json); seeded fuzzing, of mutated
front matter (a value or a YamlError, never another exception) and of generated
documents (read back exactly); and the reader's cost, counted (not timed) on
pathological inputs, growing no faster than the input.
"""

import json
import os
import random
import sys
from pathlib import Path

import pytest

pytest.importorskip("tinymcp.files", reason="a copy without files/")

from conftest import bounded
from tinymcp.files import yamlish
from tinymcp.files.yamlish import YamlError, load


def doc(*lines):
    return "\n".join(lines) + "\n"


def value_of(text):
    return load(text)[0]


# --- the subset ---------------------------------------------------------------------------------

PROMPT_FILE = doc(
    "name: review",
    "description: Review a change",
    "arguments:",
    "  - name: pr",
    "    description: the PR number",
    "    required: true",
    "  - name: focus",
    "    default: \"tests, docs\"",
)

BEHAVIOUR = [
    # block mappings and sequences
    ("mapping", doc("a: 1", "b: two"), {"a": 1, "b": "two"}),
    ("nested mapping", doc("a:", "  b:", "    c: 1", "  d: 2", "e: 3"), {"a": {"b": {"c": 1}, "d": 2}, "e": 3}),
    ("prompt file arguments", PROMPT_FILE, {
        "name": "review", "description": "Review a change", "arguments": [
            {"name": "pr", "description": "the PR number", "required": True},
            {"name": "focus", "default": "tests, docs"}]}),
    ("sequence indented under its key", doc("a:", "  - x", "  - y"), {"a": ["x", "y"]}),
    ("sequence at its key's indentation", doc("a:", "- x", "- y", "b: 1"), {"a": ["x", "y"], "b": 1}),
    ("items at their key's indentation inside an item", doc("- a:", "  - x", "  b: 1"),
     [{"a": ["x"], "b": 1}]),
    ("item mapping with further keys", doc("- a: 1", "  b: 2", "- c: 3"), [{"a": 1, "b": 2}, {"c": 3}]),
    ("item mapping with a nested mapping", doc("- a:", "    b: 1", "  c: 2"), [{"a": {"b": 1}, "c": 2}]),
    ("item mapping on the line below its dash", doc("-", "  a: 1", "  b: 2"), [{"a": 1, "b": 2}]),
    # a value over more lines, or starting on the line below (YAML folds each line break
    # into a space, an empty line into a line break; formatters write front matter so)
    ("plain value over two lines", doc("a: one", "  two", "b: 3"), {"a": "one two", "b": 3}),
    ("plain value with an empty line", doc("a: one", "", "  two", "", "b: 3"), {"a": "one\ntwo", "b": 3}),
    ("value on the line below its key", doc("a:", "  text  # note", "b: 1"), {"a": "text", "b": 1}),
    ("value on the line below its dash", doc("-", "  text", "- x"), ["text", "x"]),
    ("item over two lines", doc("a:", "  - one", "    two", "  - x"), {"a": ["one two", "x"]}),
    # (a plain value's next line may start with '- ': text, as YAML reads it; it was an error)
    ("plain value over a line like an item", doc("a: Do x", "  - then y", "b:", "- one", "  - two"),
     {"a": "Do x - then y", "b": ["one - two"]}),
    ("quoted value over two lines", doc("a: \"one # not a note", "  two\""), {"a": "one # not a note two"}),
    # (a formatter's wrap of a quoted value, where a line reads as a key or an item: it was an error)
    ("quoted value over a line like a key", doc("a: \"Use when", "  the user says: hi\"", "b: 1"),
     {"a": "Use when the user says: hi", "b": 1}),
    ("single-quoted value over lines like items", doc("- 'it''s", "  - a: b'", "- c"), ["it's - a: b", "c"]),
    ("escaped quotes do not close it", doc("a: \"say \\\"hi\\\" and \\\\", "  b: c\""), {"a": 'say "hi" and \\ b: c'}),
    ("flow list over lines", doc("a:", "  [", "    \"Read\",", "    Write,", "  ]"), {"a": ["Read", "Write"]}),
    # (ClawHub's metadata block, 267 real skills refused: a line in brackets not yet closed reads as a key)
    ("flow mapping over lines like keys", doc("a:", "  {", '    "b": { "c": 1 },', "    d: [x,", "      y]",
                                              "  }", "e: 2"), {"a": {"b": {"c": 1}, "d": ["x", "y"]}, "e": 2}),
    ("flow mapping from its key's line", doc("a: {", '    "b": 1', "  }"), {"a": {"b": 1}}),
    # (an empty line in brackets parts entries, as YAML's separation: it was read into the next one)
    ("flow over an empty line", doc("a: [x,", "", "  y, p", "", "  q]", "b: {", "", '  "k": 1}', "c: [", "", "]"),
     {"a": ["x", "y", "p\nq"], "b": {"k": 1}, "c": []}),
    # (a double-quoted value's line ended by a backslash: an escaped line break, as PyYAML's dump wraps
    # long text; it was read as a space, and an empty line after it was an unknown escape)
    ("escaped line breaks", doc('a: "x\\', '  y \\', '  z"', 'b: "x\\', "", '  y"', 'c: "x\\\\', '  y"', "d: x\\",
                                "  y"), {"a": "xy z", "b": "x\ny", "c": "x\\ y", "d": "x\\ y"}),
    # (an escaped space or tab ending a line is kept, then the line break folds: it was read as an
    # escaped line break, "Fix \\ " then "the bug" becoming "Fix the bug")
    ("escaped blank ending a line", doc('a: "Fix \\ ', '  the bug"', 'b: "x\\\t', '  y"', 'c: "p', '  x\\ ', '  y"'),
     {"a": "Fix   the bug", "b": "x\t y", "c": "p x  y"}),
    # (what the bracket count and the escaped line break hold: brackets nested over lines, a backslash in
    # single quotes, a line after the escaped one, an empty line before the closing bracket, a comment sign
    # in a quoted value over lines; pinned by a mutation check)
    ("brackets over lines, more cases", doc("a: [[x,", "  y]", "]", "b: 'x\\", "  y'", 'c: "x\\', "  y", '  z"',
                                            "d: [x", "", "  ]", 'e: "x', "  y # c", '  z"'),
     {"a": [["x", "y"]], "b": "x\\ y", "c": "xy z", "d": ["x"], "e": "x y # c z"}),
    # (the closing bracket at the key's column, as PyYAML, js-yaml and the yaml package all take it)
    ("flow closed at its key's column", doc("tools: [", "  Read,", "  Write", "]", "m: {", '  "a": 1', "}"),
     {"tools": ["Read", "Write"], "m": {"a": 1}}),
    # (YAML allows a top mapping at any column: five real skills' front matter was refused)
    ("indented top keys", doc("  a: 1", "  b:", "    - x"), {"a": 1, "b": ["x"]}),
    ("list in a list on one line", doc("- - a", "  - b", "- c"), [["a", "b"], "c"]),
    ("three lists deep on one line", doc("- - - a", "    - b"), [[["a", "b"]]]),
    ("mapping in a list in a list", doc("- - a: 1", "    b: 2"), [[{"a": 1, "b": 2}]]),
    ("empty values", doc("a:", "b:", "c: 1"), {"a": None, "b": None, "c": 1}),
    ("empty items", doc("-", "- ", "- x"), [None, None, "x"]),
    ("a list at the top", doc("- a", "- b"), ["a", "b"]),
    ("mapping deeper than two spaces", doc("a:", "     b: 1", "     c: 2"), {"a": {"b": 1, "c": 2}}),
    # flow collections on one line
    ("flow list", "a: [1, two, \"three, 3\", 'four']", {"a": [1, "two", "three, 3", "four"]}),
    ("flow mapping", "a: {x: 1, 'y': two, \"z\": [3]}", {"a": {"x": 1, "y": "two", "z": [3]}}),
    ("nested flow", "a: [x, [y, {z: [1, {}]}], []]", {"a": ["x", ["y", {"z": [1, {}]}], []]}),
    ("empty flow", "a: []\nb: {}", {"a": [], "b": {}}),
    ("flow trailing comma", "a: [1, 2,]\nb: {x: 1,}", {"a": [1, 2], "b": {"x": 1}}),
    ("flow without spaces", "a: [x,y]\nb: {c: d,e: f}", {"a": ["x", "y"], "b": {"c": "d", "e": "f"}}),
    ("flow plain with inner colons", "a: [http://x.example/a, 12:30]\nb: {url: http://x.example}",
     {"a": ["http://x.example/a", "12:30"], "b": {"url": "http://x.example"}}),
    ("flow plain with spaces", "a: [two words, x]", {"a": ["two words", "x"]}),
    ("flow key is its text", "a: {1: one, true: yes, null: x, 1.0: y}",
     {"a": {"1": "one", "true": "yes", "null": "x", "1.0": "y"}}),
    ("flow key quoted with a space before the colon", "a: {'b' : 1, \"c\":2}", {"a": {"b": 1, "c": 2}}),
    ("flow in a list item", doc("- [1, 2]", "- {a: b}"), [[1, 2], {"a": "b"}]),
    # scalars
    ("plain text", "a: some text, with - punctuation!", {"a": "some text, with - punctuation!"}),
    ("plain with inner colon and hash", "a: x:y#z https://x.example/p#frag", {"a": "x:y#z https://x.example/p#frag"}),
    ("plain ending in a bracket", "a: x]", {"a": "x]"}),
    ("plain starting with a colon", "a: :x", {"a": ":x"}),
    ("plain with a tab inside", "a: x\ty", {"a": "x\ty"}),
    ("double quoted escapes", r'a: "tab\t nl\n quote\" back\\ slash\/ x\x41 u\u00e9 U\U0001F600 nul\0"',
     {"a": "tab\t nl\n quote\" back\\ slash/ xA u\u00e9 U\U0001F600 nul\0"}),
    ("double quoted YAML escapes", r'a: "\e\a\b\f\v\r\N\_\L\P\ \	"',
     {"a": "\x1b\x07\b\f\x0b\r\x85\xa0\u2028\u2029 \t"}),
    ("JSON-style surrogate pair", r'a: "\ud83d\ude00 \uD83D\uDE00"', {"a": "\U0001F600 \U0001F600"}),
    ("plain starting with a question mark", "a: ?x\n?y: 1", {"a": "?x", "?y": 1}),
    ("double quoted keeps #", 'a: "x # not a comment"', {"a": "x # not a comment"}),
    ("single quoted doubled quote", "a: 'it''s ''quoted'''", {"a": "it's 'quoted'"}),
    ("single quoted backslash is literal", r"a: 'c:\new'", {"a": "c:\\new"}),
    ("empty quoted", "a: ''\nb: \"\"", {"a": "", "b": ""}),
    ("quoted special words stay text", "a: 'true'\nb: \"null\"\nc: '12'\nd: '- x'",
     {"a": "true", "b": "null", "c": "12", "d": "- x"}),
    ("booleans", "a: true\nb: True\nc: TRUE\nd: false\ne: False\nf: FALSE\ng: tRUE",
     {"a": True, "b": True, "c": True, "d": False, "e": False, "f": False, "g": "tRUE"}),
    ("nulls", "a: null\nb: Null\nc: NULL\nd: ~\ne:\nf: nULL", {"a": None, "b": None, "c": None, "d": None,
                                                              "e": None, "f": "nULL"}),
    ("YAML 1.2: yes, no, on, off are text", "a: yes\nb: no\nc: on\nd: off\ne: y\nf: n\ng: Yes",
     {"a": "yes", "b": "no", "c": "on", "d": "off", "e": "y", "f": "n", "g": "Yes"}),
    ("YAML 1.2: sexagesimal is text", "a: 12:30\nb: 1:2:3", {"a": "12:30", "b": "1:2:3"}),
    # (no hexadecimal or octal number: six real skills named 0x... were refused)
    ("0x and 0o words are text", "a: 0xarchive\nb: 0x0-messenger\nc: 0oops\nd: 0x\ne: 0XRaini",
     {"a": "0xarchive", "b": "0x0-messenger", "c": "0oops", "d": "0x", "e": "0XRaini"}),
    ("integers", "a: 0\nb: -7\nc: +3\nd: 1234567890123456789012345\ne: 017",
     {"a": 0, "b": -7, "c": 3, "d": 1234567890123456789012345, "e": 17}),
    ("decimals", "a: 1.5\nb: -0.25\nc: .5\nd: 5.\ne: +2.0\nf: 1e3\ng: 2.5E-3\nh: -1.5e+2",
     {"a": 1.5, "b": -0.25, "c": 0.5, "d": 5.0, "e": 2.0, "f": 1000.0, "g": 0.0025, "h": -150.0}),
    ("not numbers", "a: 1_000\nb: 1.2.3\nc: 1e\nd: .\ne: +\nf: 1,5\ng: \u0661\u0662",
     {"a": "1_000", "b": "1.2.3", "c": "1e", "d": ".", "e": "+", "f": "1,5", "g": "\u0661\u0662"}),
    # keys
    ("keys with spaces", "a key: 1\nother  key  : 2", {"a key": 1, "other  key": 2}),
    ("keys as written", "1: a\ntrue: b\nnull: c\n~: d", {"1": "a", "true": "b", "null": "c", "~": "d"}),
    ("quoted keys", "\"a b\": 1\n'it''s': 2\n\"x\": 3", {"a b": 1, "it's": 2, "x": 3}),
    ("key with a hash", "a#b: 1", {"a#b": 1}),
    ("key with a colon", "a:b: 1\nhttp://x: 2", {"a:b": 1, "http://x": 2}),
    ("key followed by a tab", "a\t: 1\nb:\t2", {"a": 1, "b": 2}),
    ("unicode", "名前: 値\nclé: é ✓ 😀\n\"ключ\": 'значение'", {"名前": "値", "clé": "é ✓ 😀", "ключ": "значение"}),
    # comments
    ("comments", doc("# top", "a: 1 # after a value", "  # indented, own line", "b:  # after a key",
                     "  - x # after an item", "# between", "  - 'y' # after a quote",
                     "c: [1, 2] # after a bracket", "d: x#not a comment", "e: x\t# after a tab", "# end"),
     {"a": 1, "b": ["x", "y"], "c": [1, 2], "d": "x#not a comment", "e": "x"}),
    ("comment after a dash", doc("- # nothing here", "- # c: d"), [None, None]),
    # (a tab after the dash separates as a space does: `-<tab>Read` was the text "-\tRead -\tWrite")
    ("tab after a dash", doc("tools:", "  -\tRead", "  - \tWrite", "  - \t1"), {"tools": ["Read", "Write", 1]}),
    # (a dash and a tab with nothing after them: an empty item, as a dash alone is; an IndexError ended the start)
    ("empty item after a tab", doc("a:", "  -\t", "  - \t", "  -"), {"a": [None, None, None]}),
    ("comment ends the key part", doc("- a # note: x"), ["a"]),
    ("blank lines anywhere", "\n\na: 1\n\n\nb:\n\n  - x\n\n", {"a": 1, "b": ["x"]}),
    # line ends
    ("CRLF", "a: 1\r\nb:\r\n  - x\r\n  - 'y'\r\nc: |\r\n  one\r\n  two\r\n",
     {"a": 1, "b": ["x", "y"], "c": "one\ntwo\n"}),
    ("no final newline", "a: 1\nb: x", {"a": 1, "b": "x"}),
    # empty documents
    ("empty", "", None),
    ("only comments and blank lines", "# a\n\n   \n  # b\n", None),
]

BLOCK_TEXT = [
    ("literal", doc("a: |", "  one", "", "  three", "    indented", "b: 1"), "one\n\nthree\n  indented\n"),
    ("literal strip", doc("a: |-", "  one", "  two", "", "", "b: 1"), "one\ntwo"),
    ("literal keep", doc("a: |+", "  one", "  two", "", "", "b: 1"), "one\ntwo\n\n\n"),
    ("literal clip drops trailing blank lines", doc("a: |", "  one", "", ""), "one\n"),
    ("literal keeps a '#' line", doc("a: |", "  # not a comment", "  x"), "# not a comment\nx\n"),
    ("literal with a comment on its marker", doc("a: | # note", "  x"), "x\n"),
    ("literal keeps spaces beyond the indentation", doc("a: |", "  x", "     ", "  y"), "x\n   \ny\n"),
    ("literal leading blank lines", doc("a: |", "", "  x"), "\nx\n"),
    ("literal ended by a comment at the key's column", doc("a: |", "  x", "# c", "b: 1"), "x\n"),
    ("literal ended by the text's end without a newline", "a: |\n  x", "x\n"),
    ("empty literal", doc("a: |", "b: 1"), ""),
    ("empty literal keep", doc("a: |+", "b: 1"), ""),
    ("folded", doc("a: >", "  one", "  two", "", "  three", "b: 1"), "one two\nthree\n"),
    ("folded strip", doc("a: >-", "  one", "  two", "", ""), "one two"),
    ("folded keep", doc("a: >+", "  one", "", ""), "one\n\n\n"),
    ("folded keep of empty lines alone", doc("a: >+", "", "", "b: 1"), "\n\n"),
    ("folded several blank lines", doc("a: >", "  one", "", "", "  two"), "one\n\ntwo\n"),
    ("folded leading blank line", doc("a: >", "", "  one"), "\none\n"),
    ("folded keeps more indented lines", doc("a: >", "  one", "    code", "  two"), "one\n  code\ntwo\n"),
    ("folded blank lines around more indented lines", doc("a: >", "  one", "", "    code", "", "  two"),
     "one\n\n  code\n\ntwo\n"),
]


@pytest.mark.parametrize("text, expected", [case[1:] for case in BEHAVIOUR], ids=[case[0] for case in BEHAVIOUR])
def test_reads_the_subset(text, expected):
    assert value_of(text) == expected


@pytest.mark.parametrize("text, expected", [case[1:] for case in BLOCK_TEXT], ids=[case[0] for case in BLOCK_TEXT])
def test_block_text(text, expected):
    assert value_of(text)["a"] == expected


def test_block_text_in_list_items_and_under_item_keys():
    text = doc("- |", "  one", "- >-", "  two", "  three", "- key: |", "    four", "  other: x")
    assert value_of(text) == ["one\n", "two three", {"key": "four\n", "other": "x"}]


def test_values_have_exact_types():
    value = value_of(doc("i: 1", "f: 1.0", "t: true", "n: null", "s: '1'", "l: []", "m: {}"))
    assert [type(v) for v in value.values()] == [int, float, bool, type(None), str, list, dict]


def test_lines_map_each_key_and_item_to_its_line():
    text = doc("# front matter", "name: review", "arguments:", "  - name: pr", "", "    required: true",
               "  - name: focus", "tags: [a, b]", "nested:", "  deep:", "    - - x", "      - y", "text: |",
               "  body", "last: 1")
    value, lines = load(text)
    assert value["nested"] == {"deep": [["x", "y"]]}
    assert lines == {
        ("name",): 2, ("arguments",): 3, ("arguments", 0): 4, ("arguments", 0, "name"): 4,
        ("arguments", 0, "required"): 6, ("arguments", 1): 7, ("arguments", 1, "name"): 7, ("tags",): 8,
        ("nested",): 9, ("nested", "deep"): 10, ("nested", "deep", 0): 11, ("nested", "deep", 0, 0): 11,
        ("nested", "deep", 0, 1): 12, ("text",): 13, ("last",): 15}


def test_lines_count_crlf_lines_and_leading_blank_lines():
    assert load("\r\n\r\na: 1\r\nb:\r\n- x\r\n")[1] == {("a",): 3, ("b",): 4, ("b", 0): 5}


def test_an_empty_document_has_no_lines():
    assert load("") == (None, {})
    assert load("# only a comment") == (None, {})


# --- outside the subset: exact errors -------------------------------------------------------------

ERRORS = json.loads((Path(__file__).parent / "data" / "yaml_errors.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", ERRORS, ids=[c["name"] for c in ERRORS])
def test_out_of_subset_text_is_an_exact_error(case):
    with pytest.raises(YamlError) as info:
        load(case["text"])
    assert (info.value.line, info.value.column, info.value.message) == (
        case["line"], case["column"], case["message"])
    assert str(info.value) == "%d:%d: %s" % (case["line"], case["column"], case["message"])


def test_error_catalogue_names_are_unique_and_every_construct_is_covered():
    names = [c["name"] for c in ERRORS]
    assert len(names) == len(set(names))
    messages = " ".join(c["message"] for c in ERRORS)
    for construct in ("tags", "anchors", "aliases", "merge keys", "directives", "a second document",
                      "complex keys", "a tab in the indentation", "given twice", "does not end on its line",
                      "does not close on its line", "text after the closing", "an unknown escape",
                      "indentation that fits no", "a list item where a key was expected", "hexadecimal",
                      "infinity and NaN"):
        assert construct in messages


def test_yaml_error_is_a_value_error_and_a_tinymcp_error():
    from tinymcp.errors import TinyMCPError
    with pytest.raises(ValueError):
        load("a: *b")
    assert issubclass(YamlError, TinyMCPError)


@pytest.mark.parametrize("text, line, column", [
    ("a: " + "[" * 100000, 1, 3 + 100),
    ("a: " + "{b: " * 100000, 1, 3 + 4 * 99 + 1),
    ("- " * 100000 + "x", 1, 2 * 100 + 1),
    ("".join(" " * i + "k:\n" for i in range(101)), 101, 101),
    ("".join(" " * i + "- k:\n" for i in range(0, 200, 2)), 51, 101),
    ("".join(" " * i + "k:\n" for i in range(60)) + " " * 60 + "k: " + "[" * 40 + "]" * 40, 61, 63 + 40),
], ids=["flow lists", "flow mappings", "items on one line", "keys", "item mappings", "keys then flow"])
def test_nesting_deeper_than_the_limit_is_an_error_not_a_recursion_error(text, line, column):
    with pytest.raises(YamlError) as info:
        load(text)
    assert (info.value.line, info.value.column, info.value.message) == (
        line, column, "lists and mappings nested more than 100 deep")


def test_nesting_up_to_the_limit_reads():
    value = value_of("a: " + "[" * 99 + "]" * 99)["a"]
    for _ in range(98):
        value = value[0]
    assert value == []
    items = value_of("- " * 100 + "x")
    for _ in range(100):
        items = items[0]
    assert items == "x"
    keys = value_of("".join(" " * i + "k:\n" for i in range(99)) + " " * 99 + "k: 1")
    for _ in range(100):
        keys = keys["k"]
    assert keys == 1
    mixed = value_of("".join(" " * i + "k:\n" for i in range(60)) + " " * 60 + "k: " + "[" * 39 + "]" * 39)
    for _ in range(61):
        mixed = mixed["k"]
    for _ in range(38):
        mixed = mixed[0]
    assert mixed == []


@pytest.mark.parametrize("text, message", [
    ("a: " + "9" * 5000, "a number of more than 100 digits (quote it to keep it as text)"),
    ("a: -" + "9" * 50 + "." + "9" * 51, "a number of more than 100 digits (quote it to keep it as text)"),
    ("a: -1.0e999", "a number too large for a decimal (quote it to keep it as text)"),
], ids=["5000 digits (past CPython's int limit)", "101 digits with a dot", "overflow to infinity"])
def test_numbers_out_of_range_are_errors(text, message):
    with pytest.raises(YamlError) as info:
        load(text)
    assert (info.value.line, info.value.column, info.value.message) == (1, 4, message)


def test_numbers_up_to_the_limit_read():
    assert value_of("a: " + "9" * 100)["a"] == int("9" * 100)
    assert value_of("a: 1.7976931348623157e308")["a"] == 1.7976931348623157e308
    assert value_of("a: 1e-999")["a"] == 0.0


# --- fuzzing ------------------------------------------------------------------------------------

# Fixed seeds, so that a CI run is repeatable; TINYMCP_FUZZ_SEED=random (or a number)
# runs another one, TINYMCP_FUZZ_COUNT another number of cases.
SEEDS = [20261123, 3141592653]

SEED_DOCUMENTS = [
    PROMPT_FILE,
    doc("title: 'It''s a title'", "icons:", "- src: https://x.example/i.png", "  sizes: [16x16, 32x32]",
        "# comment", "argument-hint: \"[pr] [priority]\"", "model: sonnet"),
    doc("description: |", "  Line one", "", "  Line three", "notes: >-", "  folded", "  text", "", "  para",
        "keep: |+", "  kept", "", "after: 1"),
    doc("allowed-tools: [Bash(git add:*), Read]", "meta: {a: 1, b: [x, y], c: \"q\"}", "num: -12.5", "n: ~",
        "yes: no", "time: 12:30"),
    doc("a:", "  b:", "    c:", "      - - x", "        - y", "      - z: 1", "        w: 2", "  d: e # trailing"),
    doc("k y: \"esc \\t \\u00e9 \\\" \\\\\"", "unicode: héllo wörld ✓", "empty:", "list:", "- ", "- ''", "- \"\""),
]
ALPHABET = list("ab :-#'\"[]{},|>\t\r\n&*!%?@`~.019\\xé✓😀") + [
    "  ", ": ", "- ", " #", "\n  ", "\n- ", "---", "<<: ", "? ", "|-\n", ">\n  ", "\r\n", "\\u00", "''"]


def seed_from_env(default):
    value = os.environ.get("TINYMCP_FUZZ_SEED")
    if value == "random":
        return random.SystemRandom().randrange(2 ** 32)
    return int(value) if value else default


def mutate(rnd, text):
    """``text`` with one to four random edits: characters inserted, deleted or replaced,
    lines duplicated, swapped or re-indented."""
    for _ in range(rnd.randrange(1, 5)):
        kind, at = rnd.randrange(6), rnd.randrange(len(text) + 1)
        lines = text.split("\n")
        row = rnd.randrange(len(lines))
        if kind == 0:
            text = text[:at] + rnd.choice(ALPHABET) + text[at:]
        elif kind == 1:
            text = text[:at] + text[at + rnd.randrange(1, 4):]
        elif kind == 2:
            text = text[:at] + rnd.choice(ALPHABET) + text[at + 1:]
        elif kind == 3:
            lines.insert(row, lines[row])
            text = "\n".join(lines)
        elif kind == 4:
            lines[row] = rnd.choice(["", " ", "  ", "   ", "    ", "\t", " \t"]) + lines[row].lstrip(" ")
            text = "\n".join(lines)
        else:
            other = rnd.randrange(len(lines))
            lines[row], lines[other] = lines[other], lines[row]
            text = "\n".join(lines)
    return text


def is_plain_data(value):
    if value is None or type(value) in (str, int, float, bool):
        return type(value) is not float or value - value == 0  # (no inf, no nan)
    if type(value) is list:
        return all(is_plain_data(item) for item in value)
    if type(value) is dict:
        return all(type(k) is str and is_plain_data(v) for k, v in value.items())
    return False


def check_reads_or_fails_cleanly(text):
    """'value' or 'error'; asserts the invariants either way."""
    rows = text.split("\n")
    try:
        value, lines = load(text)
    except YamlError as exc:
        assert 1 <= exc.line <= len(rows) + 1, (exc, text)
        assert 1 <= exc.column <= len(rows[exc.line - 1]) + 1, (exc, text)
        assert str(exc) == "%d:%d: %s" % (exc.line, exc.column, exc.message)
        return "error"
    assert value is None or type(value) in (dict, list), text
    assert is_plain_data(value), text
    assert type(lines) is dict
    for path, line in lines.items():
        assert 1 <= line <= len(rows), (path, line, text)
        node = value
        for part in path:
            assert type(node) is (list if type(part) is int else dict), (path, text)
            node = node[part]  # (raises if the path names nothing)
    return "value"


@pytest.mark.slow  # (run by default too: only a ``-m "not slow"`` leaves it out)
@pytest.mark.parametrize("default_seed", SEEDS)
def test_mutated_front_matter_reads_or_is_a_yaml_error(default_seed):
    seed = seed_from_env(default_seed)
    rnd = random.Random(seed)
    outcomes = {"value": 0, "error": 0}
    for _ in range(int(os.environ.get("TINYMCP_FUZZ_COUNT", "4000"))):
        base = rnd.choice(SEED_DOCUMENTS) if rnd.random() < 0.7 else document_text(rnd, random_document(rnd))
        text = mutate(rnd, base)
        try:
            outcomes[check_reads_or_fails_cleanly(text)] += 1
        except Exception as exc:  # (an assertion, or a crash of the reader)
            raise AssertionError("seed %d (rerun with TINYMCP_FUZZ_SEED=%d): %r on %r"
                                 % (seed, seed, exc, text)) from exc
    assert outcomes["value"] and outcomes["error"]  # (both sides exercised)


def test_the_fuzz_checker_can_fail():
    assert not is_plain_data({"a": float("inf")})
    assert not is_plain_data({1: "a"})
    assert not is_plain_data({"a": ("tuple",)})
    assert check_reads_or_fails_cleanly(SEED_DOCUMENTS[0]) == "value"
    assert check_reads_or_fails_cleanly("a: *b") == "error"


# Generated documents: random data written out in the subset's many spellings must read
# back as exactly that data.

SAFE_WORDS = ["review", "two words", "x-y", "under_score", "é ✓", "名前", "a.b", "v1.2.3", "12:30", "yes",
              "Off", "1_000", "x:y", "a#b", "-x", "?x", "http://x.example/p", "tRUE", "nULL", "1e"]
FLOW_SAFE_WORDS = [w for w in SAFE_WORDS if ":" not in w and "#" not in w and w[0] != "?"]
ODD_STRINGS = ["", " lead", "trail ", "- x", "a: b", "x #c", "[x]", "{x}", "'", '"', "\\", "tab\tin", "null",
               "true", "12", "1.5", "~", "*a", "&a", "!t", "%p", "@x", "`x`", "|", ">", "#", "\u2028", "😀", "é"]
SCALARS = [None, True, False, 0, -7, 42, 10 ** 30, 1.5, -0.25, 1e-05, 2.5e+20]


def random_value(rnd, depth):
    kind = rnd.randrange(10 if depth < 4 else 6)
    if kind < 2:
        return rnd.choice(SCALARS)
    if kind < 4:
        return rnd.choice(SAFE_WORDS + ODD_STRINGS)
    if kind < 6:
        return "\n".join(rnd.choice(["line", "two words", "", "  more", "# x", "k: v"])
                         for _ in range(rnd.randrange(1, 4))) + rnd.choice(["", "\n", "\n\n"])
    if kind < 8:
        return [random_value(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    keys = rnd.sample(SAFE_WORDS + ODD_STRINGS, rnd.randrange(4))
    return {key: random_value(rnd, depth + 1) for key in keys}


def random_document(rnd):
    keys = rnd.sample(SAFE_WORDS + ODD_STRINGS, rnd.randrange(1, 6))
    return normalised({key: random_value(rnd, 1) for key in keys})


def quoted(rnd, text):
    if rnd.random() < 0.5 and "\t" not in text and "\u2028" not in text:
        return "'%s'" % text.replace("'", "''")
    return json.dumps(text, ensure_ascii=rnd.random() < 0.5)  # (JSON strings are YAML escapes)


def scalar_text(rnd, value, flow):
    if value is None:
        return rnd.choice(["null", "~", "Null"])
    if type(value) is bool:
        return rnd.choice([str(value).lower(), str(value), str(value).upper()])
    if type(value) in (int, float):
        return repr(value)
    if value in (FLOW_SAFE_WORDS if flow else SAFE_WORDS) and rnd.random() < 0.7:
        return value
    return quoted(rnd, value)


def flowable(value):
    if type(value) is list:
        return all(flowable(v) for v in value)
    if type(value) is dict:
        return all(flowable(v) for v in value.values())
    return type(value) is not str or "\n" not in value


def flow_text(rnd, value):
    gap = rnd.choice(["", " "])
    if type(value) is list:
        return "[" + ("," + gap).join(flow_text(rnd, v) for v in value) + rnd.choice(["", ","] if value else [""]) + "]"
    if type(value) is dict:
        return "{" + ("," + gap).join("%s: %s" % (scalar_text(rnd, k, True), flow_text(rnd, v))
                                      for k, v in value.items()) + "}"
    return scalar_text(rnd, value, True)


def block_lines(rnd, value, indent):
    """``[(line, is_text)]`` of a non-empty list or mapping at column ``indent``
    (``is_text``: a line of block text, where no comment or blank line may go)."""
    pad, out = " " * indent, []
    entries = [("- ", None, v) for v in value] if type(value) is list else [
        ("%s:" % scalar_text(rnd, k, False), k, v) for k, v in value.items()]
    for head, key, item in entries:
        sep = "" if key is None else " "
        if type(item) in (list, dict) and item and (not flowable(item) or rnd.random() < 0.6):
            under = indent + (0 if key is not None and type(item) is list and rnd.random() < 0.5 else 2)
            inner = block_lines(rnd, item, under)
            if key is None:  # (the item's first line goes on the dash's line)
                out.append((pad + "- " + inner[0][0][under:], False))
                out += inner[1:]
            else:
                out += [(pad + head, False)] + inner
        elif type(item) is str and literal_ok(item):
            body = item.rstrip("\n")
            chomp = "-" if not item.endswith("\n") else ("" if body + "\n" == item else "+")
            out.append((pad + head + sep + "|" + chomp, False))
            out += [((pad + "  " + line) if line else "", True) for line in body.split("\n")]
            out += [("", True)] * (len(item) - len(body) - 1)
        else:
            text = flow_text(rnd, item) if type(item) in (list, dict) else scalar_text(
                rnd, item.replace("\n", " ") if type(item) is str else item, False)
            comment = rnd.choice(["", "", " # note", "\t# tab note"])
            out.append((pad + head + sep + text + comment, False))
    return out


def document_text(rnd, value):
    lines = []
    for line, is_text in block_lines(rnd, value, 0):
        if not is_text and rnd.random() < 0.15 and not (lines and lines[-1][1]):
            lines.append((rnd.choice(["", "# comment", "   "]), False))
        lines.append((line, is_text))
    return rnd.choice(["\n", "\r\n"]).join(line for line, _ in lines) + "\n"


@pytest.mark.parametrize("default_seed", SEEDS)
def test_generated_documents_read_back_exactly(default_seed):
    seed = seed_from_env(default_seed)
    rnd = random.Random(seed)
    for _ in range(int(os.environ.get("TINYMCP_FUZZ_COUNT", "4000")) // 4):
        value = random_document(rnd)
        text = document_text(rnd, value)
        try:
            got = value_of(text)
        except YamlError as exc:
            raise AssertionError("seed %d: %s in %r" % (seed, exc, text)) from exc
        assert got == value and same_types(got, value), "seed %d: %r read as %r" % (seed, text, got)


def literal_ok(text):
    """Whether ``|`` block text can carry ``text``: several lines, and a first line with
    text that does not start with a space (which would need an indentation indicator)."""
    return "\n" in text and bool(text.strip()) and not text.lstrip("\n").startswith(" ")


def normalised(value):
    """``value`` with the multi-line strings block text cannot carry on one line, as
    ``block_lines`` writes them."""
    if type(value) is list:
        return [normalised(v) for v in value]
    if type(value) is dict:
        return {k: normalised(v) for k, v in value.items()}
    if type(value) is str and "\n" in value and not literal_ok(value):
        return value.replace("\n", " ")
    return value


def same_types(a, b):
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return all(same_types(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return all(same_types(a[k], b[k]) for k in a)
    return True


# --- cost: never super-linear -----------------------------------------------------------------

def cost(text):
    """How many lines of yamlish.py run while reading ``text`` (a count, not a time)."""
    count = [0]

    def local(frame, event, arg):
        if event == "line":
            count[0] += 1
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename == yamlish.__file__ else None

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        load(text)
    except YamlError:
        pass
    finally:
        sys.settrace(previous)
    return count[0]


PATHOLOGICAL = {
    "long flow list": lambda n: "a: [" + "1, " * n + "1]",
    "long flow mapping": lambda n: "a: {" + ", ".join("k%d: v" % i for i in range(n)) + "}",
    "flow lists deep inside each other": lambda n: "a: " + "[" * n + "]" * n,
    "flow list 99 deep and long": lambda n: "a: " + "[" * 98 + "1, " * n + "1" + "]" * 98,
    "a line of [[[[": lambda n: "a: " + "[" * n,
    "a line of {a: {a: {a:": lambda n: "a: " + "{a: " * n,
    "long unclosed flow mapping": lambda n: "a: {" + "k: v, " * n,
    "long flow mapping over lines": lambda n: "a: {\n" + "  k: v,\n" * n + "  }",
    "long unclosed flow mapping over lines": lambda n: "a: {\n" + "  k: v,\n" * n + "b: 1",
    "a line of - - - -": lambda n: "- " * n + "x",
    "many lines of - - - -": lambda n: "- - - x\n" * n,
    "many lines 98 items deep": lambda n: ("- " * 98 + "x\n") * (n // 50),
    "keys ever more indented": lambda n: "".join(" " * i + "k:\n" for i in range(n // 20)),
    "long list of mappings": lambda n: "arguments:\n" + "  - name: x\n    required: true\n" * n,
    "many keys": lambda n: "".join("k%d: v\n" % i for i in range(n)),
    "many keys, the last a duplicate": lambda n: "".join("k%d: v\n" % i for i in range(n)) + "k0: v\n",
    "a deep key then many keys": lambda n: "".join(" " * i + "k%d:\n" % i for i in range(60)) + "".join(
        "b%d: 1\n" % i for i in range(n)),
    "long double-quoted": lambda n: 'a: "' + "x\\n" * n + '"',
    "long single-quoted": lambda n: "a: '" + "''" * n + "'",
    "long unclosed quote": lambda n: 'a: "' + "x" * n,
    "long unclosed quoted item": lambda n: '- "' + "x" * n,
    "long quoted value over lines like keys": lambda n: 'a: "x\n' + '  k: "v\\"\n' * n + '  "',
    "long block text": lambda n: "a: |\n" + "  line\n" * n,
    "long folded text": lambda n: "a: >\n" + "  line\n\n    more\n" * n,
    "many comment lines": lambda n: "# comment\n" * n + "a: 1",
    "many blank lines": lambda n: "a: 1\n" + "\n" * n + "b: 2",
    "long plain with ': ' at the end": lambda n: "a: " + "x" * n + ": y",
    "long plain of colons": lambda n: "a: " + "x:" * n + "x",
    "long plain of hashes": lambda n: "a: " + "x#" * n,
    "long item of colons": lambda n: "- " + "x:" * n,
    "long key": lambda n: "k" * n + ": v",
    "long indentation": lambda n: "a:\n" + " " * n + "b: 1",
    "long digits": lambda n: "a: " + "9" * n,
    "long run of spaces in flow": lambda n: "a: [" + " " * n + "1]",
    "long sequence at its key's column": lambda n: "a:\n" + "- x\n" * n + "b: 1",
}


@pytest.mark.parametrize("make", list(PATHOLOGICAL.values()), ids=list(PATHOLOGICAL))
def test_cost_grows_at_most_linearly(make):
    small, large = cost(make(500)), cost(make(2000))
    assert small > 0
    assert large < 6 * small, (small, large)


def test_the_cost_measure_sees_a_quadratic_reader():
    # the measure itself can fail: a reader that rescans its input for each item
    # (here: load called on every prefix) grows far faster than 6x
    def quadratic(n):
        text = "a: [" + "1, " * n + "1]"
        return sum(cost(text[:i] + "]") for i in range(4, len(text), max(1, len(text) // n)))
    assert quadratic(40) > 10 * quadratic(10)



@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"), reason="no interval timers here")
@pytest.mark.parametrize("make", [
    lambda n: 'a: "' + "\\t" * n + '"',
    lambda n: 'a: "' + "\\x41" * n + '"',
    lambda n: 'a: "' + "\\u00e9" * n + '"',
    lambda n: '"' + "\\t" * n + '": 1',
], ids=["tabs", "hex", "unicode", "key"])
def test_escapes_are_read_in_linear_time(make):
    # each escape once looked for the closing quote again, over the rest of the value (in C,
    # so the line count above cannot see it): 1 MiB of them took 5 to 12 s, 4 MiB ~3 minutes
    text = make(1 << 20)
    with bounded(20):
        value, _ = load(text)
    assert len(value) == 1

