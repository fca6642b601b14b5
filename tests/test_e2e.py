"""End-to-end tests: the server as a subprocess, newline-delimited JSON-RPC over its pipes.

Each test spawns ``python -m tinymcp ...`` (or a helper calling ``tinymcp.serve``) with
the repo root as cwd and the package under test on PYTHONPATH (``conftest.server_command``
and ``server_env``: the repo's ``tinymcp``, or a vendored copy). Nothing waits on a clock for synchronisation:
tests wait for a specific output line or for the process to exit, and ``GUARD`` is
only a failure guard against a hung server.

POSIX only (signals, select() on pipes). Stdlib + pytest; runs on CPython 3.8+ and PyPy.
"""

import json
import os
import re
import select
import signal
import subprocess
import sys
import time

import pytest

from conftest import PACKAGE_DIR, read_to_eof, reap, server_command, server_env

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes and signals")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HELPER = os.path.join(REPO, "tests", "e2e_helpers", "render_server.py")
PROTOCOL = "2025-11-25"
DEFAULT_PROMPTS = {"code_review", "explain_error", "commit_message", "write_tests"}
#: Failure guard only: how long a well-behaved server could possibly need.
GUARD = 20.0


def _env():
    env = server_env()
    # run as a host would: default (buffered) stdio, no startup hooks or warning filters,
    # so a buffered print() in a render callable is exercised too
    for name in ("PYTHONUNBUFFERED", "PYTHONSTARTUP", "PYTHONWARNINGS", "PYTHONINSPECT"):
        env.pop(name, None)
    return env


def _version():
    with open(os.path.join(str(PACKAGE_DIR), "__init__.py")) as f:
        return re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)


def req(rid, method, params=None):
    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def initialize(rid=1):
    return req(rid, "initialize", {
        "protocolVersion": PROTOCOL, "capabilities": {},
        "clientInfo": {"name": "e2e", "version": "0"}})


def line(msg):
    return json.dumps(msg).encode("utf-8") + b"\n"


def frames(stdout):
    """Every stdout line parsed; each must be one complete JSON object."""
    assert stdout == b"" or stdout.endswith(b"\n"), "unterminated output: %r" % stdout[-200:]
    out = []
    for raw in stdout.split(b"\n")[:-1]:
        try:
            obj = json.loads(raw.decode("utf-8"))
        except ValueError:
            raise AssertionError("non-JSON line on stdout: %r" % raw[:200])
        assert isinstance(obj, dict), "stdout line is not a JSON object: %r" % raw[:200]
        out.append(obj)
    return out


def run_cli(args, stdin=b"", timeout=GUARD):
    """Run ``python -m tinymcp ARGS`` to completion: (returncode, stdout, stderr) as text."""
    proc = subprocess.run(server_command(*args), cwd=REPO, env=_env(),
                          input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=timeout)
    return proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


class Server:
    """One server subprocess; read replies a line at a time with a bounded wait."""

    def __init__(self, args=(), script=None, stdin=subprocess.PIPE):
        cmd = [sys.executable, script] + list(args) if script else server_command(*args)
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=_env(), stdin=stdin,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._buf = b""

    def send(self, msg):
        self.send_bytes(line(msg))

    def send_bytes(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read_frame(self, timeout=GUARD):
        """The next stdout line as a JSON object (fails on EOF or after ``timeout``)."""
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            ready = select.select([fd], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                raise AssertionError("no reply within %ss; stdout so far %r" % (timeout, self._buf))
            chunk = os.read(fd, 65536)
            if not chunk:
                raise AssertionError("stdout closed before a full line; got %r; stderr: %s"
                                     % (self._buf, self.stderr_after_exit()))
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\n", 1)
        return frames(raw + b"\n")[0]

    def call(self, msg):
        self.send(msg)
        reply = self.read_frame()
        assert reply.get("id") == msg["id"], reply
        return reply

    def initialize(self):
        reply = self.call(initialize())
        assert reply["result"]["protocolVersion"] == PROTOCOL, reply
        return reply

    def finish(self, timeout=GUARD):
        """Close stdin (EOF) and wait for exit: (returncode, rest of stdout, stderr)."""
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, self._buf + out, err.decode("utf-8", "replace")

    def wait(self, timeout=GUARD):
        """Wait for exit with stdin still open: (returncode, stderr)."""
        rc = self.proc.wait(timeout=timeout)
        return rc, self.stderr_after_exit()

    def stderr_after_exit(self):
        if self.proc.poll() is None:
            return "(still running)"
        return self.proc.stderr.read().decode("utf-8", "replace")

    def cleanup(self):
        reap(self.proc)


@pytest.fixture
def spawn():
    servers = []

    def start(*args, **kwargs):
        server = Server(*args, **kwargs)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.cleanup()


# --- 1. default prompts ------------------------------------------------------------

def test_without_config_the_default_prompts_are_listed_and_rendered(spawn):
    server = spawn()
    reply = server.initialize()
    assert reply["result"]["capabilities"]["prompts"] == {"listChanged": False}

    listed = server.call(req(2, "prompts/list"))["result"]
    names = {p["name"] for p in listed["prompts"]}
    assert "code_review" in names
    assert names == DEFAULT_PROMPTS
    assert "nextCursor" not in listed

    got = server.call(req(3, "prompts/get", {"name": "code_review",
                                             "arguments": {"code": "x = 1"}}))["result"]
    texts = [m["content"]["text"] for m in got["messages"] if m["content"]["type"] == "text"]
    assert any("x = 1" in t for t in texts), got
    assert got["messages"][0]["role"] == "user"

    rc, rest, err = server.finish()
    assert (rc, rest) == (0, b""), err
    assert "Traceback" not in err


# --- 2. N requests then EOF ------------------------------------------------------------

def test_n_requests_written_at_once_then_eof_get_n_replies_and_exit_0(spawn):
    n = 50
    msgs = [initialize(1), {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    for rid in range(2, n + 1):
        if rid % 2:
            msgs.append(req(rid, "ping"))
        else:
            msgs.append(req(rid, "prompts/get", {"name": "code_review",
                                                 "arguments": {"code": "x = %d" % rid}}))
    data = b"".join(line(m) for m in msgs)
    assert data.endswith(b"\n")
    data = data[:-1]  # the final request has no trailing newline

    server = spawn()
    server.send_bytes(data)
    rc, out, err = server.finish()

    assert rc == 0, err
    replies = frames(out)
    assert len(replies) == n
    assert sorted(r["id"] for r in replies) == list(range(1, n + 1))
    for r in replies:
        assert "error" not in r, r
        if r["id"] >= 2 and r["id"] % 2 == 0:
            text = r["result"]["messages"][0]["content"]["text"]
            assert "x = %d" % r["id"] in text
    last = [r for r in replies if r["id"] == n][0]
    assert "x = %d" % n in last["result"]["messages"][0]["content"]["text"]
    assert "Traceback" not in err


# --- 3. render callables cannot corrupt stdout ---------------------------------------

def test_render_callable_writing_to_stdout_lands_on_stderr_not_the_wire(spawn):
    server = spawn(script=HELPER)
    server.initialize()
    got = server.call(req(2, "prompts/get", {"name": "noisy", "arguments": {"word": "hello"}}))
    assert got["result"]["messages"][0]["content"]["text"] == "noisy says hello"
    assert server.call(req(3, "ping"))["result"] == {}

    rc, rest, err = server.finish()
    assert rc == 0, err
    frames(rest)  # anything left on stdout is still JSON lines only
    assert rest == b""
    for marker in ("PRINTED-BY-RENDER hello", "SYS-STDOUT-WRITE-BY-RENDER",
                   "OS-WRITE-BY-RENDER", "CHILD-PROCESS-OUTPUT"):
        assert marker in err, "%s missing from stderr: %r" % (marker, err)


# --- 4. render callables that raise ------------------------------------------------

def test_render_callable_that_raises_gives_32603_with_an_id_and_traceback_on_stderr(spawn):
    server = spawn(script=HELPER)
    server.initialize()
    reply = server.call(req(2, "prompts/get", {"name": "broken"}))
    error = reply["error"]
    assert error["code"] == -32603
    error_id = error["data"]["errorId"]
    assert isinstance(error_id, str) and error_id
    assert error["message"] == "Internal error"
    assert "secret-detail-42" not in json.dumps(reply)

    # the session survives the failure
    assert server.call(req(3, "ping"))["result"] == {}

    rc, rest, err = server.finish()
    assert rc == 0, err
    assert rest == b""
    assert "Traceback" in err
    assert "RuntimeError: render exploded: secret-detail-42" in err
    assert error_id in err


def test_render_failure_ids_differ_between_failures(spawn):
    server = spawn(script=HELPER)
    server.initialize()
    first = server.call(req(2, "prompts/get", {"name": "broken"}))["error"]["data"]["errorId"]
    second = server.call(req(3, "prompts/get", {"name": "broken"}))["error"]["data"]["errorId"]
    assert first != second
    rc, _, err = server.finish()
    assert rc == 0
    assert first in err and second in err


# --- 5. signals --------------------------------------------------------------------

@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_signal_while_idle_exits_0_quietly(spawn, signame):
    server = spawn()
    server.initialize()  # answered: the loop is running and the handlers are installed
    server.proc.send_signal(getattr(signal, signame))
    rc, err = server.wait()
    assert rc == 0, err
    assert "Traceback" not in err
    assert "KeyboardInterrupt" not in err
    assert err == ""


# --- 6. broken stdout pipe ----------------------------------------------------------

def test_host_closing_stdout_ends_quietly_on_the_next_reply(spawn):
    server = spawn()
    server.initialize()
    server.proc.stdout.close()
    server.send(req(2, "ping"))  # the reply hits EPIPE; stdin stays open
    rc, err = server.wait()
    assert "Traceback" not in err
    assert "BrokenPipeError" not in err
    assert rc == 0, err


def test_host_closing_stdout_with_a_large_reply_pending_ends_quietly(spawn):
    server = spawn()
    server.initialize()
    # ~900 KB reply (under the 1 MiB max_argument_bytes): far more than a pipe holds, so
    # the server is left waiting to write
    big = "y" * (900 * 1024)
    server.send(req(2, "prompts/get", {"name": "code_review", "arguments": {"code": big}}))
    server.proc.stdout.close()
    rc, err = server.wait()
    assert "Traceback" not in err
    assert rc == 0, err


# --- 7. command line ------------------------------------------------------------------

def test_version_prints_name_and_version_and_exits_0():
    rc, out, err = run_cli(["--version"])
    assert (rc, out, err) == (0, "tinymcp %s\n" % _version(), "")


def test_check_without_config_accepts_the_default_prompts():
    rc, out, err = run_cli(["--check"])
    assert rc == 0, err
    assert "ok" in out and "4 prompts" in out


def test_check_on_a_valid_config_file_exits_0(tmp_path):
    path = tmp_path / "good.json"
    path.write_text(json.dumps({
        "server": {"name": "e2e", "version": "1.2.3"},
        "prompts": [{"name": "greet", "arguments": [{"name": "who", "required": True}],
                     "messages": [{"role": "user", "text": "Hello {who}"}]}],
    }))
    rc, out, err = run_cli(["--check", "--config", str(path)])
    assert rc == 0, err
    assert out == "%s: ok, 1 prompt\n" % path
    assert err == ""


def test_check_on_an_invalid_config_exits_1_listing_every_problem_with_its_path(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"prompts": [
        {"name": "greet", "messages": [{"role": "user", "text": "hi"}]},
        {"name": "greet", "messages": [{"role": "user", "text": "hello"}]},
        {"name": "other", "arguments": [{"name": 3}],
         "messages": [{"role": "user", "text": "x"}]},
    ]}))
    rc, out, err = run_cli(["--check", "--config", str(path)])
    assert rc == 1
    assert out == ""
    assert str(path) in err
    assert "prompts[1].name: duplicate prompt name 'greet'" in err
    assert "prompts[2].arguments[0].name: expected a string" in err


def test_check_reports_a_duplicate_of_a_prompt_that_itself_has_a_problem(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"prompts": [
        {"name": "greet", "arguments": [{"name": 3}],
         "messages": [{"role": "user", "text": "hi"}]},
        {"name": "greet", "messages": [{"role": "user", "text": "hello"}]},
    ]}))
    rc, out, err = run_cli(["--check", "--config", str(path)])
    assert rc == 1
    assert "prompts[0].arguments[0].name" in err
    assert "prompts[1].name" in err


def test_check_on_a_config_nested_too_deeply_to_parse_is_a_config_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"prompts": [], "x": ' + "[" * 100000 + "]" * 100000 + "}")
    rc, out, err = run_cli(["--check", "--config", str(path)])
    assert (rc, out) == (1, "")
    assert "%s: invalid JSON: nested too deeply to parse" % path in err
    assert "Traceback" not in err


def test_invalid_config_also_refuses_to_serve_with_exit_1(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"prompts": [{"name": ""}]}))
    rc, out, err = run_cli(["--config", str(path)], stdin=line(initialize()))
    assert rc == 1
    assert out == ""
    assert "prompts[0].name" in err


def test_check_on_a_file_that_is_not_json_exits_1_naming_the_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"prompts": [')
    rc, out, err = run_cli(["--check", "--config", str(path)])
    assert rc == 1
    assert out == ""
    assert str(path) in err
    assert "invalid JSON" in err
    assert "Traceback" not in err


def test_missing_config_file_exits_1_naming_the_file(tmp_path):
    path = tmp_path / "nope.json"
    rc, out, err = run_cli(["--check", "--config", str(path)])
    assert rc == 1
    assert str(path) in err
    assert "Traceback" not in err


@pytest.mark.parametrize("args", [["--config", "a.json", "--config", "b.json"], ["--page-size", "2", "--page-size=3"]])
def test_an_option_given_twice_is_a_usage_error(args):
    rc, out, err = run_cli(args)
    assert (rc, out) == (2, "")
    assert "%s given twice" % args[0] in err


def test_at_a_terminal_it_says_what_it_is_on_stderr_only():
    import pty
    try:
        master, slave = pty.openpty()
    except OSError as exc:  # a sandbox without /dev/pts
        pytest.skip("no pseudo-terminal here: %s" % exc)
    proc = subprocess.Popen(server_command(), cwd=REPO, env=_env(), stdin=slave,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(slave)
    try:
        assert select.select([proc.stderr], [], [], GUARD)[0], "nothing on stderr"
        line_ = proc.stderr.readline().decode()
        assert line_.startswith("tinymcp: serving MCP on stdio") and "Ctrl-D" in line_
    finally:
        os.write(master, b"\x04")  # Ctrl-D: end of input at the terminal
        rc = proc.wait(timeout=GUARD)
        os.close(master)
    assert rc == 0 and proc.stdout.read() == b""


def test_unknown_argument_exits_2_with_usage_on_stderr():
    rc, out, err = run_cli(["--bogus"])
    assert rc == 2
    assert out == ""
    assert "--bogus" in err
    assert "usage:" in err


def test_help_names_the_module_it_was_started_as():
    from conftest import PACKAGE
    rc, out, err = run_cli(["--help"])
    assert (rc, err) == (0, "")
    first, second = out.splitlines()[:2]
    prog = "python3 -m %s" % PACKAGE  # tinymcp, or sometool._vendor.tinymcp for a vendored copy
    assert first.startswith("usage: %s [--config FILE.json]" % prog)
    assert second.startswith(" " * len("usage: %s " % prog) + "[--socket PATH")
    assert "without it, a built-in default prompt set" in out


def test_page_size_option_paginates_the_default_prompts(spawn):
    server = spawn(["--page-size", "2"])
    server.initialize()
    first = server.call(req(2, "prompts/list"))["result"]
    assert len(first["prompts"]) == 2
    cursor = first["nextCursor"]
    assert isinstance(cursor, str) and cursor

    second = server.call(req(3, "prompts/list", {"cursor": cursor}))["result"]
    assert len(second["prompts"]) == 2
    assert "nextCursor" not in second
    names = [p["name"] for p in first["prompts"] + second["prompts"]]
    assert set(names) == DEFAULT_PROMPTS and len(names) == 4

    rc, rest, err = server.finish()
    assert (rc, rest) == (0, b""), err


# --- 8. garbage input -------------------------------------------------------------------

def test_garbage_lines_get_32700_with_null_id_and_the_next_request_is_answered(spawn):
    server = spawn()
    server.initialize()
    for garbage in (b"this is not json\n", b'{"jsonrpc": "2.0", "id": 7,\n', b"\xff\xfe\x00\n"):
        server.send_bytes(garbage)
        reply = server.read_frame()
        assert reply["id"] is None and "id" in reply
        assert reply["error"]["code"] == -32700
        assert reply["jsonrpc"] == "2.0"
    assert server.call(req(2, "ping")) == {"jsonrpc": "2.0", "id": 2, "result": {}}
    rc, rest, err = server.finish()
    assert (rc, rest) == (0, b""), err


# --- 9. stdin that is not a pipe ----------------------------------------------------------

def test_stdin_redirected_from_a_regular_file_is_served(tmp_path):
    path = tmp_path / "requests.jsonl"
    path.write_bytes(line(initialize()) + line(req(2, "prompts/list")) + line(req(3, "ping")))
    with open(str(path), "rb") as stdin:
        proc = subprocess.run(server_command(), cwd=REPO, env=_env(),
                              stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=GUARD)
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, err
    replies = frames(proc.stdout)
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert "code_review" in {p["name"] for p in replies[1]["result"]["prompts"]}


def test_stdin_from_dev_null_exits_0_without_output():
    proc = subprocess.run(server_command(), cwd=REPO, env=_env(),
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=GUARD)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert proc.stdout == b""
    assert proc.stderr == b""


def _run_on_own_pipes(requests):
    """Serve ``requests`` on pipes whose other copies the test keeps, so the flags the
    server leaves on the shared open file descriptions can be inspected after it exits."""
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    try:
        proc = subprocess.Popen(server_command(), cwd=REPO, env=_env(),
                                stdin=r_in, stdout=w_out, stderr=subprocess.PIPE)
        try:
            os.write(w_in, requests)  # small: fits in the pipe buffer
            os.close(w_in)
            w_in = None
            rc = proc.wait(timeout=GUARD)
            err = proc.stderr.read().decode("utf-8", "replace")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stderr.close()
        flags = {"stdin": os.get_blocking(r_in), "stdout": os.get_blocking(w_out)}
        os.close(w_out)
        w_out = None
        return rc, read_to_eof(r_out), err, flags
    finally:
        for fd in (r_in, w_in, r_out, w_out):
            if fd is not None:
                os.close(fd)


def test_stdin_pipe_is_left_blocking_after_exit():
    rc, out, err, flags = _run_on_own_pipes(line(req(1, "ping")))
    assert rc == 0, err
    assert frames(out) == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
    assert flags["stdin"] is True


def test_stdout_pipe_is_left_blocking_after_exit():
    rc, out, err, flags = _run_on_own_pipes(line(req(1, "ping")))
    assert rc == 0, err
    assert frames(out) == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
    assert flags["stdout"] is True
