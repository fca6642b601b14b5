"""Shared test helpers, and which copy of the package the suite tests.

By default the suite tests ``tinymcp/`` in this repository. With
``TINYMCP_VENDORED=DIR`` (a directory holding ``sometool/_vendor/tinymcp/``, as made by
``make_vendored_copy``) it tests that renamed copy instead: ``sometool._vendor.tinymcp``
and every one of its submodules are imported from DIR and aliased in ``sys.modules`` as
``tinymcp`` and ``tinymcp.<sub>`` before any test module imports them, so the tests'
``import tinymcp`` gets the copy. Tests that start a server process use
``server_command(*args)`` and ``server_env()``, which name the copy under test.

Shared by every test module: messages (``req``, ``modern``, ``initialize``, ``line``...),
configs (``simple_config``, ``named_config``, ``limited_config``, ``prompt``...), and the one
in-process driver, ``Wire`` (a Session fed JSON values, optionally checking what it gets
against the 2026-07-28 schema; ``modern_wire``). The process driver (``Proc``, ``run``) and
the socket client are in transport_helpers.py.
"""

import contextlib
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


#: the folders a vendoring project may delete: a copy without them serves a dict (or a JSON
#: config file) over stdio all the same
OPTIONAL = ("socket", "files")


def make_vendored_copy(dest, src=None, core_only=False):
    """Copy the package to ``dest/sometool/_vendor/tinymcp/`` (with the two parent
    ``__init__.py`` files), as a project vendoring tinymcp would, without its optional
    folders when ``core_only``; return ``dest``."""
    dest = Path(dest)
    vendor = dest / "sometool" / "_vendor"
    vendor.mkdir(parents=True, exist_ok=True)
    for init in (dest / "sometool" / "__init__.py", vendor / "__init__.py"):
        init.write_text("")
    shutil.copytree(str(src or ROOT / "tinymcp"), str(vendor / "tinymcp"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", *(OPTIONAL if core_only else ())))
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
    for info in pkgutil.walk_packages(package.__path__, VENDORED_NAME + "."):
        sys.modules["tinymcp" + info.name[len(VENDORED_NAME):]] = importlib.import_module(info.name)


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


#: the optional folders the copy under test has
PRESENT = {name for name in OPTIONAL if (PACKAGE_DIR / name).is_dir()}


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a long run (the fuzz seeds); still part of the default run")
    config.addinivalue_line("markers", "needs(*folders): the test uses these optional folders "
                                       "(skipped for a copy without them)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        for mark in item.iter_markers("needs"):
            missing = set(mark.args) - PRESENT
            if missing:
                item.add_marker(pytest.mark.skip(reason="a copy without %s/" % "/, ".join(sorted(missing))))


# --- messages ---------------------------------------------------------------------------

PROTOCOL = "2025-11-25"
MODERN = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_SUB = "io.modelcontextprotocol/subscriptionId"
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST_CHANGED = {"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"}
#: a subscriptions/listen filter asking for everything (tinymcp honours promptsListChanged only)
LISTEN = {"notifications": {"promptsListChanged": True, "toolsListChanged": True,
                            "resourceSubscriptions": ["file:///x"]}}
#: a ping to send after something else: its reply shows the next line is served
PING = {"jsonrpc": "2.0", "id": "next", "method": "ping"}


def req(rid, method, params=None):
    """A JSON-RPC request."""
    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def meta(version=MODERN, **extra):
    """The ``params._meta`` of a stateless (2026-07-28) request, plus ``extra`` keys."""
    m = {META_VERSION: version, META_CAPS: {},
         "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"}}
    m.update(extra)
    return m


def modern(rid, method, params=None):
    """A stateless request: ``params`` with the 2026-07-28 ``_meta`` keys."""
    params = dict(params or {})
    params["_meta"] = {META_VERSION: MODERN, META_CAPS: {}}
    return req(rid, method, params)


def initialize(rid=1, version=PROTOCOL):
    """An initialize request asking for ``version``."""
    return req(rid, "initialize", {"protocolVersion": version, "capabilities": {},
                                   "clientInfo": {"name": "t", "version": "0"}})


def line(msg):
    """``msg`` as one line of the wire."""
    return json.dumps(msg).encode("utf-8") + b"\n"


def one(replies):
    """The one reply in ``replies``."""
    assert len(replies) == 1, replies
    return replies[0]


# --- configs ------------------------------------------------------------------------------

def simple_config(n=3, **extra):
    """``n`` prompts p000, p001...: a required ``topic`` and a ``tone`` defaulting to plain."""
    prompts = [{
        "name": "p%03d" % i,
        "description": "prompt %d" % i,
        "arguments": [{"name": "topic", "required": True}, {"name": "tone", "default": "plain"}],
        "messages": [{"role": "user", "text": "Tell me about {topic} in a {tone} tone"}],
    } for i in range(n)]
    config = {"prompts": prompts}
    config.update(extra)
    return config


def named_config(names, text="Tell me about {topic}"):
    """One prompt per name, each with a required ``topic`` and the message ``text``."""
    return {"prompts": [{"name": n, "description": "prompt " + n,
                         "arguments": [{"name": "topic", "required": True}],
                         "messages": [{"role": "user", "text": text}]} for n in names]}


def limited_config(**limits):
    """``limits`` and one prompt ``p`` with arguments a0..a4 and ``big``, all in its text."""
    return {"limits": limits, "prompts": [{
        "name": "p", "arguments": [{"name": "a%d" % i} for i in range(5)] + [{"name": "big"}],
        "messages": [{"role": "user", "text": "{a0}{a1}{a2}{a3}{a4}{big}"}]}]}


#: the values of completion_config()'s ``word`` argument
WORDS = ["alpha", "Beta", "beta", "charlie", "Cobra", "cat", "Cab", "delta"] + ["w%03d" % i for i in range(242)]


def completion_config(**extra):
    """Prompt ``pick`` (``extra`` added) with arguments ``word`` (completions: WORDS),
    ``free`` (none) and ``smart`` (a callable), and a prompt ``other``."""
    prompt = {"name": "pick", "arguments": [
        {"name": "word", "completions": WORDS},
        {"name": "free"},
        {"name": "smart", "complete": lambda value, context: ["%s-%s" % (value, k) for k in sorted(context or {})]},
    ], "messages": [{"role": "user", "text": "{word} {free} {smart}"}]}
    prompt.update(extra)
    return {"prompts": [prompt, {"name": "other", "messages": [{"role": "user", "text": "x"}]}]}


def prompt(**fields):
    """A valid prompt ``p`` (one user message), with ``fields`` added or replaced."""
    base = {"name": "p", "messages": [{"role": "user", "text": "hi"}]}
    base.update(fields)
    return base


def problems(config):
    """The problems ``load_config(config)`` reports (it must refuse the config)."""
    from tinymcp import ConfigError, load_config
    with pytest.raises(ConfigError) as info:
        load_config(config)
    return info.value.problems


def nested(levels):
    """A ping nested ``levels`` deep (the message itself is level 1)."""
    value = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {}}}
    inner = value["params"]["_meta"]
    for _ in range(levels - 3):
        inner["x"] = {}
        inner = inner["x"]
    return value


# --- the in-process driver ----------------------------------------------------------------

class Wire:
    """Drives a sans-I/O Session with JSON values; returns the decoded replies.

    ``Wire(config, **server_options)`` serves ``config`` (default ``simple_config()``) from
    ``Server(config, **server_options)``. With ``validate``, every message received that
    answers a stateless request (one whose params carry ``_meta``, or server/discover),
    and every message without an id, is checked against the 2026-07-28 schema (when the
    spec is there); set ``wire.validate = False`` to stop.
    """

    def __init__(self, config=None, validate=False, **server_options):
        from tinymcp import Server, Session
        self.server = Server(simple_config() if config is None else config, **server_options)
        self.session = Session(self.server)
        self.validate = validate
        self.ids = 0
        self.methods = {}  # request id -> method, for the schema of its result
        self.modern_ids = set()  # ids of the stateless requests sent
        #: the bytes the session returned last
        self.output = b""

    def decode(self, out):
        """The messages in ``out`` (bytes from the session), each checked if validating."""
        assert out == b"" or out.endswith(b"\n"), out
        self.output = out
        msgs = [json.loads(x) for x in out.split(b"\n") if x]
        if self.validate:
            from schema_check import SPEC_DIR, check_server_message
            if (SPEC_DIR / MODERN / "schema.json").exists():
                for m in msgs:
                    if "id" not in m or m["id"] in self.modern_ids:
                        errors = check_server_message(MODERN, m, self.methods.get(m.get("id")))
                        assert errors == [], (m, errors)
        return msgs

    def raw(self, data):
        """Feed bytes; the replies."""
        return self.decode(self.session.receive_data(data))

    def send(self, *messages):
        """Feed JSON values, one line each; the replies."""
        for m in messages:
            if isinstance(m, dict) and isinstance(m.get("id"), (str, int)) and "method" in m:
                self.methods[m["id"]] = m["method"]
                params = m.get("params")
                if (isinstance(params, dict) and "_meta" in params) or m["method"] == "server/discover":
                    self.modern_ids.add(m["id"])
        return self.raw(b"".join(line(m) for m in messages))

    def _next_id(self, rid):
        if rid is None:
            self.ids += 1
            rid = self.ids
        return rid

    def request(self, method, params=None, rid=None):
        """Send a request; its one reply."""
        rid = self._next_id(rid)
        replies = self.send(req(rid, method, params))
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

    def get(self, name, arguments=None):
        """prompts/get ``name`` (with ``arguments`` unless None); its one reply."""
        params = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return self.request("prompts/get", params)

    def complete(self, argument, value, name="pick", context=None, ref_type="ref/prompt"):
        """completion/complete for ``argument`` of prompt ``name``; its one reply."""
        params = {"ref": {"type": ref_type, "name": name}, "argument": {"name": argument, "value": value}}
        if context is not None:
            params["context"] = {"arguments": context}
        return self.request("completion/complete", params)

    def pages(self):
        """Every page of prompts/list, followed from the first, as lists of names."""
        pages, cursor = [], None
        while True:
            result = self.result("prompts/list", {"cursor": cursor} if cursor else {})
            pages.append([p["name"] for p in result["prompts"]])
            cursor = result.get("nextCursor")
            if cursor is None:
                assert "nextCursor" not in result
                return pages

    def initialize(self, version=PROTOCOL):
        """Initialize (and send notifications/initialized); the initialize result."""
        result = self.result("initialize", initialize(version=version)["params"])
        self.send(INITIALIZED)
        return result

    def modern(self, method, params=None, rid=None, **meta_extra):
        """Send a stateless request (``params._meta`` from ``meta(**meta_extra)`` unless
        ``params`` has one); every message that came back (notifications, then the reply)."""
        rid = self._next_id(rid)
        params = dict(params or {})
        params.setdefault("_meta", meta(**meta_extra))
        return self.send(req(rid, method, params))


def modern_wire(config=None, **server_options):
    """A validating ``Wire`` for stateless requests; by default seven prompts, pages of three."""
    return Wire(simple_config(7, page_size=3) if config is None else config, validate=True,
                **server_options)


@pytest.fixture
def wire():
    return Wire(simple_config())


@pytest.fixture
def world():
    """A test's server processes, socket clients and short temp dir, cleaned up after it."""
    from transport_helpers import World
    w = World()
    yield w
    w.cleanup()


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
    from schema_check import SPEC_DIR, missing_revisions, skip_reason
    if not missing_revisions():
        return "MCP spec schemas: %s" % SPEC_DIR
    return "%s; the schema tests will be skipped" % skip_reason()


@contextlib.contextmanager
def bounded(seconds):
    """Fail the test (not hang it) when its block runs past ``seconds``: a failure guard
    for reading hostile input, far above what a linear reader takes (no time is asserted)."""
    import signal

    def expired(signum, frame):
        raise AssertionError("still reading after %g s: super-linear" % seconds)
    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
