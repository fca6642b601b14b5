"""JSON-RPC over newline-delimited UTF-8: framing (LineBuffer), decoding, encoding, and the
bounds on a line's depth and values, read before it is decoded."""

import json
import sys

import pytest

from conftest import PING, Wire, limited_config
from tinymcp.codec import encode
from tinymcp.errors import ParseError
from tinymcp.model.limits import Limits
from tinymcp.protocol import jsonrpc
from tinymcp.protocol.jsonrpc import LineBuffer, Refused, decode, read_line


class Buf(LineBuffer):
    """A LineBuffer whose limit stays the same (the session passes the one in force)."""

    def __init__(self, max_line=1 << 20):
        super().__init__()
        self.max_line = max_line

    def feed(self, data):
        return [line if type(line) is bytes else ("TooLong", line.limit)
                for line in super().feed(data, self.max_line)]


def test_lines_split_on_newline_only():
    buf = Buf()
    # \r inside, \x0b, \x1c and U+2028 are not line breaks for the wire
    data = b'{"a":"x\\u2028"}\x0b\n{"b":"\xe2\x80\xa8"}\n'
    assert buf.feed(data) == [b'{"a":"x\\u2028"}\x0b', b'{"b":"\xe2\x80\xa8"}']


def test_trailing_carriage_return_is_stripped():
    assert Buf().feed(b"abc\r\ndef\n") == [b"abc", b"def"]


def test_blank_lines_come_empty():
    assert Buf().feed(b"\n\r\n  \nx\n\n") == [b"", b"", b"", b"x", b""]


def test_partial_line_is_kept_until_its_newline():
    buf = Buf()
    assert buf.feed(b'{"a"') == []
    assert buf.feed(b":1") == []
    assert buf.feed(b"}\n{") == [b'{"a":1}']
    assert buf.feed(b"}\n") == [b"{}"]


def test_final_unterminated_line_is_served_at_eof():
    buf = Buf()
    assert buf.feed(b"one\ntwo") == [b"one"]
    assert buf.feed(b"") == [b"two"]
    assert buf.feed(b"") == []


def test_overlong_line_reported_once_and_skipped_without_buffering():
    buf = Buf(max_line=10)
    assert buf.feed(b"x" * 8) == []
    assert buf.feed(b"x" * 8) == [("TooLong", 10)]
    assert len(buf.partial) == 0
    assert buf.feed(b"y" * 100) == []
    assert buf.feed(b"zz\nok\n") == [b"ok"]


def test_overlong_line_within_one_chunk():
    assert Buf(max_line=4).feed(b"12345\n1234\n") == [("TooLong", 4), b"1234"]


def test_line_at_the_limit_is_accepted():
    buf = Buf(max_line=4)
    assert buf.feed(b"1234") == []
    assert buf.feed(b"\n") == [b"1234"]


def test_overlong_final_line_at_eof_is_not_served():
    buf = Buf(max_line=4)
    assert buf.feed(b"123456789") == [("TooLong", 4)]
    assert buf.feed(b"") == []


def test_a_line_read_in_many_pieces_is_whole():
    buf = Buf()
    pieces = [b'{"a":"' + b"x" * 1000] + [b"y" * 1000] * 50 + [b'"}\n']
    out = [line for piece in pieces for line in buf.feed(piece)]
    assert out == [b"".join(pieces)[:-1]]


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
    assert reply["error"] == {"code": -32700, "message": "Parse error: integer literal longer than 300 digits",
                              "data": {"line": 1}}


def test_the_integer_cap_counts_digits_not_the_sign():
    assert decode(b"-" + b"9" * 300) == -int("9" * 300)
    with pytest.raises(ParseError, match="longer than 300 digits"):
        decode(b"-" + b"9" * 301)


# --- a line nested deeper than max_depth, or holding more than max_line_values -------------

@pytest.mark.parametrize("levels", [65, 990, 1000, 5000, 40000])
def test_a_deep_request_is_refused_the_same_at_any_depth_past_the_limit(levels):
    # Around and past the interpreter's recursion limit the answer is the same (CPython and
    # PyPy parsers give up at different depths; the server never asks them to): -32600
    # with id null, which JSON-RPC allows where the id cannot be read.
    wire = Wire(limited_config(max_line_values=10 ** 6))  # (this is about depth alone)
    line = b'{"jsonrpc":"2.0","id":7,"method":"ping","params":' + b'{"a":' * levels + b"1" + \
        b"}" * levels + b"}"
    replies = wire.raw(line + b"\n" + json.dumps(PING).encode() + b"\n")
    assert replies == [{"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": "Invalid Request: nesting deeper than 64 levels (max_depth)", "data": {"line": 1}}},
        {"jsonrpc": "2.0", "id": "next", "result": {}}]


@pytest.mark.parametrize("line", [
    b'{"jsonrpc":"2.0","id":7,"method":"ping","params":' + b"[" * 100 + b"]" * 99 + b"}",
    b'{"jsonrpc":"2.0","id":7,"method":"ping","params":' + b"[" * 100 + b"]" * 101 + b"}",
    b'{"jsonrpc":"2.0","id":7 "method":"ping","params":' + b"[" * 100 + b"]" * 100 + b"}",
    b'{"jsonrpc":"2.0","id":7,"method":"ping","params":' + b"[" * 70 + b"}" * 70 + b"}",
    b'{"jsonrpc":"2.0","id":1,"method":"ping","params":' + b"[" * 70 + b'"' + b'\\"' * 10 ** 6,
    b'{"jsonrpc":"2.0","id":1,"method":"ping","params":' + b"[" * 70 + b'"' + b'\\"' * 10 ** 6 + b"\\",
])
def test_a_deep_line_that_is_not_json_is_answered_with_id_null(line):
    # (the last two: the nesting scan stays linear on an unterminated string of escaped
    # quotes; a quadratic one took minutes on 80 KB, and this line is 2 MB)
    wire = Wire(limited_config())
    replies = wire.raw(line + b"\n" + json.dumps(PING).encode() + b"\n")
    assert replies[0]["id"] is None and replies[0]["error"]["code"] in (-32600, -32700)
    assert replies[1]["id"] == "next"


def test_brackets_inside_strings_are_no_nesting():
    wire = Wire(limited_config(max_depth=4))
    text = '[[[[[[[{{{{ \\" ]]]] \\\\'
    [reply] = wire.send({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {"x": text}}})
    assert reply["result"] == {}


def _python_steps(fn, *args):
    """Lines of protocol/jsonrpc.py that ``fn(*args)`` executes (a deterministic cost)."""
    counted = [0]

    def trace(frame, event, arg):
        if frame.f_code.co_filename != jsonrpc.__file__:
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
    lambda n: b'{"id":1,"p":[' + b'"a",' * n + b"[" * 99 + b"]" * 99 + b"]}",  # strings, then deep
    lambda n: b'{"id":1,"p":[' + b"{}" * n + b"[" * 99 + b"}" * 99 + b"]}",  # brackets that do not pair
    lambda n: b'{"id":1,"p":[' + (b"[" * 70 + b"]" * 70) * (n // 70) + b"]}",  # teeth
], ids=["chain", "strings", "unpaired", "teeth"])
def test_the_depth_scan_takes_the_same_python_steps_at_any_size(shape):
    limits = Limits(max_line_values=10 ** 9)  # (the depth scan alone)
    for line in (shape(10000), shape(1000000)):
        assert type(read_line(line, limits)) is Refused
    assert _python_steps(read_line, shape(1000000), limits) == _python_steps(read_line, shape(10000), limits)


@pytest.mark.parametrize("shape", [
    lambda n: b'{"id":1,"p":[' + b"0," * n + b"0]}",                              # a long flat list
    lambda n: b'{"id":1,"p":[' + b'"a",' * n + b"0]}",                            # strings
    lambda n: b'{"id":1,"p":' + b'{"a":' * n + b"1" + b"}" * n + b"}",          # a tower
    lambda n: b'{"id":1,"p":[' + b'"\\\"",' * n + b"0]}",                       # escapes
], ids=["flat", "strings", "tower", "escapes"])
def test_a_line_with_too_many_values_is_refused_in_the_same_python_steps_at_any_size(shape):
    # (counted at C speed before anything is decoded: what a line costs stays bounded)
    limits = Limits(max_line_values=1000, max_depth=256)
    for line in (shape(2000), shape(2000000)):
        refused = read_line(line, limits)
        assert type(refused) is Refused and refused.reason == \
            "more than 1000 values and keys in one message (max_line_values)"
    assert _python_steps(read_line, shape(2000000), limits) == _python_steps(read_line, shape(2000), limits)


def test_a_line_of_values_within_the_limit_is_served_whatever_its_strings_hold():
    wire = Wire(limited_config(max_line_values=64))
    text = ",:[{" * 1000  # (commas, colons and openers inside a string are no values)
    [reply] = wire.send({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {"x": text}}})
    assert reply["result"] == {}


# A line holds two quotes a string; one of fewer strings than max_line_values, with more separators
# inside them, is served
def test_a_line_of_fewer_strings_than_max_line_values_is_served_whatever_its_strings_hold():
    wire = Wire(limited_config(max_line_values=64))
    params = {"k%d" % i: ",:[{" * 5 for i in range(20)}
    msg = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": params}
    assert 64 < json.dumps(msg).count('"') < 2 * 64  # (45 strings; 400 separators inside them)
    assert wire.send(msg) == [{"jsonrpc": "2.0", "id": 1, "result": {}}]


# Byte 0xFF, never UTF-8, is no value separator: a line of them is a parse error, not refused for its
# values
def test_a_line_of_bytes_ff_is_a_parse_error_not_a_line_of_too_many_values():
    wire = Wire(limited_config(max_line_values=64))
    [reply] = wire.raw(b"\xff" * 100 + b"\n")
    assert reply["error"] == {"code": -32700, "message": "Parse error: invalid UTF-8 at byte 0", "data": {"line": 1}}


# A partial line past the limit and room for its \r is refused at once ("as soon as the limit is
# passed"), before its newline
def test_a_line_past_max_line_bytes_and_its_cr_is_refused_before_its_newline_comes():
    wire = Wire(limited_config(max_line_bytes=64))
    assert wire.raw(b"x" * 65) == []  # (still 64 bytes and a \r, perhaps)
    assert wire.raw(b"x") == [{"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": "Invalid Request: line longer than the 64-byte limit (max_line_bytes)",
        "data": {"line": 1}}}]
    assert wire.raw(b"xxx\n" + json.dumps(PING).encode() + b"\n") == [{"jsonrpc": "2.0", "id": "next", "result": {}}]
