"""Minimal Python installs serve what a full one serves, with equal replies.

Two degraded interpreters, each against this one: this Python with its optional modules
made unimportable (``json`` with its C part, or its C part alone, ``difflib``,
``logging``, ``email``, ``contextvars``, ``queue``, ``resource``, ``tomllib``;
``unicodedata`` apart, as completion then compares values as given), always; and Debian's
python3-minimal, unpacked with nothing else of the standard library reachable, when
TINYMCP_MINIMAL_PYTHON names its interpreter (``scripts/test``'s ``minimal`` stage fetches
it; PYTHONHOME is the ``usr`` folder above it). Each serves one conversation over both
eras, a JSON config with non-ASCII text beside a folder of Markdown prompts, and runs
``--check`` on a good config and a bad one; stdout and stderr must be byte for byte the
full interpreter's.
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import PACKAGE, server_env
from transport_helpers import GUARD

pytest.importorskip(PACKAGE + ".files", reason="a copy without files/")
if sys.implementation.name != "cpython":  # (the installs in question are CPython's)
    pytest.skip("PyPy's own json words parse errors its own way", allow_module_level=True)

BLOCKED = ("json", "_json", "difflib", "logging", "email", "contextvars", "queue", "resource", "tomllib")
MINIMAL = os.environ.get("TINYMCP_MINIMAL_PYTHON")

CONFIG = {"server": {"name": "minimal", "version": "1"}, "prompts": [
    {"name": "grüße", "title": "Grüße 👋", "description": "Say “hello”",
     "arguments": [{"name": "wer", "description": "Wer?", "required": True,
                    "completions": ["Zoë", "Zoe", "Ärger", "e\u0301clair", "éclair"]}],
     "messages": [{"role": "user", "text": "Hallo {wer} 🌍\n\t\u2028 \\ \" \u0007"}]},
    {"name": "n", "messages": [{"role": "assistant", "content": {"type": "text", "text": "x"}}]}]}
MARKDOWN = {"review.md": "---\ndescription: Review “code”\narguments:\n  - name: code\n"
                         "    required: true\n---\nReview {{code}} — carefully\n",
            "git/fix.md": "---\nargument-hint: [issue]\n---\nFix issue $1.\n"}
MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}}
CONVERSATION = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "prompts/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "prompts/get", "params": {"name": "grüße", "arguments": {"wer": "Zoë 😀"}}},
    {"jsonrpc": "2.0", "id": "4", "method": "completion/complete", "params": {
        "ref": {"type": "ref/prompt", "name": "grüße"}, "argument": {"name": "wer", "value": "\u00e9"}}},
    {"jsonrpc": "2.0", "id": 5, "method": "prompts/get", "params": {"name": "review", "arguments": {"code": "x\u2028y"}}},
    {"jsonrpc": "2.0", "id": 6, "method": "prompts/get", "params": {"name": "git:fix", "arguments": {"arg1": "42"}}},
    {"jsonrpc": "2.0", "id": 7, "method": "prompts/get", "params": {"name": "grüße"}},
    {"jsonrpc": "2.0", "id": 8, "method": "prompts/lsit"},
    {"jsonrpc": "2.0", "id": 9, "method": "server/discover", "params": {"_meta": MODERN}},
    {"jsonrpc": "2.0", "id": 10, "method": "prompts/list", "params": {"_meta": MODERN}},
    {"jsonrpc": "2.0", "id": 11, "method": "prompts/get", "params": {"name": "n", "_meta": MODERN}},
]
RAW = [b'{"jsonrpc":"2.0","id":12,"method":"ping","params":{"x":"\\ud83d\\ude00\\ud800 \\u00e9"}}',
       b'{"jsonrpc":"2.0","id":16,"method":"ping","params":{"x":"a\x01b"}}',
       b'{"jsonrpc":"2.0","id":13,"method":"ping"', b'{"jsonrpc":"2.0","id":14,"method":"ping",}',
       b'[1, NaN]', b'{"jsonrpc":"2.0","id":1' + b"0" * 400 + b',"method":"ping"}', b"\xff\xfe",
       b'{"jsonrpc":"2.0","id":15,"method":"ping","params":{"big":1e400}}']
BAD_CONFIG = '{\n  "prompts": [\n    {"name": "a", "messages": [{"role": "user", "text": "x"}],}\n  ]\n}\n'


def blocking(*names):
    """argv that runs the server with ``names`` unimportable."""
    return [sys.executable, "-c", "import sys\nfor name in %r: sys.modules[name] = None\n"
            "from %s.cli import main\nsys.exit(main())" % (names, PACKAGE)]


def interpreters():
    yield "blocked", blocking(*BLOCKED), {}
    yield "no _json", blocking("_json", "difflib", "logging", "email"), {}  # (json's own Python scanner)
    if MINIMAL:
        home = os.path.dirname(os.path.dirname(MINIMAL))
        yield "python3-minimal", [MINIMAL, "-m", PACKAGE], {"PYTHONHOME": home}


def run(cmd, extra, args, stdin=b""):
    env = server_env()
    env.pop("PYTHONHOME", None)
    env.update(extra)
    proc = subprocess.run(cmd + args, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=env, timeout=GUARD)
    return proc.returncode, proc.stdout, proc.stderr


FULL = [sys.executable, "-m", PACKAGE]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("minimal")
    (root / "c.json").write_text(json.dumps(CONFIG, ensure_ascii=False), encoding="utf-8")
    (root / "bad.json").write_text(BAD_CONFIG, encoding="utf-8")
    for rel, text in MARKDOWN.items():
        path = root / "md" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("name, cmd, extra", list(interpreters()), ids=[i[0] for i in interpreters()])
def test_a_minimal_install_serves_both_eras_with_the_full_installs_replies(files, name, cmd, extra):
    args = ["--config", str(files / "c.json"), "--prompts", str(files / "md")]
    stdin = b"".join(json.dumps(m).encode() + b"\n" for m in CONVERSATION) + b"\n".join(RAW) + b"\n"
    full = run(FULL, {}, args, stdin)
    assert full[0] == 0 and full[1].count(b"\n") == len(CONVERSATION) - 1 + len(RAW), full
    assert run(cmd, extra, args, stdin) == full


@pytest.mark.parametrize("name, cmd, extra", list(interpreters()), ids=[i[0] for i in interpreters()])
@pytest.mark.parametrize("config", ["c.json", "bad.json"])
def test_check_says_the_same_on_a_minimal_install(files, name, cmd, extra, config):
    args = ["--check", "--config", str(files / config), "--prompts", str(files / "md")]
    full = run(FULL, {}, args)
    assert full[0] == (0 if config == "c.json" else 1), full
    assert run(cmd, extra, args) == full


def test_without_unicodedata_completion_still_answers_comparing_values_as_given(files):
    # (a split install, OpenWrt's python3-light: non-ASCII values once answered -32603)
    args = ["--config", str(files / "c.json")]
    stdin = b"".join(json.dumps(m).encode() + b"\n" for m in CONVERSATION[:2] + CONVERSATION[4:5])
    rc, out, err = run(blocking("unicodedata"), {}, args, stdin)
    reply = json.loads(out.splitlines()[-1])
    assert (rc, err) == (0, b"") and reply["result"]["completion"]["values"] == ["\u00e9clair"]
    full = json.loads(run(FULL, {}, args, stdin)[1].splitlines()[-1])
    assert full["result"]["completion"]["values"] == ["e\u0301clair", "\u00e9clair"]  # (NFC: both)


@pytest.mark.skipif(not MINIMAL, reason="TINYMCP_MINIMAL_PYTHON names no python3-minimal")
@pytest.mark.skipif(PACKAGE != "tinymcp", reason="the zipapp holds the repository's own package")
def test_the_zipapp_serves_on_python3_minimal_as_on_the_full_install(files, tmp_path):
    pyz = tmp_path / "tinymcp.pyz"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    built = subprocess.run([sys.executable, os.path.join(root, "scripts", "build-pyz"), "-o", str(pyz),
                            "--embed-config", str(files / "c.json")], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=GUARD)
    assert built.returncode == 0, built.stderr
    stdin = b"".join(json.dumps(m).encode() + b"\n" for m in CONVERSATION[:4] + CONVERSATION[8:])
    full = run([sys.executable, str(pyz)], {}, [], stdin)
    assert full[0] == 0 and b'"name":"minimal"' in full[1], full
    home = os.path.dirname(os.path.dirname(MINIMAL))
    assert run([MINIMAL, str(pyz)], {"PYTHONHOME": home, "PYTHONPATH": ""}, [], stdin) == full
