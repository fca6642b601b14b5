"""The JSON codec for installs without ``json`` against ``json`` itself: the same values,
the same bytes, the same errors at the same positions, in time linear in the input."""

import importlib
import json
import random
import sys

import pytest

from conftest import PACKAGE, bounded

jsonlite = importlib.import_module(PACKAGE + ".jsonlite")
codec = importlib.import_module(PACKAGE + ".codec")


def lite(text, hook=None):
    return jsonlite.decode(text, codec._parse_int, codec._reject_constant, hook)


def full(text, hook=None):
    return json.JSONDecoder(parse_constant=codec._reject_constant, parse_int=codec._parse_int,
                            object_hook=hook).decode(text)


def outcome(decode, text):
    """The value, or what the error says and where."""
    try:
        return "ok", decode(text)
    except ValueError as exc:
        return "error", getattr(exc, "msg", str(exc)), getattr(exc, "pos", None)


STRINGS = ["", "plain", "é", "日本", "😀", "\ud800", "\udfff x", "\u2028\u2029", "\x00\x1f\x7f", '"\\/',
           "\b\f\n\r\t", "tab\there", "a" * 50]
VALUES = [None, True, False, 0, -0, 1, -17, 10 ** 30, 0.1, -0.0, 1e100, 5e-324, 1.5e-7, 123456789.0,
          [], {}, [[], {}], {"": ""}, {"k": [1, {"x": None}]}] + STRINGS


def random_value(rng, depth=0):
    kind = rng.randrange(8 if depth < 4 else 5)
    if kind == 0:
        return rng.choice(STRINGS) + rng.choice(STRINGS)
    if kind == 1:
        return rng.randrange(-10 ** 12, 10 ** 12)
    if kind == 2:
        return rng.uniform(-1e6, 1e6) * 10 ** rng.randrange(-30, 30)
    if kind == 3:
        return rng.choice([None, True, False])
    if kind == 4:
        return "".join(chr(rng.randrange(0x110000)) for _ in range(rng.randrange(6)))
    if kind in (5, 6):
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(STRINGS) + str(i): random_value(rng, depth + 1) for i in range(rng.randrange(4))}


def test_values_are_written_as_json_writes_them():
    rng = random.Random(7)
    for value in VALUES + [random_value(rng) for _ in range(500)]:
        assert jsonlite.encode(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    for key in (1, -2.5, True, None):
        assert jsonlite.encode({key: 1}) == json.dumps({key: 1}, separators=(",", ":"))
    for string in STRINGS:
        assert jsonlite.quote(string) == json.dumps(string)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), [float("-inf")], {1j: 1}, object()])
def test_what_json_cannot_hold_is_refused_alike(bad):
    with pytest.raises((ValueError, TypeError)) as mine:
        jsonlite.encode(bad)
    with pytest.raises(type(mine.value)):
        json.dumps(bad, allow_nan=False)


def test_texts_are_read_as_json_reads_them():
    rng = random.Random(11)
    texts = [json.dumps(v) for v in VALUES] + [json.dumps(random_value(rng), indent=rng.choice([None, 1, "\t"]))
                                               for _ in range(500)]
    texts += ['"\\ud83d\\ude00"', '"\\ud83d"', '"\\ud83dx"', '"\\ud83d\\u0041"', '"\\udc00\\ud800"',
              '"\\u00E9\\/"', " \t\r\n[ 1 , { \"a\" : [ ] } ] \n", "-0", "-0.0", "1E+2", "1e-2", "0.5E3"]
    for text in texts:
        assert outcome(lite, text) == outcome(full, text), text
        value = lite(text)
        assert type(value) is type(full(text))


BAD = ['"\\u12', '"\\ud83d\\', '"\\ud83d\\u', "", " ", "{", "[", "]", "}", "[1,]", "[1 2]", '{"a" 1}', '{"a":1,}', '{"a":1 "b":2}', "{1: 2}",
       "{'a': 1}", '"abc', '"a\\', '"a\\x"', '"\\u12"', '"\\u12G4"', '"a\nb"', '"a\x01"', "[1] x",
       "tru", "nul", "01", "1.", ".5", "-", "+1", "1e", "--1", "NaN", "Infinity", "-Infinity", "[NaN]",
       "1" * 301, "-" + "1" * 301, "[" * 5 + "]" * 4, '{"a":}', '{"a":1,"b"}', "[,1]", "\ufeff[]", "[1]\x00",
       # (an escape ending the text, the string unclosed: json calls the escape invalid, found by fuzzing)
       '"\\u0041', '["a","\\ud800\\udc00', '"\\udc00']


@pytest.mark.parametrize("text", BAD)
def test_mistakes_are_refused_with_jsons_message_at_its_position(text):
    if sys.implementation.name != "cpython":  # (PyPy's json words some errors its own way)
        assert outcome(lite, text)[0] == outcome(full, text)[0] == "error"
        return
    assert outcome(lite, text) == outcome(full, text)


def test_each_object_goes_through_the_hook_as_json_does():
    seen_lite, seen_full = [], []
    text = '{"a": {"b": [{"c": 1}, {}]}, "d": {}}'
    assert lite(text, lambda o: seen_lite.append(dict(o)) or o) == full(text, lambda o: seen_full.append(dict(o)) or o)
    assert seen_lite == seen_full


def test_nesting_past_the_recursion_limit_is_a_recursion_error_as_in_json():
    for decode in (lite, full):
        with pytest.raises(RecursionError):
            decode("[" * 100000 + "]" * 100000)


@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"), reason="no interval timers here")
@pytest.mark.parametrize("make", [
    lambda n: '"' + "\\n" * (n // 2) + '"',
    lambda n: '"' + "\\u00e9" * (n // 6) + '"',
    lambda n: "[" + "1," * (n // 2) + "1]",
    lambda n: "[" + '"x",' * (n // 4) + '"x"]',
    lambda n: "{" + ",".join('"k%d":%d' % (i, i) for i in range(n // 14)) + "}",
    lambda n: '"' + "x" * n,
    lambda n: "[" + " " * n + "1]",
], ids=["escapes", "unicode escapes", "numbers", "strings", "keys", "unterminated", "blanks"])
def test_a_large_text_is_read_in_linear_time(make):
    text = make(2 << 20)
    with bounded(30):  # (a failure guard: many times what 2 MiB takes; no time is asserted)
        assert outcome(lite, text) == outcome(full, text)


def test_the_duplicate_scan_makes_a_path_only_for_a_key_given_twice():
    # (it made one for every object and list, each as long as the key above: a 2 MB key
    # over 600,000 lists took 105 s)
    text = '{"z": "\\\\:", "' + "k" * 1000000 + '": [' + "{}," * 300000 + '{"a": 1, "a": 2}]}'
    with bounded(5):
        found = jsonlite.duplicates(text)
    assert found == [("k" * 1000000 + "[300000].a", text.rindex('"a": 2'), text.rindex('"a": 1'))]
