"""Interop check: the MCP Inspector's CLI and the MCP conformance suite against tinymcp.

Usage: python3 interop_tools.py NODE_DIR CONFIG [SERVER_ROOT]
NODE_DIR holds node_modules with @modelcontextprotocol/inspector and
@modelcontextprotocol/conformance (scripts/interop installs them). The Inspector spawns
``python3 -m tinymcp --config CONFIG`` (CONFIG: scripts/interop's 250 prompts) in
SERVER_ROOT (default: the repo root). The conformance suite tests servers over HTTP only,
so its server scenarios that a prompts server can pass drive ``-m tinymcp`` through
scripts/http_shim.py, on a config of the prompts those scenarios name. Prints one
PASS/FAIL line per check; exits 1 if any check failed.
"""

import json
import os
import subprocess
import sys
import tempfile

NODE_DIR, CONFIG = sys.argv[1], sys.argv[2]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER_ROOT = sys.argv[3] if len(sys.argv) > 3 else ROOT
BIN = os.path.join(NODE_DIR, "node_modules", ".bin")
#: the tools run under the Node that NODE_DIR holds, when it holds one (they ask for 22)
ENV = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""))
SERVER = ["python3", "-m", "tinymcp"]

#: what the suite's scenarios ask of a server (named prompts, their arguments and content)
CONFORMANCE_CONFIG = {"server": {"name": "conformance", "version": "1.0"}, "prompts": [
    {"name": "test_simple_prompt", "description": "A simple prompt without arguments",
     "messages": [{"role": "user", "text": "This is a simple prompt for testing."}]},
    {"name": "test_prompt_with_arguments", "description": "A prompt with required arguments",
     "arguments": [{"name": "arg1", "description": "First test argument", "required": True,
                    "completions": ["paris", "park", "party", "test", "testing"]},
                   {"name": "arg2", "description": "Second test argument", "required": True}],
     "messages": [{"role": "user", "text": "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"}]},
    {"name": "test_prompt_with_embedded_resource", "description": "A prompt with an embedded resource",
     "arguments": [{"name": "resourceUri", "description": "URI of the resource to embed", "required": True}],
     "messages": [{"role": "user", "content": {"type": "resource", "resource": {
         "uri": "{resourceUri}", "mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
                  {"role": "user", "text": "Please process the embedded resource above."}]},
    {"name": "test_prompt_with_image", "description": "A prompt with image content",
     "messages": [{"role": "user", "content": {"type": "image", "mimeType": "image/png", "data": (
         "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")}},
                  {"role": "user", "text": "Please analyze the image above."}]},
    {"name": "test_input_required_result_prompt", "description": "A prompt that asks for its context",
     "ask_for_missing": True, "arguments": [{"name": "context", "required": True,
                                              "description": "What context should the prompt use?"}],
     "messages": [{"role": "user", "text": "Use this context: {context}"}]},
]}
#: the suite's server scenarios that concern a prompts server, and the revisions each is run
#: at (the rest are tools, resources, elicitation, sampling or the HTTP transport itself)
HANDSHAKE, MODERN = ("2025-06-18", "2025-11-25"), ("2026-07-28",)
SCENARIOS = (
    ("server-initialize", HANDSHAKE), ("ping", HANDSHAKE), ("logging-set-level", HANDSHAKE),
    ("server-stateless", MODERN), ("caching", MODERN), ("input-required-result-unsupported-methods", MODERN),
    ("input-required-result-non-tool-request", MODERN),
    ("prompts-list", HANDSHAKE + MODERN), ("prompts-get-simple", HANDSHAKE + MODERN),
    ("prompts-get-with-args", HANDSHAKE + MODERN), ("prompts-get-embedded-resource", HANDSHAKE + MODERN),
    ("prompts-get-with-image", HANDSHAKE + MODERN), ("completion-complete", HANDSHAKE + MODERN),
)
#: checks that are not tinymcp's to pass: HTTP status codes and headers (the shim's
#: transport: stdio has neither), tools and resources (a prompts server has neither), and
#: behaviours the suite provokes through diagnostic tools of its own test server
NOT_OURS_PREFIX = "sep-2575-http-"
NOT_OURS = frozenset((
    "sep-2575-missing-capability-http-400",
    "sep-2549-tools-list-caching-hints", "sep-2549-resources-list-caching-hints",
    "sep-2549-resources-templates-list-caching-hints", "sep-2549-resources-read-caching-hints",
    "sep-2575-server-rejects-undeclared-capability", "sep-2575-server-no-log-without-loglevel",
    "sep-2575-server-sends-prompts-list-changed-on-subscription",
    "sep-2575-server-sends-tools-list-changed-on-subscription",
))
failures = 0


def check(name, ok, detail=""):
    global failures
    failures += not ok
    print("%s: %s%s" % ("PASS" if ok else "FAIL", name, " (%s)" % detail if detail and not ok else ""),
          flush=True)


def inspector(*args):
    """(exit status, parsed JSON output or None, output) of one Inspector CLI call."""
    argv = [os.path.join(BIN, "mcp-inspector"), "--cli", "--cwd", SERVER_ROOT] + list(args) \
        + ["--"] + SERVER + ["--config", CONFIG]
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60, env=ENV)
    out = done.stdout.decode("utf-8", "replace").strip()
    try:
        return done.returncode, json.loads(out), out
    except ValueError:
        return done.returncode, None, out


def check_inspector():
    rc, listed, out = inspector("--method", "prompts/list")
    names = [p.get("name") for p in (listed or {}).get("prompts", [])]
    check("inspector: prompts/list follows every page", rc == 0 and names == ["p%03d" % i for i in range(250)],
          out[:200])
    rc, got, out = inspector("--method", "prompts/get", "--prompt-name", "p042", "--prompt-args", "topic=tides")
    text = ((got or {}).get("messages") or [{}])[0].get("content", {}).get("text")
    check("inspector: prompts/get renders its argument", rc == 0 and text == "Tell me about tides", out[:200])
    rc, got, out = inspector("--method", "prompts/get", "--prompt-name", "nope")
    check("inspector: an unknown prompt is an error", rc != 0 and "Unknown prompt" in out, out[:200])
    rc, got, out = inspector("--method", "prompts/get", "--prompt-name", "p001")
    check("inspector: a missing required argument is an error", rc != 0 and "topic" in out, out[:200])
    rc, got, out = inspector("--method", "logging/setLevel", "--log-level", "debug")
    check("inspector: logging/setLevel", rc == 0 and got == {}, out[:200])


def conformance(url, scenario, version, tmp):
    """``(ours, others)``: the checks of one scenario run that are tinymcp's, and the
    count of the others (``NOT_OURS``); or ``(None, output)`` when it printed no checks."""
    done = subprocess.run([os.path.join(BIN, "conformance"), "server", "--url", url, "--scenario", scenario,
                           "--spec-version", version, "--verbose", "-o", os.path.join(tmp, scenario + version)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120, env=ENV)
    out = done.stdout.decode("utf-8", "replace")
    try:
        checks = json.JSONDecoder().raw_decode(out[out.index("\n[") + 1:])[0]
    except ValueError:
        return None, out[-300:].strip()
    ours = [c for c in checks if c["id"] not in NOT_OURS and not c["id"].startswith(NOT_OURS_PREFIX)]
    return ours, len(checks) - len(ours)


def check_conformance(tmp):
    config = os.path.join(tmp, "conformance.json")
    with open(config, "w") as f:
        json.dump(CONFORMANCE_CONFIG, f)
    env = dict(os.environ, PYTHONPATH=SERVER_ROOT)
    shim = subprocess.Popen([sys.executable, os.path.join(ROOT, "scripts", "http_shim.py"), "--"]
                            + SERVER + ["--config", config], stdout=subprocess.PIPE, cwd=SERVER_ROOT, env=env)
    try:
        url = shim.stdout.readline().decode().strip()
        check("conformance: the HTTP shim listens", url.startswith("http://"), url)
        if not url:
            return
        for scenario, versions in SCENARIOS:
            for version in versions:
                ours, others = conformance(url, scenario, version, tmp)
                if ours is None:  # (``others``: what it printed instead)
                    check("conformance: %s at %s printed its checks" % (scenario, version), False, others)
                    continue
                failed = ["%s %s: %s" % (c["id"], c["status"], (c.get("errorMessage") or "")[:200])
                          for c in ours if c["status"] != "SUCCESS"]
                check("conformance: %s at %s (%d checks%s)" % (
                    scenario, version, len(ours), ", %d not a prompts server's" % others if others else ""),
                    bool(ours) and not failed, "; ".join(failed))
    finally:
        shim.terminate()
        shim.wait(timeout=10)


def main():
    check_inspector()
    with tempfile.TemporaryDirectory() as tmp:
        check_conformance(tmp)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
