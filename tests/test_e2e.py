"""End to end: the stdio server as a subprocess, newline-delimited JSON-RPC over its pipes.

Each test spawns ``python -m tinymcp`` (or a helper calling ``tinymcp.serve``) through
``transport_helpers.Proc``: the repo root as cwd, the package under test on PYTHONPATH
(``conftest.server_command`` and ``server_env``: the repo's ``tinymcp``, or a vendored
copy). Nothing waits on a clock for synchronisation: tests wait for a specific output line
or for the process to exit, and ``GUARD`` is only a failure guard against a hung server.

POSIX only (signals, select() on pipes). Stdlib + pytest; runs on CPython 3.8+ and PyPy.
"""

import json
import os
import signal
import subprocess
import sys

import pytest

from conftest import INITIALIZED, LIST_CHANGED, initialize, line, read_to_eof, req
from transport_helpers import DEFAULT_PROMPTS, EOF, REPO, Proc, frames, run

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes and signals")

HELPER = os.path.join(REPO, "tests", "e2e_helpers", "render_server.py")


# --- default prompts ------------------------------------------------------------------

def test_without_config_the_default_prompts_are_listed_and_rendered(world):
    server = world.stdio()
    result = server.initialize()
    assert result["capabilities"]["prompts"] == {"listChanged": False}

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

    rc, err, rest = server.finish(EOF)
    assert (rc, rest) == (0, b""), err
    assert "Traceback" not in err


# --- N requests then EOF ----------------------------------------------------------------

def test_n_requests_written_at_once_then_eof_get_n_replies_and_exit_0(world):
    n = 50
    msgs = [initialize(1), INITIALIZED]
    for rid in range(2, n + 1):
        if rid % 2:
            msgs.append(req(rid, "ping"))
        else:
            msgs.append(req(rid, "prompts/get", {"name": "code_review",
                                                 "arguments": {"code": "x = %d" % rid}}))
    data = b"".join(line(m) for m in msgs)
    assert data.endswith(b"\n")
    data = data[:-1]  # the final request has no trailing newline

    server = world.stdio()
    server.send_bytes(data)
    rc, err, out = server.finish(EOF)

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


# --- render callables cannot corrupt stdout -----------------------------------------

def test_render_callable_writing_to_stdout_lands_on_stderr_not_the_wire(world):
    server = world.stdio(script=HELPER)
    server.initialize()
    got = server.call(req(2, "prompts/get", {"name": "noisy", "arguments": {"word": "hello"}}))
    assert got["result"]["messages"][0]["content"]["text"] == "noisy says hello"
    assert server.call(req(3, "ping"))["result"] == {}

    rc, err, rest = server.finish(EOF)
    assert rc == 0, err
    frames(rest)  # anything left on stdout is still JSON lines only
    assert rest == b""
    for marker in ("PRINTED-BY-RENDER hello", "SYS-STDOUT-WRITE-BY-RENDER",
                   "OS-WRITE-BY-RENDER", "CHILD-PROCESS-OUTPUT"):
        assert marker in err, "%s missing from stderr: %r" % (marker, err)


# --- render callables that raise ----------------------------------------------------

@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP here")
def test_a_callable_sending_sighup_to_its_own_process_does_not_end_the_server(world):
    # tinymcp.serve(Server) has no config file to reload: SIGHUP's default action ended it
    server = world.stdio(script=os.path.join(REPO, "tests", "e2e_helpers", "hup_server.py"))
    server.initialize()
    reply = server.call(req(2, "prompts/get", {"name": "hup"}))
    assert reply["result"]["messages"][0]["content"]["text"] == "still here"
    server.wait_stderr("SIGHUP: no config file to reload")
    assert server.call(req(3, "ping"))["result"] == {}


def test_render_callable_that_raises_gives_32603_with_an_id_and_traceback_on_stderr(world):
    server = world.stdio(script=HELPER)
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

    rc, err, rest = server.finish(EOF)
    assert rc == 0, err
    assert rest == b""
    assert "Traceback" in err
    assert "RuntimeError: render exploded: secret-detail-42" in err
    assert error_id in err


def test_render_failure_ids_differ_between_failures(world):
    server = world.stdio(script=HELPER)
    server.initialize()
    first = server.call(req(2, "prompts/get", {"name": "broken"}))["error"]["data"]["errorId"]
    second = server.call(req(3, "prompts/get", {"name": "broken"}))["error"]["data"]["errorId"]
    assert first != second
    rc, err, _ = server.finish(EOF)
    assert rc == 0
    assert first in err and second in err


@pytest.mark.parametrize("name", ["exit", "interrupt", "generator_exit", "exit_complete"])
def test_a_callable_raising_systemexit_or_keyboardinterrupt_fails_only_its_request(world, name):
    # Bug: SystemExit(3), KeyboardInterrupt and GeneratorExit from a render (or complete)
    # ended the server with their status, and on the socket every client with it.
    server = world.stdio(script=HELPER)
    server.initialize()
    if name == "exit_complete":
        reply = server.call(req(2, "completion/complete", {
            "ref": {"type": "ref/prompt", "name": name}, "argument": {"name": "a", "value": ""}}))
    else:
        reply = server.call(req(2, "prompts/get", {"name": name}))
    assert reply["error"]["code"] == -32603 and reply["error"]["message"] == "Internal error"
    got = server.call(req(3, "prompts/get", {"name": "noisy", "arguments": {"word": "on"}}))
    assert got["result"]["messages"][0]["content"]["text"] == "noisy says on"
    rc, err, rest = server.finish(EOF)
    assert (rc, rest) == (0, b""), err
    assert reply["error"]["data"]["errorId"] in err


def test_serve_given_the_path_of_a_config_file_serves_it(world, tmp_path):
    path = tmp_path / "prompts.json"
    path.write_text(json.dumps({"prompts": [{"name": "from_file", "messages": [
        {"role": "user", "text": "read from the file"}]}]}))
    script = tmp_path / "serve_path.py"
    script.write_text("import importlib, os, pathlib, sys, threading\n"
                      "started, start = [], threading.Thread.start\n"
                      "threading.Thread.start = lambda thread: started.append(thread.name) or start(thread)\n"
                      "tinymcp = importlib.import_module(os.environ.get('TINYMCP_PACKAGE') or 'tinymcp')\n"
                      "rc = tinymcp.serve(pathlib.Path(sys.argv[1]))\n"
                      "sys.stderr.write('threads started: %r\\n' % started)\n"
                      "sys.exit(rc)\n")
    server = world.stdio(str(path), script=str(script))
    # served as --config serves it: a change source (SIGHUP), so listChanged is promised
    assert server.initialize()["capabilities"]["prompts"] == {"listChanged": True}
    got = server.call(req(2, "prompts/get", {"name": "from_file"}))["result"]
    assert got["messages"][0]["content"]["text"] == "read from the file"
    if hasattr(signal, "SIGHUP"):  # (and SIGHUP reloads it, as it reloads --config)
        path.write_text(json.dumps({"prompts": [{"name": "from_file", "messages": [
            {"role": "user", "text": "read again"}]}]}))
        server.kill(signal.SIGHUP)
        assert server.frame() == LIST_CHANGED
        got = server.call(req(3, "prompts/get", {"name": "from_file"}))["result"]
        assert got["messages"][0]["content"]["text"] == "read again"
    rc, err, rest = server.finish(EOF)
    assert (rc, rest) == (0, b""), err
    assert "threads started: []" in err  # (not watched, as --config without --watch: no thread)


def _serve_a_folder_with_a_bad_file(world, tmp_path, config, serve_call):
    """A script that calls ``tinymcp.serve(<serve_call>)`` (``sys.argv[1]``: ``config`` written
    as prompts.json beside the folder ``pd``, or the folder itself) with ``pd`` holding a good and
    a bad file: the good one served; ``(rc, err, rest)`` at EOF."""
    (tmp_path / "pd").mkdir()
    (tmp_path / "pd" / "bad.md").write_text("Hi {{who}}\n")
    (tmp_path / "pd" / "good.md").write_text("Hello\n")
    arg = tmp_path / "pd"
    if config is not None:
        arg = tmp_path / "prompts.json"
        arg.write_text(json.dumps(config))
    script = tmp_path / "serve_it.py"
    script.write_text("import importlib, os, sys\n"
                      "tinymcp = importlib.import_module(os.environ.get('TINYMCP_PACKAGE') or 'tinymcp')\n"
                      + serve_call)
    server = world.stdio(str(arg), script=str(script))
    server.initialize()
    assert [p["name"] for p in server.call(req(2, "prompts/list", {}))["result"]["prompts"]] == ["good"]
    return server.finish(EOF)


@pytest.mark.needs("files")
def test_serve_given_a_path_tells_what_its_folders_leave_out(world, tmp_path):
    rc, err, rest = _serve_a_folder_with_a_bad_file(world, tmp_path, {"prompts": [], "prompt_dirs": ["pd"]},
                                                    "sys.exit(tinymcp.serve(sys.argv[1]))\n")
    # (on stderr, as --config tells it)
    assert (rc, rest) == (0, b"") and "bad.md:1:4: placeholder {{who}} names no declared argument" in err, err


@pytest.mark.needs("files")
def test_serve_with_a_log_hook_that_raises_serves_what_its_folders_hold(world, tmp_path):
    # Bug: what a folder leaves out went to the hook unguarded: serve() raised, nothing served
    rc, err, rest = _serve_a_folder_with_a_bad_file(world, tmp_path, None, (
        "def hook(level, message, exc=None):\n"
        "    raise RuntimeError('hook broke')\n"
        "sys.exit(tinymcp.serve({'prompts': [], 'prompt_dirs': [sys.argv[1]]}, log=hook))\n"))
    assert (rc, rest) == (0, b""), err


# --- signals ------------------------------------------------------------------------

@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_signal_while_idle_exits_0_quietly(world, signame):
    server = world.stdio()
    server.initialize()  # answered: the loop is running and the handlers are installed
    rc, err, _ = server.finish(getattr(signal, signame))
    assert rc == 0, err
    assert "Traceback" not in err
    assert "KeyboardInterrupt" not in err
    assert err == ""


# --- broken stdout pipe ---------------------------------------------------------------

def test_host_closing_stdout_ends_quietly_on_the_next_reply(world):
    server = world.stdio()
    server.initialize()
    server.close_stdout()
    server.send(req(2, "ping"))  # the reply hits EPIPE; stdin stays open
    rc, err, _ = server.finish(None)
    assert "Traceback" not in err
    assert "BrokenPipeError" not in err
    assert rc == 0, err


def test_host_closing_stdout_with_a_large_reply_pending_ends_quietly(world):
    server = world.stdio()
    server.initialize()
    # ~900 KB reply (under the 1 MiB max_argument_bytes): far more than a pipe holds, so
    # the server is left waiting to write
    big = "y" * (900 * 1024)
    server.send(req(2, "prompts/get", {"name": "code_review", "arguments": {"code": big}}))
    server.close_stdout()
    rc, err, _ = server.finish(None)
    assert "Traceback" not in err
    assert rc == 0, err


# --- garbage input -------------------------------------------------------------------

def test_garbage_lines_get_32700_with_null_id_and_the_next_request_is_answered(world):
    server = world.stdio()
    server.initialize()
    for garbage in (b"this is not json\n", b'{"jsonrpc": "2.0", "id": 7,\n', b"\xff\xfe\x00\n"):
        server.send_bytes(garbage)
        reply = server.frame()
        assert reply["id"] is None and "id" in reply
        assert reply["error"]["code"] == -32700
        assert reply["jsonrpc"] == "2.0"
    assert server.call(req(2, "ping")) == {"jsonrpc": "2.0", "id": 2, "result": {}}
    rc, err, rest = server.finish(EOF)
    assert (rc, rest) == (0, b""), err


# --- stdin that is not a pipe ----------------------------------------------------------

def test_stdin_redirected_from_a_regular_file_is_served(tmp_path):
    path = tmp_path / "requests.jsonl"
    path.write_bytes(line(initialize()) + line(req(2, "prompts/list")) + line(req(3, "ping")))
    with open(str(path), "rb") as stdin:
        rc, out, err = run(stdin=stdin)
    assert rc == 0, err
    replies = frames(out)
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert "code_review" in {p["name"] for p in replies[1]["result"]["prompts"]}


def test_stdin_from_dev_null_exits_0_without_output():
    rc, out, err = run(stdin=subprocess.DEVNULL)
    assert rc == 0, err
    assert out == ""
    assert err == ""


def _run_on_own_pipes(requests):
    """Serve ``requests`` on pipes whose other copies the test keeps, so the flags the
    server leaves on the shared open file descriptions can be inspected after it exits."""
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    try:
        proc = Proc(stdin=r_in, stdout=w_out)
        try:
            os.write(w_in, requests)  # small: fits in the pipe buffer
            os.close(w_in)
            w_in = None
            rc, err, _ = proc.finish(None)
        finally:
            proc.cleanup()
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
