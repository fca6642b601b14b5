"""tests/data/bad_configs.json: config files and command lines as people get them wrong,
each with the exact message it must get (the config files are in tests/data/broken_configs,
one mistake each); and paths as hosts pass them.
"""

import json
import os
import random
from pathlib import Path

import pytest

pytest.importorskip("tinymcp.files", reason="a copy without files/")

from conftest import PACKAGE
from transport_helpers import run
from tinymcp import cli, codec, preview
from tinymcp.errors import ConfigError
from tinymcp.source import parse_config

DATA_DIR = Path(__file__).parent / "data"
BROKEN = DATA_DIR / "broken_configs"
DATA = json.loads((DATA_DIR / "bad_configs.json").read_text(encoding="utf-8"))
FILES = DATA["files"]
COMMAND_LINES = DATA["command_lines"]


def problem(name, data):
    with pytest.raises(ConfigError) as caught:
        parse_config(name, data)
    return ["%s: %s" % p for p in caught.value.problems]


def test_every_broken_config_is_pinned_once():
    names = [case["file"] for case in FILES]
    assert sorted(names) == sorted(os.listdir(str(BROKEN)))
    assert len(set(names)) == len(names)


# --- config files ------------------------------------------------------------------------------

@pytest.mark.parametrize("case", FILES, ids=[c["file"] for c in FILES])
def test_a_broken_config_gets_its_exact_message(case):
    assert problem(case["file"], (BROKEN / case["file"]).read_bytes()) == [case["expect"]]


@pytest.mark.parametrize("case", FILES, ids=[c["file"] for c in FILES])
def test_check_on_a_broken_config_prints_one_actionable_line(case):
    # one config per run, as a host starts it: from the folder, by its relative name
    rc, out, err = run(["--check", "--config", case["file"]], cwd=str(BROKEN))
    assert (rc, out, err) == (1, "", "tinymcp: %s\n" % case["expect"])


ESCAPED_QUOTE = ('this string never ends: the \\ before its last " escapes that quote (write \\\\ for a '
                 'backslash, as in "C:\\\\"), or its closing " is missing')


@pytest.mark.parametrize("text, expect", [
    # Bug: what follows a value and is not a word (";", ")", "=", a sign, a no-break space)
    # was called a string without double quotes; it is a separator gone wrong
    ('{"a": 1; "b": 2}', "c.json:1:8: expected ',' or '}' after the item, found ';'"),
    ('[1, 2)', "c.json:1:6: expected ',' or ']' after the item, found ')'"),
    ('{"a": 1=2}', "c.json:1:8: expected ',' or '}' after the item, found '='"),
    ('{"a": 5\u20ac}', "c.json:1:8: expected ',' or '}' after the item, found '\u20ac'"),
    ('{"a": 1\u00a0}', "c.json:1:8: expected ',' or '}' after the item, found '\\xa0'"),
    # Bug: a value read whole before a wrong closer or a colon was called a string without quotes
    ('{"a": [{"b": true], "c": 1}', "c.json:1:18: ']' does not close the '{' opened at line 1, column 8: "
                                   "a '}' is missing before it, or it is one too many"),
    ('{"a": 5: "b": 1}', "c.json:1:8: expected ',' or '}' after the item, found ':'"),
    ('{"a": null: 1}', "c.json:1:11: expected ',' or '}' after the item, found ':'"),
    # (a path ending in \ escaped its closing quote: that was called a line break inside a string)
    ('{"a": "C:\\"\n}', 'c.json:1:10: ' + ESCAPED_QUOTE),
    ('{\n  "a": "C:\\",\n  "b": 1\n}', 'c.json:2:11: ' + ESCAPED_QUOTE),
    ('{"a": "say \\"hi\\"\n}', 'c.json:1:16: ' + ESCAPED_QUOTE),  # (or a closing quote left out)
    # (a quote inside a string ends it: that was called a missing comma)
    ('{"a": "say "hi" now"}', 'c.json:1:12: a " inside a string ends it: write \\" for each quote in its text'),
    ('{"a": ["x" "y"]}', "c.json:1:12: a comma is missing before this item"),
    # Bug: the number to write was not JSON either (a leading zero kept)
    ('{"a": 0_5}', "c.json:1:7: a number with '_' between digits, which JSON does not allow: write 5"),
    ('{"a": 030s}', 'c.json:1:7: a string without double quotes: write "030s"'),
    # a word one slip from true, false or null is text, as the decoder read it, or that
    # literal; a word further away, or several, is text only. (Review: the literal was
    # offered first, and "one" and "nonce" were taken for null, near Python's None)
    ('{"a": flase}', 'c.json:1:7: a string without double quotes: write "flase", or false if that was meant'),
    ('{"a": [nul]}', 'c.json:1:8: a string without double quotes: write "nul", or null if that was meant'),
    ('{"a": truee}', 'c.json:1:7: a string without double quotes: write "truee", or true if that was meant'),
    ('{"a": one}', 'c.json:1:7: a string without double quotes: write "one"'),
    ('{"a": nonce}', 'c.json:1:7: a string without double quotes: write "nonce"'),
    ('{"a": tree}', 'c.json:1:7: a string without double quotes: write "tree"'),
    ('{"a": tru story}', 'c.json:1:7: a string without double quotes: write "tru story"'),
    ('{"a": True}', "c.json:1:7: True is not JSON: write true"),
    ('{"prompts": [], "x": None}', "c.json:1:22: None is not JSON: write null"),
    # a comma where an array's first value should be is one too many, not one after an item
    ('{"prompts": [,]}', "c.json:1:14: an extra comma, where a value should be: remove it"),
    # the decoder reads NaN or Infinity at the start of a token and refuses it: a word is
    # named at its place, and the constant where something else follows it
    ('{"a": [1, Infinityy]}', 'c.json:1:11: a string without double quotes: write "Infinityy"'),
    ('{"a": -Infinity2}', 'c.json:1:7: a string without double quotes: write "-Infinity2"'),
    ('{"a": -Infinity}', "c.json:1:7: -Infinity is not a JSON number: write a number, or null"),
    ('{"a": NaN/2}', "c.json:1:7: NaN is not a JSON number: write a number, or null"),
    ('{"a": NaN// c\n}', "c.json:1:7: NaN is not a JSON number: write a number, or null"),
    ('{"a": 0xZZ}', "c.json:1:7: a hexadecimal number with digits other than 0-9 and a-f, which JSON "
                    'does not allow: write the number in decimal, or "0xZZ" for text'),
    ('{"a": 0xFFg}', "c.json:1:7: a hexadecimal number with digits other than 0-9 and a-f, which JSON "
                     'does not allow: write the number in decimal, or "0xFFg" for text'),
    ('{"a": 0xFF_FF}', "c.json:1:7: a hexadecimal number, which JSON does not allow: write 65535"),
    ('{"a": -0x1f}', "c.json:1:7: a hexadecimal number, which JSON does not allow: write -31"),
    ('{"prompts" []}', "c.json:1:12: expected ':' after the key, found '['"),
])
def test_a_bare_token_gets_its_exact_message(text, expect):
    assert problem("c.json", text.encode("utf-8")) == [expect]


def test_a_byte_order_mark_is_accepted():
    assert parse_config("c.json", b'\xef\xbb\xbf{"prompts": []}') == {"prompts": []}


def test_every_duplicate_key_is_named_with_its_path_and_both_lines():
    text = ('{"prompts": [\n {"name": "a", "arguments": [{"name": "x"}, {"name": "y", "name": "z"}],\n'
            '  "name": "b"}],\n "page_size": 1, "page_size": 2, "\\u0070age_size": 3}')
    assert problem("c.json", text.encode()) == [
        "c.json:2:59: duplicate key prompts[0].arguments[1].name (first at line 2, column 46): "
        "remove one of them",
        "c.json:3:3: duplicate key prompts[0].name (first at line 2, column 3): remove one of them",
        "c.json:4:18: duplicate key page_size (first at line 4, column 2): remove one of them",
        "c.json:4:34: duplicate key page_size (first at line 4, column 2): remove one of them",
    ]


def test_a_config_of_many_duplicate_keys_names_the_first_twenty_and_says_more_may_follow():
    # (each is placed by counting lines from the start: 100,000 of them took 35 s)
    text = '{"x": {' + ", ".join('"a": 1' for _ in range(100)) + "}}"
    found = problem("c.json", text.encode())
    assert len(found) == 21 and found[0] == ("c.json:1:16: duplicate key x.a (first at line 1, column 8): "
                                             "remove one of them")
    assert found[-1] == "c.json:1:168: more keys may be given twice: the first 20 are told"


@pytest.mark.parametrize("number", ["1_" + "1" * 5000, "0x" + "f" * 4000])
def test_a_number_past_what_the_decoder_reads_is_a_config_error_not_a_crash(number):
    # (its decimal form was made to be offered: past Python's 4,300 digits, int() raised ValueError
    # out of the load, in a plugin's manifest out of a prompt folder's too)
    assert problem("c.json", b'{"a": %s}' % number.encode()) == [
        'c.json:1:7: a string without double quotes: write "%s..."' % number[:80]]


def test_a_long_bare_word_is_cut_in_its_message_and_asked_for_no_near_miss():
    # (the whole word went into the message, and its near-miss match took 45 times its size:
    # a 40 MB config peaked at 1.8 GB)
    assert problem("c.json", b'{"prompts": [], "x": ' + b"a" * 10000 + b"}") == [
        'c.json:1:22: a string without double quotes: write "%s..."' % ("a" * 80)]


def test_a_syntax_error_after_a_duplicate_key_is_told_first():
    assert problem("c.json", b'{"a": 1, "a": 2, }') == [
        "c.json:1:16: a comma after the last item, which JSON does not allow: remove it"]


def test_duplicates_are_found_exactly():
    rng = random.Random(7)
    for _ in range(1000):
        text = _random_json(rng, 3)
        repeats = []
        expected = json.loads(text, object_pairs_hook=lambda p: repeats.append(len(p) - len(dict(p)))
                              or dict(p))
        try:
            got = codec.load_file(text.encode(), "c")
        except ConfigError as exc:
            assert all("duplicate key" in m for _, m in exc.problems), text
            assert len(exc.problems) == sum(repeats) > 0, text
        else:
            assert sum(repeats) == 0, text
            assert got == expected


def _random_json(rng, depth):
    """JSON text with colons in strings and keys, escaped ones, and keys given twice."""
    kind = rng.randrange(4 if depth else 2)
    if kind == 0:
        return rng.choice(['"a:b"', '"::"', '"\\u003a"', '"x"', '""', '"q\\"u:"', "3", "null",
                           '"w\\":"', '"v\\\\"', '"t\\\\\\":"'])
    if kind == 1:
        return rng.choice(["1", "2.5", '"k:v"', "true"])
    if kind == 2:
        return "[%s]" % ", ".join(_random_json(rng, depth - 1) for _ in range(rng.randrange(4)))
    keys = [rng.choice(['"a"', '"b"', '"c:d"', '"\\u003a"', '":"', '"\\u0061"', '"e\\\\"', '"f\\""'])
            for _ in range(rng.randrange(5))]
    return "{%s}" % ", ".join("%s%s%s" % (k, rng.choice([": ", " :", ":", "\n:\t"]), _random_json(rng, depth - 1))
                              for k in keys)


# --- paths as hosts pass them ------------------------------------------------------------------

def test_a_relative_config_path_says_where_it_was_looked_for(tmp_path):
    rc, out, err = run(["--check", "--config", "prompts.json"], cwd=str(tmp_path))
    assert (rc, out) == (1, "")
    cwd = os.path.realpath(str(tmp_path))
    assert err == ("tinymcp: prompts.json: cannot read: No such file or directory (looked for %s, as "
                   "the current directory is %s: write the full path)\n"
                   % (os.path.join(cwd, "prompts.json"), cwd))


def test_a_relative_path_found_but_unreadable_gives_no_advice_on_where_it_was(tmp_path):
    os.mkfifo(str(tmp_path / "fifo.json"))
    rc, out, err = run(["--check", "--config", "fifo.json"], cwd=str(tmp_path))
    assert (rc, out, err) == (1, "", "tinymcp: fifo.json: cannot read: not a regular file\n")


def test_a_path_starting_with_a_tilde_says_the_shell_did_not_expand_it(tmp_path, monkeypatch):
    env_home = str(tmp_path)
    monkeypatch.setenv("HOME", env_home)
    rc, out, err = run(["--check", "--config", "~/prompts.json"], cwd=str(tmp_path))
    assert (rc, out) == (1, "")
    assert err == ("tinymcp: ~/prompts.json: cannot read: No such file or directory (the shell did not "
                   "expand ~: write the full path, %s/prompts.json)\n" % env_home)


def test_an_absolute_path_is_named_as_given(tmp_path):
    path = str(tmp_path / "nope.json")
    rc, out, err = run(["--check", "--config", path])
    assert (rc, out, err) == (1, "", "tinymcp: %s: cannot read: No such file or directory\n" % path)


def test_a_folder_given_as_config_says_it_is_not_a_file(tmp_path):
    # (and where a folder of prompt files goes: it said only "not a regular file")
    rc, out, err = run(["--check", "--config", str(tmp_path)])
    assert (rc, out) == (1, "")
    assert err == ("tinymcp: %s: cannot read: a folder, not a config file (a folder of prompt files "
                   "is served with --prompts)\n" % tmp_path)


# --- command lines -----------------------------------------------------------------------------

@pytest.mark.parametrize("case", COMMAND_LINES, ids=[" ".join(c["argv"]) for c in COMMAND_LINES])
def test_a_bad_command_line_gets_its_exact_message_one_usage_line_and_a_pointer_to_help(
        case, capsys):
    assert cli.main(case["argv"]) == 2
    out, err = capsys.readouterr()
    prog = preview.program()
    assert out == ""
    assert err == "%s\nusage: %s [--config FILE.json] [--prompts DIR]... [OPTION]...\n" \
                  "Try '%s --help' for more information.\n" % (case["expect"], prog, prog)


def test_a_usage_error_names_the_program_as_it_was_started():
    rc, out, err = run(["--conifg=prompts.json"])
    prog = "python3 -m %s" % PACKAGE
    assert (rc, out) == (2, "")
    assert err == ("tinymcp: unknown option '--conifg' (did you mean '--config'?)\n"
                   "usage: %s [--config FILE.json] [--prompts DIR]... [OPTION]...\n"
                   "Try '%s --help' for more information.\n" % (prog, prog))


def test_a_file_a_quarter_of_it_nuls_is_taken_for_utf16():
    # (a quarter of NULs is the bound: UTF-16 text with half of it ASCII)
    assert problem("c.json", b"x\x00y\x00zzzz") == ["c.json:1:1: the file is UTF-16, not UTF-8: save it as UTF-8"]


# Exactly twenty duplicates are all told, with no "more may be given twice"
def test_a_config_of_exactly_twenty_duplicate_keys_names_them_all_and_no_more():
    text = '{"x": {' + ", ".join('"a": 1' for _ in range(21)) + "}}"
    with pytest.raises(ConfigError) as caught:
        parse_config("c.json", text.encode())
    found = ["%s: %s" % p for p in caught.value.problems]
    assert len(found) == 20 and all("duplicate key x.a" in f for f in found)
