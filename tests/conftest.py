"""Shared test helpers, and which copy of the package the suite tests.

By default the suite tests ``tinymcp/`` in this repository. With
``TINYMCP_VENDORED=DIR`` (a directory holding ``sometool/_vendor/tinymcp/``, as made by
``make_vendored_copy``) it tests that renamed copy instead: ``sometool._vendor.tinymcp``
and every one of its submodules are imported from DIR and aliased in ``sys.modules`` as
``tinymcp`` and ``tinymcp.<sub>`` before any test module imports them, so the tests'
``import tinymcp`` gets the copy. Tests that start a server process use
``server_command(*args)`` and ``server_env()``, which name the copy under test.
"""

import importlib
import json
import os
import pkgutil
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The module path a vendoring project would give its copy (see ``make_vendored_copy``).
VENDORED_NAME = "sometool._vendor.tinymcp"


def make_vendored_copy(dest, src=None):
    """Copy the package to ``dest/sometool/_vendor/tinymcp/`` (with the two parent
    ``__init__.py`` files), as a project vendoring tinymcp would; return ``dest``."""
    dest = Path(dest)
    vendor = dest / "sometool" / "_vendor"
    vendor.mkdir(parents=True, exist_ok=True)
    for init in (dest / "sometool" / "__init__.py", vendor / "__init__.py"):
        init.write_text("")
    shutil.copytree(str(src or ROOT / "tinymcp"), str(vendor / "tinymcp"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def _use_vendored_copy(root):
    """Import the copy under ``root`` and alias it and all its submodules as tinymcp.*."""
    early = sorted(m for m in sys.modules if m == "tinymcp" or m.startswith("tinymcp."))
    if early:
        raise RuntimeError("tinymcp was imported before conftest could alias the vendored "
                           "copy: %s" % ", ".join(early))
    if not (root / "sometool" / "_vendor" / "tinymcp" / "__init__.py").is_file():
        raise RuntimeError("TINYMCP_VENDORED=%s holds no sometool/_vendor/tinymcp/" % root)
    sys.path.insert(0, str(root))
    package = importlib.import_module(VENDORED_NAME)
    sys.modules["tinymcp"] = package
    for info in pkgutil.iter_modules(package.__path__):
        sys.modules["tinymcp." + info.name] = importlib.import_module(
            VENDORED_NAME + "." + info.name)


if os.environ.get("TINYMCP_VENDORED"):
    #: The importable name of the package under test, and the directory that must be on
    #: sys.path (PYTHONPATH) for that name to import.
    PACKAGE = VENDORED_NAME
    PACKAGE_PARENT = Path(os.environ["TINYMCP_VENDORED"]).resolve()
    _use_vendored_copy(PACKAGE_PARENT)
else:
    PACKAGE = "tinymcp"
    PACKAGE_PARENT = ROOT
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
VENDORED = PACKAGE != "tinymcp"
#: The directory of the package under test (its ``__init__.py`` is here).
PACKAGE_DIR = PACKAGE_PARENT.joinpath(*PACKAGE.split("."))


def server_command(*args):
    """argv that runs the package under test as a server: ``python -m PACKAGE ARGS``."""
    return [sys.executable, "-m", PACKAGE] + [str(a) for a in args]


def server_env(base=None):
    """``base`` (default: this process's environment) with the package under test first on
    PYTHONPATH, and its module name in TINYMCP_PACKAGE (for helper scripts)."""
    env = dict(os.environ if base is None else base)
    old = env.get("PYTHONPATH")
    env["PYTHONPATH"] = str(PACKAGE_PARENT) + (os.pathsep + old if old else "")
    env["TINYMCP_PACKAGE"] = PACKAGE
    return env


class Wire:
    """Drives a sans-I/O Session with JSON values; returns the decoded replies."""

    def __init__(self, config, **server_options):
        from tinymcp import Server, Session
        self.server = Server(config, **server_options)
        self.session = Session(self.server)
        self.ids = 0

    def raw(self, data):
        out = self.session.receive_data(data)
        assert out == b"" or out.endswith(b"\n")
        return [json.loads(line) for line in out.split(b"\n") if line]

    def send(self, *messages):
        data = b"".join(json.dumps(m).encode() + b"\n" for m in messages)
        return self.raw(data)

    def request(self, method, params=None, rid=None):
        if rid is None:
            self.ids += 1
            rid = self.ids
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        replies = self.send(msg)
        assert len(replies) == 1, replies
        assert replies[0]["id"] == rid
        return replies[0]

    def result(self, method, params=None):
        reply = self.request(method, params)
        assert "result" in reply, reply
        return reply["result"]

    def error(self, method, params=None):
        reply = self.request(method, params)
        assert "error" in reply, reply
        return reply["error"]

    def initialize(self, version="2025-11-25"):
        result = self.result("initialize", {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return result


def simple_config(n=3, **extra):
    prompts = [{
        "name": "p%03d" % i,
        "description": "prompt %d" % i,
        "arguments": [{"name": "topic", "required": True}, {"name": "tone", "default": "plain"}],
        "messages": [{"role": "user", "text": "Tell me about {topic} in a {tone} tone"}],
    } for i in range(n)]
    config = {"prompts": prompts}
    config.update(extra)
    return config


@pytest.fixture
def wire():
    return Wire(simple_config())


def reap(proc):
    """Kill ``proc`` if it still runs and close its pipes (a test's clean-up)."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    for f in (proc.stdin, proc.stdout, proc.stderr):
        if f is not None:
            try:
                f.close()
            except OSError:  # stdin with unflushed bytes into a dead process
                pass


def read_to_eof(fd):
    """Everything a (blocking) fd yields until its end."""
    chunks = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def pytest_report_header(config):
    """Say where the MCP spec schemas come from: without them the schema tests skip."""
    from schema_check import SPEC_DIR
    if SPEC_DIR.is_dir():
        return "MCP spec schemas: %s" % SPEC_DIR
    return ("MCP spec schemas: NOT FOUND at %s: the schema tests will be skipped "
            "(put the spec there or set TINYMCP_SPEC_DIR)" % SPEC_DIR)
