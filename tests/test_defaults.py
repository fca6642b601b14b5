"""The default prompts: served when no config is given."""

from tinymcp import load_config
from tinymcp.defaults import DEFAULT_CONFIG


def test_default_config_is_valid():
    assert len(load_config(DEFAULT_CONFIG).prompts) >= 3
