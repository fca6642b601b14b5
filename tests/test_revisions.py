"""The revision table: which handshake revision an initialize negotiates."""

import pytest

from tinymcp.protocol.revisions import HANDSHAKE_VERSIONS as LEGACY_VERSIONS


@pytest.mark.parametrize("version", LEGACY_VERSIONS)
def test_initialize_echoes_supported_versions(wire, version):
    assert wire.initialize(version)["protocolVersion"] == version


@pytest.mark.parametrize("version", ["2026-07-28", "2099-01-01", "1.0", ""])
def test_initialize_answers_latest_for_other_versions(wire, version):
    assert wire.initialize(version)["protocolVersion"] == "2025-11-25"
