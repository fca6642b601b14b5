"""JSON-RPC over newline-delimited UTF-8: framing (LineBuffer), decoding, encoding, reading deep lines."""

import json

import pytest

from conftest import PING, Wire, limited_config
from tinymcp.errors import ParseError
from tinymcp.jsonrpc import LineBuffer, TooLong, decode, encode
from tinymcp.limits import Limits


class Buf(LineBuffer):
    """A LineBuffer whose limit stays the same (the session passes the one in force)."""

    def __init__(self, max_line=1 << 20):
        super().__init__()
        self.max_line = max_line

    def feed(self, data):
        return super().feed(data, self.max_line)

    def close(self):
        return super().close(self.max_line)


def test_lines_split_on_newline_only():
    buf = Buf()
    # \r inside, \x0b, \x1c and U+2028 are not line breaks for the wire
    data = b'{"a":"x\\u2028"}\x0b\n{"b":"\xe2\x80\xa8"}\n'
    assert buf.feed(data) == [b'{"a":"x\\u2028"}\x0b', b'{"b":"\xe2\x80\xa8"}']


def test_trailing_carriage_return_is_stripped():
    assert Buf().feed(b"abc\r\ndef\n") == [b"abc", b"def"]


def test_blank_lines_are_skipped():
    assert Buf().feed(b"\n\r\n  \nx\n\n") == [b"x"]


def test_partial_line_is_kept_until_its_newline():
    buf = Buf()
    assert buf.feed(b'{"a"') == []
    assert buf.feed(b":1") == []
    assert buf.feed(b"}\n{") == [b'{"a":1}']
    assert buf.feed(b"}\n") == [b"{}"]


def test_final_unterminated_line_is_served_at_eof():
    buf = Buf()
    assert buf.feed(b"one\ntwo") == [b"one"]
    assert buf.close() == [b"two"]
    assert buf.close() == []


def test_overlong_line_reported_once_and_skipped_without_buffering():
    buf = Buf(max_line=10)
    assert buf.feed(b"x" * 8) == []
    assert buf.feed(b"x" * 8) == [TooLong(buf.max_line)]
    assert len(buf._partial) == 0
    assert buf.feed(b"y" * 100) == []
    assert buf.feed(b"zz\nok\n") == [b"ok"]


def test_overlong_line_within_one_chunk():
    buf = Buf(max_line=4)
    assert buf.feed(b"12345\n1234\n") == [TooLong(4), b"1234"]


def test_line_at_the_limit_is_accepted():
    buf = Buf(max_line=4)
    assert buf.feed(b"1234") == []
    assert buf.feed(b"\n") == [b"1234"]


def test_overlong_final_line_at_eof_is_not_served():
    buf = Buf(max_line=4)
    assert buf.feed(b"123456789") == [TooLong(buf.max_line)]
    assert buf.close() == []


def test_decode_rejects_invalid_utf8():
    with pytest.raises(ParseError, match="invalid UTF-8 at byte 7"):
        decode(b'{"a":"x\xff"}')


def test_decode_rejects_nan_and_infinity():
    for literal in (b"NaN", b"Infinity", b"-Infinity"):
        with pytest.raises(ParseError):
            decode(b'{"a":' + literal + b"}")


def test_decode_does_not_sniff_utf16():
    with pytest.raises(ParseError):
        decode('{"a":1}'.encode("utf-16"))


def test_decode_deep_nesting_is_a_parse_error_not_a_crash():
    with pytest.raises(ParseError):
        decode(b"[" * 100000 + b"]" * 100000)


def test_decode_error_does_not_echo_input():
    with pytest.raises(ParseError) as info:
        decode(b'{"secret-looking-input": ')
    assert "secret" not in info.value.message


def test_encode_is_compact_ascii_and_one_line():
    line = encode({"a": "caf\u00e9\n", "b": [1, 2]})
    assert line == b'{"a":"caf\\u00e9\\n","b":[1,2]}\n'
    assert json.loads(line) == {"a": "caf\u00e9\n", "b": [1, 2]}


def test_encode_escapes_lone_surrogates():
    assert encode("\ud800") == b'"\\ud800"\n'


def test_replies_are_compact_single_lines(wire):
    out = wire.session.receive_data(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    assert out == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'


def test_integer_literals_are_bounded_the_same_on_every_python(wire):
    [reply] = wire.raw(b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"ping"}\n')
    assert reply["error"] == {"code": -32700, "message": "Parse error: integer literal longer than 300 digits"}


# --- reading a line nested deeper than max_depth: its top level only ------------------------

@pytest.mark.parametrize("levels", [990, 1000, 5000, 40000])
def test_deep_request_answer_does_not_depend_on_the_recursion_limit(levels):
    # Around and past the interpreter's recursion limit the answer is the same: the id is
    # read from the top level, the nesting refused (CPython and PyPy parsers give up at
    # different depths; the server never asks them to).
    wire = Wire(limited_config(max_line_values=10 ** 6))  # (this is about depth alone)
    line = b'{"jsonrpc":"2.0","id":7,"method":"ping","params":' + b'{"a":' * levels + b"1" + \
        b"}" * levels + b"}"
    replies = wire.raw(line + b"\n" + json.dumps(PING).encode() + b"\n")
    assert replies[0]["id"] == 7 and replies[0]["error"]["code"] == -32600
    assert "max_depth" in replies[0]["error"]["message"]
    assert replies[1]["id"] == "next"


@pytest.mark.parametrize("line", [
    b'{"jsonrpc":"2.0","id":7,"method":"ping","params":' + b"[" * 100 + b"]" * 99 + b"}",
    b'{"jsonrpc":"2.0","id":7,"method":"ping","params":' + b"[" * 100 + b"]" * 101 + b"}",
    b'{"jsonrpc":"2.0","id":7,"method":"ping","params":' + b"[" * 100 + b"]" * 100,
    b'{"jsonrpc":"2.0","id":7 "method":"ping","params":' + b"[" * 100 + b"]" * 100 + b"}",
    # a pair of the wrong kinds deep inside, where no pass of the scan meets it
    b'{"jsonrpc":"2.0","id":7,"method":"ping","params":' + b"[" * 100 + b"{" + b"[" * 50 + b"]" * 51
    + b"]" * 100 + b"}",
])
def test_deep_line_that_is_not_json_is_a_parse_error(line):
    wire = Wire(limited_config())
    replies = wire.raw(line + b"\n" + json.dumps(PING).encode() + b"\n")
    assert replies[0]["id"] is None and replies[0]["error"]["code"] == -32700
    assert replies[1]["id"] == "next"


@pytest.mark.parametrize("tail", [b"", b"\\"])
def test_unterminated_string_of_escaped_quotes_in_a_deep_line_is_answered(tail):
    # The nesting scan must stay linear here: a quadratic one took minutes on 80 KB,
    # and this line is 2 MB (the test would hang, not fail an assertion on time).
    wire = Wire(limited_config())
    line = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":' + b"[" * 70 + b'"' + b'\\"' * 10 ** 6 + tail
    replies = wire.raw(line + b"\n" + json.dumps(PING).encode() + b"\n")
    assert replies[0]["id"] is None and replies[0]["error"]["code"] == -32700
    assert replies[1]["id"] == "next"


DEEP = b"[" * 70 + b"]" * 70


@pytest.mark.parametrize("line, rid, code", [
    (b'{"jsonrpc":"2.0","id":[1],"method":"ping","params":{"x":' + DEEP + b"}}", None, -32600),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping","params":{"x":' + DEEP + b"}}", None, -32600),
    (b'{"jsonrpc":"2.0","params":{"x":' + DEEP + b"}}", None, -32600),  # no id, no method
    (b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":' + b"[" * 70 + b"}" * 70 + b"}}", None, -32700),
    (b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":' + DEEP[:-1] + b'"\xff"]}}', None, -32700),
])
def test_deep_lines_read_like_shallow_ones_at_the_top_level(line, rid, code):
    # a container id is no id (never 0 or anything else made up); brackets that do not
    # pair and invalid UTF-8 are parse errors, deep or not
    wire = Wire(limited_config())
    replies = wire.raw(line + b"\n" + json.dumps(PING).encode() + b"\n")
    assert replies[0]["id"] == rid and replies[0]["error"]["code"] == code, replies[0]
    assert replies[1]["id"] == "next"


# --- the codec without the private accelerator -------------------------------------------

SAMPLES = [{"a": [1, -2.5, "\u00e9\n\ud800\x00", None, True, {"": {}}]}, [], "x", 10 ** 30, 1e300]


def test_encoder_falls_back_to_the_json_module_when_the_c_encoder_is_missing_or_broken():
    from tinymcp import jsonrpc

    def broken(*args):
        raise TypeError("a future signature")

    def wrong(*args):
        return lambda value, level: ["{}"]

    expected = [json.dumps(v, ensure_ascii=True, separators=(",", ":"), allow_nan=False) for v in SAMPLES]
    for make_encoder in (None, broken, wrong, jsonrpc._c_make_encoder):
        dumps = jsonrpc._make_dumps(make_encoder)
        assert [dumps(v) for v in SAMPLES] == expected
        with pytest.raises(ValueError):
            dumps(float("nan"))
        with pytest.raises(TypeError, match="not JSON serializable"):
            dumps({"a": object()})


def test_scanner_falls_back_to_the_json_module_when_the_c_scanner_is_missing_or_broken(monkeypatch):
    from tinymcp import jsonrpc

    def broken(context):
        raise TypeError("a future signature")

    good = [json.dumps(v) for v in SAMPLES] + ['{"a":"NaN or -Infinity","b":[1e400]}']
    bad = [b'{"a":', b'"abc', b'{"a":NaN}', b'[1,]', b'{} x', b'"\\x"', b'1' * 4001]
    expected_errors = []
    for line in bad:
        with pytest.raises(ParseError) as info:
            decode(line)
        expected_errors.append(info.value.message)
    assert expected_errors[0] == "Parse error: Expecting value: line 1 column 6 (char 5)"
    for make_scanner in (None, broken, lambda context: (lambda text, index: ({}, 2))):
        monkeypatch.setattr(jsonrpc, "_scan_once", jsonrpc._make_scan_once(make_scanner))
        assert jsonrpc._scan_once is None
        assert [decode(line.encode()) for line in good] == [json.loads(line) for line in good]
        errors = []
        for line in bad:
            with pytest.raises(ParseError) as info:
                decode(line)
            errors.append(info.value.message)
        assert errors == expected_errors


def test_without_the_c_scanner_nan_and_infinity_in_strings_take_the_fast_decoder(monkeypatch):
    # (PyPy: the checking decoder, with hooks, is several times slower than json.loads;
    # only a NaN or an infinity in the value sends the text there)
    from tinymcp import jsonrpc
    monkeypatch.setattr(jsonrpc, "_scan_once", None)

    class Refuses:
        def decode(self, text):
            raise AssertionError("the checking decoder ran for %s" % text)

    standard = list(jsonrpc._json_module())
    standard[0] = Refuses()
    monkeypatch.setattr(jsonrpc, "_standard", standard)
    assert jsonrpc.loads('{"a":"NaN","b":["-Infinity"]}') == {"a": "NaN", "b": ["-Infinity"]}
    with pytest.raises(AssertionError, match="checking decoder"):
        jsonrpc.loads('{"a":"NaN","b":[Infinity]}')


def test_an_encoded_result_is_spliced_into_the_same_bytes_as_encoding_it_whole():
    from tinymcp.jsonrpc import Encoded, encode, encode_response, response
    for rid in (1, "x\u00e9\ud800", 10 ** 20):
        for result in ({}, {"prompts": [{"name": "\u2028"}], "nextCursor": "a"}, {"k": [1.5, None]}):
            whole = encode(response(rid, result))
            assert encode_response(rid, result) == whole
            assert encode_response(rid, Encoded(encode(result)[:-1])) == whole


# --- the depth scan's cost: C-speed steps, so a line's Python work does not grow with it ---------

def _python_steps(fn, *args):
    """Lines of tinymcp/jsonrpc.py that ``fn(*args)`` executes (a deterministic cost)."""
    import sys
    from tinymcp import jsonrpc
    counted = [0]
    target = jsonrpc.__file__

    def trace(frame, event, arg):
        if frame.f_code.co_filename != target:
            return None
        if event == "line":
            counted[0] += 1
        return trace
    sys.settrace(trace)
    try:
        fn(*args)
    except ParseError:
        pass
    finally:
        sys.settrace(None)
    return counted[0]


@pytest.mark.parametrize("shape", [
    lambda n: b'{"id":1,"p":' + b"[" * n + b"]" * n + b"}",                  # one deep chain
    lambda n: b'{"id":1,"p":[' + b"[]" * n + b"]}",                          # a long flat list
    lambda n: b'{"id":1,"p":[' + b'"a",' * n + b"[" * 99 + b"]" * 99 + b"]}",  # strings, then deep
    lambda n: b'{"id":1,"p":[' + b"{}" * n + b"[}]}",                        # brackets that do not pair
    lambda n: b'{"id":1,"p":[' + (b"[" * 20 + b"]" * 20) * (n // 20) + b"]}",  # teeth, 20 deep
], ids=["chain", "flat", "strings", "unpaired", "teeth"])
def test_the_depth_scan_takes_the_same_python_steps_at_any_size(shape):
    from tinymcp.jsonrpc import read_line
    limits = Limits(max_line_values=10 ** 9)  # (the depth scan alone)
    small = _python_steps(read_line, shape(10000), limits, False)
    large = _python_steps(read_line, shape(1000000), limits, False)
    assert large <= small + 50, (small, large)


@pytest.mark.parametrize("shape", [
    lambda n: b'{"id":1,"p":[' + b"0," * n + b"0]}",                              # a long flat list
    lambda n: b'{"id":1,"p":[' + b'"a",' * n + b"0]}",                            # strings
    lambda n: b'{"id":1,"p":' + b"[" * n + b"]" * n + b"}",                      # one deep chain
    lambda n: b'{"id":1,"p":[' + (b"[" * 10 + b"]" * 10 + b",") * (n // 10) + b"0]}",  # teeth
    lambda n: b'{"id":1,"p":' + b'{"a":' * n + b"1" + b"}" * n + b"}",          # a tower
    lambda n: b'{"id":1,"p":[' + b'"\\\"",' * n + b"0]}",                       # escapes
], ids=["flat", "strings", "chain", "teeth", "tower", "escapes"])
def test_a_line_with_too_many_values_is_refused_in_the_same_python_steps_at_any_size(shape):
    # (counted at C speed before anything is decoded: what a line costs stays bounded)
    from tinymcp.jsonrpc import Refused, read_line
    limits = Limits(max_line_values=1000)
    small, large = shape(2000), shape(2000000)
    for line in (small, large):
        refused = read_line(line, limits, False)
        assert type(refused) is Refused and refused.reason == \
            "more than 1000 values and keys in one message (max_line_values)"
    assert _python_steps(read_line, large, limits, False) <= \
        _python_steps(read_line, small, limits, False) + 50


_DEEP = b'{"a":' * 200 + b"1" + b"}" * 200


@pytest.mark.parametrize("line", [
    b'{"jsonrpc":"2.0","id":7,"method":"ping","params":' + _DEEP + b"}",
    b' {"jsonrpc":"2.0","id":"a","params":' + _DEEP + b',"method":"x"}',
    b'{"method":"ping","params":' + _DEEP + b',"jsonrpc":"2.0","id":7}',  # (the TypeScript SDK's order)
    b'{"jsonrpc":"2.0","method":"ping","params":' + _DEEP + b',"id":7,"id":8}',
    b'{"method":"ping","params":' + _DEEP + b', "x" : "a\\\\", "y":"}]\\"{[", "jsonrpc":"2.0","id":"q\\"}"} ',
    b'{"x":' + _DEEP + b',"method":"ping","params":' + _DEEP + b',"id":-3}',
    b'{"jsonrpc":"2.0","id":5,"result":' + _DEEP + b"}",  # (responses and notifications:
    b'{"jsonrpc":"2.0","method":"notifications/x","params":' + _DEEP + b"}",  # never answered)
    b'{"params":' + _DEEP + b',"jsonrpc":"2.0","method":"notifications/x"}',
], ids=["id-first", "id-before-params", "id-last", "ids-last", "strings-after", "two-nested", "response",
        "notification", "notification-method-last"])
def test_a_deep_line_with_too_many_tokens_to_flatten_is_answered_as_its_flattened_top_level_is(line,
                                                                                                monkeypatch):
    # (its members before its first nested value and after its last are read: where
    # clients write the id, before params or after it)
    from tinymcp import jsonrpc
    flattened = Wire(limited_config()).raw(line + b"\n")
    monkeypatch.setattr(jsonrpc, "MAX_FLATTEN_TOKENS", 100)
    assert jsonrpc.read_line(line, Limits(), False).flat is not None
    assert Wire(limited_config()).raw(line + b"\n") == flattened
    assert [reply["error"]["code"] for reply in flattened] == (
        [] if b"result" in line or b"notifications/" in line else [-32600])


def test_a_deep_line_read_at_one_end_only_is_answered_with_id_null_unless_that_end_holds_the_id(monkeypatch):
    # (a notification is only concluded from both ends: the id may be in the end not read)
    from tinymcp import jsonrpc
    monkeypatch.setattr(jsonrpc, "MAX_FLATTEN_TOKENS", 100)
    many = b",".join(b'"k%d":0' % i for i in range(100))  # (more than HEAD_TOKENS strings)
    for line, rid in ((b'{"method":"ping",' + many + b',"params":' + _DEEP + b',"id":7}', 7),
                      (b'{"method":"notifications/x",' + many + b',"params":' + _DEEP + b"}", None),
                      (b'{"id":7,"method":"ping","params":' + _DEEP + b"," + many + b"}", 7)):
        replies = Wire(limited_config()).raw(line + b"\n")
        assert [(r["id"], r["error"]["code"]) for r in replies] == [(rid, -32600)]


@pytest.mark.parametrize("tail, rid", [
    (lambda n: b'"x":"' + b"\\\"" * n + b'","id":7', 7),  # escaped quotes: past the walk's bound
    (lambda n: b'"x":"' + b"\\" * (2 * n) + b'\\"","id":7', 7),  # a quote after a long run of backslashes
    (lambda n: b'"x":"' + b"}" * n + b'","id":7', 7),  # closers within a string
], ids=["escaped-quotes", "backslashes", "closers"])
def test_reading_the_end_of_a_refused_line_takes_the_same_python_steps_at_any_size(tail, rid, monkeypatch):
    from tinymcp import jsonrpc
    monkeypatch.setattr(jsonrpc, "MAX_FLATTEN_TOKENS", 100)
    limits = Limits()

    def line(n):
        return b'{"jsonrpc":"2.0","method":"ping","params":' + _DEEP + b"," + tail(n) + b"}"
    assert jsonrpc.read_line(line(10), limits, False).flat["id"] == rid
    # (past the bound on quotes looked at, the id is not read: answered with id null)
    assert (jsonrpc.read_line(line(1000000), limits, False).flat or {}).get("id") in (rid, None)
    assert _python_steps(jsonrpc.read_line, line(1000000), limits, False) <= \
        _python_steps(jsonrpc.read_line, line(1000), limits, False) + 50


@pytest.mark.parametrize("order", ["python", "typescript"])
def test_a_line_over_max_line_values_with_too_many_strings_to_flatten_echoes_its_id(order):
    # (50,001 empty strings and their keys: past the strings the flattening walks; the id
    # written before params, or after it as the TypeScript SDK writes a request)
    arguments = b",".join(b'"k%d":""' % i for i in range(50001))
    params = b'"params":{"name":"p","arguments":{' + arguments + b"}}"
    line = (b'{"jsonrpc":"2.0","id":7,"method":"prompts/get",' + params + b"}" if order == "python"
            else b'{"method":"prompts/get",' + params + b',"jsonrpc":"2.0","id":7}')
    wire = Wire(limited_config())
    wire.initialize()
    reply = wire.raw(line + b"\n")[0]
    assert reply == {"jsonrpc": "2.0", "id": 7, "error": {"code": -32600, "message": (
        "Invalid Request: more than 100000 values and keys in one message (max_line_values)")}}


def test_a_notification_over_max_line_values_with_too_many_strings_to_flatten_is_not_answered():
    # (found by the 2025-03-26 audit: it was answered with id null; JSON-RPC 2.0 section 4.1)
    strings = b",".join([b'"a"'] * 100001)
    wire = Wire(limited_config())
    wire.initialize()
    for line in (b'{"jsonrpc":"2.0","method":"notifications/cancelled",'
                 b'"params":{"requestId":"zz","_meta":{"x":[' + strings + b"]}}}", b'{"jsonrpc":"2.0","result":{"x":[' + strings + b']},"id":"resp"}'):
        assert wire.raw(line + b"\n") == []
    assert wire.request("ping")["result"] == {}


@pytest.mark.parametrize("line, depth", [
    (b'[{"a":[]}]', 3),
    (b'{"a":[{"a":[{"a":[]}]}]}', 6),
    (b'[' + b'{"a":[' * 40 + b']}' * 40 + b']', 81),
])
def test_mixed_brackets_are_measured_one_level_a_pass(line, depth):
    # (taking off the [] pairs made {} pairs that the same pass took off too: lines nested
    # up to twice the limit passed)
    from tinymcp.jsonrpc import Refused, read_line
    assert type(read_line(line, Limits(max_depth=depth - 1), False)) is Refused
    assert type(read_line(line, Limits(max_depth=depth), False)) is not Refused


@pytest.mark.parametrize("shape, head", [
    (lambda n: b'{"id":1,"x":' + b"[ " * n + b"] " * n + b"}", {"id": 1, "x": None}),  # runs split by spaces
    (lambda n: b'{"id":1,"x":' + b"[0," * n + b"0" + b"]" * n + b"}", {"id": 1, "x": None}),  # ... by scalars
    (lambda n: b"[" * 70 + b'\\""' + b"[]" * n + b'"' + b"]" * 70, None),  # a stray backslash
], ids=["spaces", "scalars", "stray-backslash"])
def test_flattening_walks_at_most_max_flatten_tokens_whatever_the_count_says(shape, head, monkeypatch):
    from tinymcp import jsonrpc
    monkeypatch.setattr(jsonrpc, "MAX_FLATTEN_TOKENS", 100)
    limits = Limits(max_line_values=10 ** 9)

    def read(line):
        try:
            return jsonrpc.read_line(line, limits, False)
        except ParseError as exc:
            return exc
    for n in (1000, 100000):
        result = read(shape(n))
        assert type(result) is jsonrpc.Refused
        assert result.flat == head  # (too many tokens to flatten: what comes before its first nesting)
    assert _python_steps(read, shape(100000)) <= _python_steps(read, shape(1000)) + 50


def test_the_integer_cap_counts_digits_not_the_sign():
    assert decode(b"-" + b"9" * 300) == -int("9" * 300)
    with pytest.raises(ParseError, match="longer than 300 digits"):
        decode(b"-" + b"9" * 301)


@pytest.mark.parametrize("digits", [1, 17, 298, 299, 300])
def test_integers_read_the_same_in_texts_too_short_to_hold_one_past_the_cap(digits):
    """Texts of at most 300 characters are scanned with ``int`` itself (no Python call a
    number): the same values as the checking scanner, on either side of that length."""
    number = "7" * digits
    for text in (number, "-" + number, "[%s,-%s]" % (number, number), " " * (300 - digits) + number,
                 " " * (301 - digits) + number, '{"id":%s,"x":[1,-2,0,3.5,1e3]}' % number):
        assert decode(text.encode()) == json.loads(text)
        assert [type(v) for v in _values(decode(text.encode()))] == [type(v) for v in _values(json.loads(text))]


def _values(value):
    if type(value) is list:
        return [x for item in value for x in _values(item)]
    if type(value) is dict:
        return [x for item in value.values() for x in _values(item)]
    return [value]


def test_long_digit_runs_are_found_wherever_they_start():
    """``_long_digits`` (PyPy's pre-check for integers past the cap) looks only at blocks of
    half the cap's length before its exact search: a run of 301 digits is found at any
    offset, one of 300 never, nor runs of other digits than 0-9."""
    from tinymcp.jsonrpc import _long_digits
    for run in (150, 300, 301, 450):
        for offset in list(range(0, 160)) + [299, 300, 301, 451]:
            for filler in ("x", "\u0661", " 1"):
                text = (filler * offset)[:offset] + "x" + "7" * run + "]" + filler * 400
                assert _long_digits(text) is (run > 300), (run, offset, filler)
    assert _long_digits("\u0661" * 1000) is False  # (Arabic-Indic digits: all digits, not 0-9)
    assert _long_digits("1" * 300 + "," + "1" * 300) is False
