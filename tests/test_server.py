"""The Server: page_size and limits overrides, validated like the config."""

import pytest

from conftest import Wire, limited_config, simple_config
from tinymcp import ConfigError, Server


def test_page_size_override_beats_config():
    wire = Wire(simple_config(10, page_size=20), page_size=3)
    wire.initialize()
    assert [len(p) for p in wire.pages()] == [3, 3, 3, 1]


def test_server_keyword_overrides_config_limits():
    wire = Wire(limited_config(max_batch=3), limits={"max_batch": 1})
    wire.initialize("2025-03-26")
    batch = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(2)]
    assert wire.send(batch)[0]["error"]["code"] == -32600


@pytest.mark.parametrize("options, expected", [
    ({"page_size": 0}, [("page_size", "expected an integer of 1 or more, got 0")]),
    ({"page_size": True}, [("page_size", "expected an integer, got true")]),
    ({"limits": {"max_depth": True}}, [("limits.max_depth", "expected an integer, got true")]),
    ({"limits": {"max_batch": -5}}, [("limits.max_batch", "expected an integer of 1 or more, got -5")]),
])
def test_server_options_are_validated_like_the_config(options, expected):
    with pytest.raises(ConfigError) as info:
        Server({"prompts": []}, **options)
    assert info.value.problems == expected
