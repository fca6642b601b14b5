"""A seeded generator of hostile input for the server, and the invariants it must keep.

Used by tests/test_fuzz.py (bounded, in CI) and scripts/fuzz (``--minutes N``).
"""

import json
import os
import random
import re
import subprocess
import tempfile
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CONFIG = {"prompts": [
    {"name": "greet", "arguments": [{"name": "who", "required": True}, {"name": "mood", "default": "warm"},
                                    {"name": "lang", "completions": ["en", "fr", "de", "English"]}],
     "messages": [{"role": "user", "text": "Greet {who} in a {mood} way ({lang})"},
                  {"role": "assistant", "content": {"type": "resource", "resource": {
                      "uri": "file:///{who}", "text": "{mood}"}}}]},
    {"name": "plain", "description": "no arguments", "messages": [{"role": "user", "text": "plain"}]},
] + [{"name": "p%02d" % i, "messages": [{"role": "user", "text": "x"}]} for i in range(30)]}

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}

TEMPLATES = [
    {"method": "ping"},
    {"method": "prompts/list", "params": {}},
    {"method": "prompts/list", "params": {"cursor": "bogus"}},
    {"method": "prompts/get", "params": {"name": "greet", "arguments": {"who": "x"}}},
    {"method": "prompts/get", "params": {"name": "greet", "arguments": {"who": "{mood}", "lang": "%s"}}},
    {"method": "prompts/get", "params": {"name": "plain"}},
    {"method": "prompts/get", "params": {"name": "nope"}},
    {"method": "completion/complete", "params": {"ref": {"type": "ref/prompt", "name": "greet"},
                                                 "argument": {"name": "lang", "value": "e"}}},
    {"method": "completion/complete", "params": {"ref": {"type": "ref/prompt", "name": "greet"},
                                                 "argument": {"name": "lang", "value": "E"},
                                                 "context": {"arguments": {"who": "x"}}}},
    {"method": "prompts/get", "params": {"name": "greet", "arguments": {"who": "x"},
                                         "_meta": {"progressToken": "t"}}},
    {"method": "subscriptions/listen", "params": {"_meta": META, "notifications": {"promptsListChanged": True}}},
    {"method": "logging/setLevel", "params": {"level": "debug"}},
    {"method": "server/discover", "params": {"_meta": META}},
    {"method": "prompts/list", "params": {"_meta": dict(META, **{"io.modelcontextprotocol/logLevel": "debug"})}},
    {"method": "prompts/get", "params": {"_meta": META, "name": "greet", "arguments": {"who": "m"}}},
    {"method": "tools/list"},
    {"method": "initialize", "params": {"protocolVersion": "2025-06-18"}},
]

ODD_VALUES = [None, True, False, 0, -1, 1.5, 2 ** 70, -2 ** 64, "", "x" * 1000, "\ud800", "\u0000",
              "\u2028", [], {}, [[[]]], {"a": {"b": {}}}, "2.0", "{0.__class__}"]


def is_valid_id(value):
    return type(value) in (str, int)


#: the server's max_depth (docs/security.md): a line nested deeper is refused unread, id null
MAX_DEPTH = 64


def nesting(line):
    """How deep the brackets of ``line`` nest, strings left out (a plain scan)."""
    depth = deepest = 0
    in_string = escaped = False
    for c in line.decode("latin-1"):
        if in_string:
            in_string, escaped = (c != '"' or escaped), (c == "\\" and not escaped)
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def expected_reply(line):
    """('id', id) if this line must get exactly one reply carrying ``id``; ('null',) for one
    reply with a null id; None for no reply. Mirrors JSON-RPC and the documented bounds,
    not the server's code."""
    if not line.strip(b" \t\r"):
        return None
    if nesting(line) > MAX_DEPTH:
        return ("null",)
    try:
        msg = json.loads(_collapse_tower(line).decode("utf-8"), parse_constant=_nan)
    except (ValueError, UnicodeDecodeError):
        return ("null",)
    if type(msg) is not dict:
        return ("null",)
    if "id" not in msg:
        if "method" not in msg and ("result" in msg or "error" in msg):
            return None
        # (a notification is a valid Request object without an id: any other is refused)
        return None if type(msg.get("method")) is str and msg.get("jsonrpc") == "2.0" and (
            msg.get("params") is None or type(msg["params"]) in (dict, list)) else ("null",)
    if "method" not in msg and ("result" in msg or "error" in msg):
        return None
    return ("id", msg["id"]) if is_valid_id(msg["id"]) else ("null",)


_TOWER = re.compile(rb'(.*?)((?:\{"a":)+)1(\}+)', re.S)


def _collapse_tower(line):
    """The generator's deep-nesting lines with their ``{"a":...}`` tower folded to ``1``:
    valid JSON stays valid, and json.loads need not recurse past the interpreter's limit
    (where it would fail on one interpreter and not on another)."""
    match = _TOWER.fullmatch(line)
    if match is None:
        return line
    opens = len(match.group(2)) // len(b'{"a":')
    closes = match.group(3)
    if len(closes) < opens:
        return line
    return match.group(1) + b"1" + closes[opens:]


def _nan(name):
    raise ValueError(name)


def _slots(value):
    """Every (dict, key) inside ``value``, at any depth."""
    if type(value) is dict:
        for key in sorted(value):
            yield value, key
            yield from _slots(value[key])
    elif type(value) is list:
        for item in value:
            yield from _slots(item)


class Generator:
    def __init__(self, seed):
        self.rnd = random.Random(seed)
        self.next_id = 0

    def fresh_id(self):
        self.next_id += 1
        return self.next_id if self.rnd.random() < 0.5 else "id-%d" % self.next_id

    def request(self):
        msg = {"jsonrpc": "2.0", "id": self.fresh_id()}
        msg.update(json.loads(json.dumps(self.rnd.choice(TEMPLATES))))
        return msg

    def mutate(self, msg):
        rnd = self.rnd
        kind = rnd.randrange(10)
        if kind >= 8:  # any field at any depth of params: wrong type, or gone
            slots = list(_slots(msg.get("params")))
            if slots:
                container, key = rnd.choice(slots)
                if kind == 8:
                    container[key] = rnd.choice(ODD_VALUES)
                else:
                    del container[key]
            return msg
        if kind == 0 and msg:
            del msg[rnd.choice(sorted(msg))]
        elif kind == 1:
            msg[rnd.choice(sorted(msg) or ["x"])] = rnd.choice(ODD_VALUES)
        elif kind == 2 and isinstance(msg.get("params"), dict) and msg["params"]:
            msg["params"][rnd.choice(sorted(msg["params"]))] = rnd.choice(ODD_VALUES)
        elif kind == 3 and isinstance(msg.get("params"), dict):
            args = msg["params"].setdefault("arguments", {})
            if isinstance(args, dict):
                args[rnd.choice(["who", "mood", "zzz", ""])] = rnd.choice(ODD_VALUES)
        elif kind == 4:
            msg["id"] = rnd.choice(ODD_VALUES)
        elif kind == 5:
            msg["method"] = rnd.choice(["PING", "prompts/get ", "", "notifications/initialized", 7])
        elif kind == 6:
            msg[rnd.choice(["extra", "result", "error", "_meta"])] = rnd.choice(ODD_VALUES)
        return msg

    def line(self):
        """One raw line (without its newline), the kind chosen at random."""
        rnd = self.rnd
        kind = rnd.random()
        if kind < 0.35:
            return json.dumps(self.request()).encode()
        if kind < 0.65:
            return json.dumps(self.mutate(self.request())).encode("utf-8", "surrogatepass")
        if kind < 0.72:  # truncated JSON
            text = json.dumps(self.request()).encode()
            return text[:rnd.randrange(1, len(text))]
        if kind < 0.77:  # garbage bytes (no newline inside)
            return bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 200))).replace(b"\n", b" ")
        if kind < 0.80:  # invalid UTF-8 inside a valid-looking request
            return json.dumps(self.request()).encode()[:-1] + b',"x":"\xc3\x28"}'
        if kind < 0.83:  # deep nesting
            depth = rnd.choice([63, 65, 1000, 40000])
            return b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":' % self.fresh_id_int() + \
                b'{"a":' * depth + b"1" + b"}" * depth + b"}"
        if kind < 0.86:  # NaN / Infinity literals
            return b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"x":%s}}' % (
                self.fresh_id_int(), rnd.choice([b"NaN", b"Infinity", b"-Infinity"]))
        if kind < 0.89:  # duplicate keys
            return b'{"jsonrpc":"2.0","id":%d,"method":"ping","id":%d}' % (self.fresh_id_int(), self.fresh_id_int())
        if kind < 0.92:  # batch (refused: the session runs 2025-11-25)
            return json.dumps([self.request() for _ in range(rnd.randrange(0, 4))]).encode()
        if kind < 0.95:  # a notification, possibly odd
            return json.dumps(self.mutate({"jsonrpc": "2.0", "method": rnd.choice(
                ["notifications/initialized", "notifications/whatever", "notifications/progress"])})).encode()
        if kind < 0.97:  # huge string argument
            msg = self.request()
            msg["method"], msg["params"] = "prompts/get", {"name": "greet", "arguments": {
                "who": "w" * rnd.choice([10 ** 4, 10 ** 5, 3 * 10 ** 6])}}
            return json.dumps(msg).encode()
        if kind < 0.985:  # huge integer
            return b'{"jsonrpc":"2.0","id":%s,"method":"ping"}' % (b"9" * rnd.choice([20, 300]))
        return b"   "

    def fresh_id_int(self):
        self.next_id += 1
        return self.next_id

    def stream(self, count):
        """``count`` lines with random line endings (\\n or \\r\\n)."""
        for _ in range(count):
            yield self.line() + (b"\r\n" if self.rnd.random() < 0.2 else b"\n")


def run(seed, count):
    """Drive a real server process with ``count`` generated lines; return a list of
    invariant violations (empty when all held)."""
    gen = Generator(seed)
    lines = list(gen.stream(count))
    init = b'{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25"}}\n'
    final = b'{"jsonrpc":"2.0","id":"final","method":"ping"}\n'
    fd, name = tempfile.mkstemp(suffix=".json", prefix="tinymcp-fuzz-")
    config_path = Path(name)
    with os.fdopen(fd, "w") as f:
        json.dump(CONFIG, f)
    try:  # the package under test: the repo's tinymcp, or a vendored copy (tests/conftest.py)
        from conftest import server_command, server_env
        command, env = server_command("--config", config_path), server_env()
    except ImportError:  # scripts/fuzz without pytest installed: the repo's tinymcp
        command = [sys.executable, "-m", "tinymcp", "--config", str(config_path)]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=str(ROOT), env=env)
        errors = []
        out_chunks, err_chunks = [], []
        readers = [threading.Thread(target=lambda: out_chunks.append(proc.stdout.read())),
                   threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()))]
        for t in readers:
            t.start()
        try:
            proc.stdin.write(init)
            for line in lines:
                proc.stdin.write(line)
            proc.stdin.write(final)
            proc.stdin.close()
        except BrokenPipeError:
            errors.append("server closed its stdin early (crashed?)")
        rc = proc.wait(timeout=120)
        for t in readers:
            t.join(timeout=30)
    finally:
        config_path.unlink()
    out = b"".join(out_chunks)
    if rc != 0:
        errors.append("exit status %r" % rc)
    if b"Traceback" in out:
        errors.append("a traceback on the wire")
    replies = []
    for raw in out.split(b"\n")[:-1]:
        try:
            msg = json.loads(raw)
        except ValueError:
            errors.append("stdout line is not JSON: %r" % raw[:200])
            continue
        if type(msg) is not dict:  # (batches are refused under 2025-11-25: never an array)
            errors.append("stdout line is not a JSON object: %r" % raw[:200])
        replies.append(msg)
    expected_ids, expected_nulls = {}, 0
    for line in lines:
        exp = expected_reply(line.rstrip(b"\n").rstrip(b"\r"))
        if exp is None:
            continue
        if exp[0] == "null":
            expected_nulls += 1
        else:
            key = json.dumps(exp[1])
            expected_ids[key] = expected_ids.get(key, 0) + 1
    got_ids, got_nulls = {}, 0
    for msg in replies:
        if type(msg) is dict and "id" in msg:
            if msg["id"] is None:
                got_nulls += 1
            elif msg["id"] not in ("init", "final"):
                key = json.dumps(msg["id"])
                got_ids[key] = got_ids.get(key, 0) + 1
    for key, n in expected_ids.items():
        if got_ids.get(key, 0) != n:
            errors.append("id %s: %d replies, expected %d" % (key[:80], got_ids.get(key, 0), n))
    for key in set(got_ids) - set(expected_ids):
        errors.append("reply to id %s that needed none" % key[:80])
    if got_nulls != expected_nulls:
        errors.append("%d null-id errors, expected %d" % (got_nulls, expected_nulls))
    if not any(type(m) is dict and m.get("id") == "final" and m.get("result") == {} for m in replies):
        errors.append("the final ping was not answered")
    return errors
