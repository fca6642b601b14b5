"""Errors: a ConfigError's text, and bounded echoes of client input in error messages."""

from tinymcp import ConfigError


def test_config_error_str_has_one_line_per_problem():
    err = ConfigError([("a", "x"), ("b.c", "y")])
    assert str(err) == "a: x\nb.c: y"


def test_get_error_message_echo_is_bounded(wire):
    wire.initialize()
    message = wire.get("x" * 10000)["error"]["message"]
    assert len(message) < 200
