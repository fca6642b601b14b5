"""Faults from the machine around the process: standard descriptors closed at start, a
config file swapped for something that is not a file, a reload that fails in any way.

Each test injects the fault and checks that the rules still hold: stdout carries frames
only, the server answers and goes on, the old prompts stay when a reload fails.
"""

import importlib
import json
import os
import signal
import subprocess
import sys

import pytest

from conftest import INITIALIZED, PACKAGE, initialize, named_config, req
from transport_helpers import EOF, GUARD, env, frames, write_config

reload = importlib.import_module(PACKAGE + ".source")


def _run_with(redirection, stdin, program="-m " + PACKAGE):
    """Run ``python -m tinymcp`` (or ``program``: a script's path) from a shell with ``redirection``
    applied; (rc, out, err)."""
    done = subprocess.run(["sh", "-c", 'exec "$0" %s %s' % (program, redirection), sys.executable],
                          input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(),
                          timeout=GUARD)
    return done.returncode, done.stdout, done.stderr


REQUESTS = (json.dumps(initialize()) + "\n" + json.dumps(INITIALIZED) + "\n"
            + json.dumps(req(2, "prompts/list")) + "\n").encode()


def test_stderr_closed_at_start_the_protocol_stream_stays_clean():
    rc, out, err = _run_with("2>&-", REQUESTS)
    assert rc == 0
    replies = frames(out)
    assert [r["id"] for r in replies] == [1, 2]
    assert replies[1]["result"]["prompts"]


def test_stderr_closed_with_an_invalid_config_still_exits_1_quietly(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    rc, out, _ = _run_with("--config %s --check 2>&-" % bad, b"")
    assert (rc, out) == (1, b"")


@pytest.mark.needs("files")
@pytest.mark.parametrize("redirection", ["2>&-", "2</dev/null"])
def test_stderr_closed_or_unwritable_while_a_start_warns_still_serves(tmp_path, redirection):
    # (an empty folder is warned of before serving: that line must not end the server)
    rc, out, _ = _run_with("--prompts %s %s" % (tmp_path, redirection), REQUESTS)
    assert rc == 0
    assert [r["id"] for r in frames(out)] == [1, 2]


@pytest.mark.needs("files")
def test_a_start_that_warns_more_than_a_full_stderr_takes_still_serves(tmp_path):
    for i in range(1500):  # (well past what a pipe holds: 64 KiB)
        (tmp_path / ("bad%04d.md" % i)).write_text("---\ndescription: [\n---\nx\n")
    r, w = os.pipe()  # (a stderr nobody reads)
    try:
        done = subprocess.run([sys.executable, "-m", PACKAGE, "--prompts", str(tmp_path)], input=REQUESTS,
                              stdout=subprocess.PIPE, stderr=w, env=env(), timeout=GUARD)
    finally:
        os.close(w)
        os.close(r)
    assert done.returncode == 0
    assert [r["id"] for r in frames(done.stdout)] == [1, 2]


def test_stdout_closed_at_start_serves_into_nothing_and_exits_0():
    rc, out, err = _run_with("1>&-", REQUESTS)
    assert rc == 0
    assert b"Traceback" not in err


#: ``tinymcp.serve`` from a program: a prompt whose render writes to fd 1 and sys.stdout
NOISY = ("import importlib, os, sys\n"
         "tinymcp = importlib.import_module(os.environ.get('TINYMCP_PACKAGE') or 'tinymcp')\n"
         "def render(arguments):\n"
         "    os.write(1, b'JUNK by os.write\\n')\n"
         "    print('JUNK by print')\n"
         "    return 'done'\n"
         "sys.exit(tinymcp.serve({'prompts': [{'name': 'noisy', 'render': render}]}))\n")


@pytest.mark.parametrize("redirection", ["2>&-", "1>&-", "0<&- 2>&-"])
def test_serve_from_a_program_started_with_std_fds_closed_keeps_the_wire_clean(tmp_path, redirection):
    # Bug: with fd 2 closed, the wire's copy of fd 1 took it, and what a render wrote to fd 1
    # went out between the replies; with fd 1 closed, serve() ended in an AttributeError
    script = tmp_path / "noisy.py"
    script.write_text(NOISY)
    stdin = REQUESTS + (json.dumps(req(3, "prompts/get", {"name": "noisy"})) + "\n").encode()
    rc, out, err = _run_with(redirection, stdin, program=str(script))
    assert rc == 0, err
    if "1>&-" not in redirection:
        assert [r["id"] for r in frames(out)] == ([] if "0<&-" in redirection else [1, 2, 3])
    assert b"JUNK" not in out and b"Traceback" not in err


def test_a_callables_child_process_has_the_std_fd_the_program_was_started_without(tmp_path):
    # (the /dev/null put in a closed fd 2's place was not inheritable: a child started with it closed,
    # where the next file it opened became its stderr)
    script = tmp_path / "child.py"
    script.write_text("import importlib, os, subprocess, sys\n"
                      "tinymcp = importlib.import_module(os.environ.get('TINYMCP_PACKAGE') or 'tinymcp')\n"
                      "def render(arguments):\n"
                      "    return 'child: %d' % subprocess.call([sys.executable, '-c', 'import os; os.fstat(2)'])\n"
                      "sys.exit(tinymcp.serve({'prompts': [{'name': 'p', 'render': render}]}))\n")
    stdin = REQUESTS + (json.dumps(req(3, "prompts/get", {"name": "p"})) + "\n").encode()
    rc, out, err = _run_with("2>&-", stdin, program=str(script))
    assert rc == 0 and frames(out)[-1]["result"]["messages"][0]["content"]["text"] == "child: 0"


def test_serve_keeps_a_programs_own_stderr_where_fd_2_was_closed(tmp_path):
    # (its log lines go there, and it is still the program's after serve() returns)
    script, written = tmp_path / "own_stderr.py", tmp_path / "written"
    script.write_text("import importlib, os, sys\n"
                      "tinymcp = importlib.import_module(os.environ.get('TINYMCP_PACKAGE') or 'tinymcp')\n"
                      "class Writer:\n"
                      "    def write(self, text):\n"
                      "        with open(%r, 'a') as f:\n"
                      "            f.write(text)\n"
                      "    def flush(self):\n"
                      "        pass\n"
                      "sys.stderr = own = Writer()\n"
                      "def render(arguments):\n"
                      "    raise RuntimeError('logged')\n"
                      "rc = tinymcp.serve({'prompts': [{'name': 'p', 'render': render}]})\n"
                      "sys.exit(rc if sys.stderr is own else 3)\n" % str(written))
    stdin = REQUESTS + (json.dumps(req(3, "prompts/get", {"name": "p"})) + "\n").encode()
    rc, out, err = _run_with("2>&-", stdin, program=str(script))
    assert rc == 0 and frames(out)[-1]["error"]["code"] == -32603
    assert "internal error" in written.read_text()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_stdio_at_eof_writes_nothing_when_it_has_nothing_to_write():
    # (a write of nothing tells a socket's closed peer; on a terminal it stopped a background job, and on
    # /dev/full it was logged as a failed write)
    rc, out, err = _run_with("</dev/null >/dev/full", b"")
    assert (rc, err) == (0, b"")


def test_stdin_closed_at_start_is_an_immediate_eof():
    rc, out, err = _run_with("0<&-", b"")
    assert (rc, out) == (0, b""), err


# --- a config swapped for what is not a regular file ----------------------------------------

def _watched(world):
    cfg = world.config_file(named_config(["alpha"]))
    proc = world.stdio("--config", cfg, "--watch")
    assert proc.call(initialize())["result"]["capabilities"]["prompts"] == {"listChanged": True}
    proc.send(INITIALIZED)
    return cfg, proc


def _still_serving(proc, rid):
    names = [p["name"] for p in proc.call(req(rid, "prompts/list"))["result"]["prompts"]]
    assert names == ["alpha"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_config_swapped_for_a_fifo_never_blocks_the_loop(world):
    cfg, proc = _watched(world)
    os.remove(cfg)
    os.mkfifo(cfg)  # (nobody ever writes to it: an open() that blocked would hang the server)
    proc.wait_stderr("%s: cannot read: not a regular file" % cfg)
    _still_serving(proc, 2)
    rc, err, out = proc.finish(EOF)
    assert (rc, out) == (0, b""), err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_config_swapped_for_a_device_is_refused_unread(world):
    cfg, proc = _watched(world)
    os.remove(cfg)
    os.symlink("/dev/zero", cfg)
    proc.wait_stderr("%s: cannot read: not a regular file" % cfg)
    _still_serving(proc, 2)
    proc.kill(signal.SIGHUP)
    proc.wait_stderr("(SIGHUP): still serving the previous prompts")
    rc, err, out = proc.finish(EOF)
    assert (rc, out) == (0, b""), err


def test_an_oversized_config_is_refused_before_it_is_read(tmp_path, monkeypatch):
    cfg = tmp_path / "c.json"
    write_config(str(cfg), named_config(["alpha"]))
    monkeypatch.setattr(reload, "MAX_CONFIG_BYTES", 10)
    with pytest.raises(Exception) as info:
        reload.ConfigFile(str(cfg)).load()
    assert str(info.value) == "%s: cannot read: %d bytes, over the 10-byte limit" % (
        cfg, cfg.stat().st_size)


class _Server:
    def __init__(self):
        self.replaced = []

    def replace_config(self, config):
        self.replaced.append(config)


def test_any_failure_of_a_reload_keeps_the_old_prompts_and_is_logged(tmp_path, monkeypatch):
    cfg = tmp_path / "c.json"
    write_config(str(cfg), named_config(["alpha"]))
    source = reload.ConfigFile(str(cfg))
    source.load()
    logged = []
    source.server, source.log = _Server(), lambda level, message, exc=None: logged.append((level, message))
    write_config(str(cfg), named_config(["beta"]))

    def exhausted(path, data):
        raise MemoryError("no room")
    monkeypatch.setattr(reload, "parse_config", exhausted)
    assert source.reload("changed") is False
    assert source.server.replaced == []
    assert logged == [("error", "invalid config %s (changed): still serving the previous prompts\n"
                                "  MemoryError: no room" % cfg)]


def test_a_file_made_readable_again_is_seen_as_changed(tmp_path):
    path = tmp_path / "c.json"
    path.write_text("{}")
    before = reload.stat_of(str(path))
    os.chmod(str(path), 0)
    try:
        assert reload.stat_of(str(path)) != before  # (mode is part of what tells a change)
    finally:
        os.chmod(str(path), 0o644)


# --- EOF with stdout never read ------------------------------------------------------------------

def test_eof_with_stdout_unread_ends_after_a_bounded_flush(tmp_path):
    cfg = tmp_path / "c.json"
    write_config(str(cfg), named_config(["p%d" % i for i in range(20)]))
    lines = REQUESTS + b"".join((json.dumps(req(10 + i, "prompts/list")) + "\n").encode()
                                for i in range(800))
    assert len(lines) < 60000  # (all of it fits in the pipe: the write never waits for the server)
    proc = subprocess.Popen([sys.executable, "-m", PACKAGE, "--config", str(cfg)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
    try:
        proc.stdin.write(lines)
        proc.stdin.close()  # EOF; stdout is never read, and fills with the ~1 MB of replies
        assert proc.wait(timeout=GUARD) == 0
        assert b"closed: none of the output read for 2 s after the end of input" in proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()


# --- stderr that nobody drains ----------------------------------------------------------------------

pump = importlib.import_module(PACKAGE + ".io.log")


@pytest.mark.skipif(not hasattr(__import__("select"), "poll"), reason="no poll() here")
def test_log_lines_never_block_on_a_full_stderr_and_drops_are_counted(monkeypatch):
    import re
    r, w = os.pipe()
    err = os.fdopen(w, "w")
    monkeypatch.setattr(sys, "__stderr__", err)
    monkeypatch.setattr(pump, "_STDERR", [])  # (the log's writer is made anew, on this stderr)
    try:
        os.set_blocking(w, True)  # (a host's pipe: blocking, as stderr is)
        for _ in range(200):  # ~200 KB into a 64 KiB pipe that nobody reads: never blocks
            pump.stderr_log("info", "x" * 1000)
        os.set_blocking(r, False)
        got = b""
        for _ in range(10000):  # the reader catches up; the next line flushes what waited, then the count
            try:
                chunk = os.read(r, 1 << 16)
            except BlockingIOError:
                if b"dropped" in got:
                    break
                pump.stderr_log("info", "next")
                continue
            got += chunk
        told = re.search(rb"\ntinymcp: warning: (\d+) log lines dropped while stderr was full\n", got)
        assert told and got.count(b"x" * 1000 + b"\n") + int(told.group(1)) == 200  # each line: taken or counted
    finally:
        err.close()
        os.close(r)


def test_the_stderr_log_never_raises_whatever_stands_for_stderr(monkeypatch):
    # Bug: fd 2 closed, and sys.stderr a program's object that writes without flush(): the first
    # line logged (a callable over its time) ended the serving loop, its requests unanswered
    class Writer:
        def write(self, text):
            pass

    monkeypatch.setattr(sys, "__stderr__", None)
    monkeypatch.setattr(sys, "stderr", Writer())
    monkeypatch.setattr(pump, "_STDERR", [pump._Stderr()])
    pump.stderr_log("warning", "a callable ran over 1 s (max_callable_ms)")


def test_tracebacks_are_throttled_but_every_failure_keeps_its_line(monkeypatch):
    import io
    captured = io.StringIO()
    monkeypatch.setattr(sys, "__stderr__", captured)
    monkeypatch.setattr(pump, "_STDERR", [pump._Stderr()])
    try:
        raise ValueError("boom")
    except ValueError as exc:
        for i in range(pump.TRACEBACK_BURST + 5):
            pump.stderr_log("error", "render failed %d" % i, exc)
    text = captured.getvalue()
    assert text.count("Traceback (most recent call last)") == pump.TRACEBACK_BURST
    assert all("render failed %d\n" % i in text for i in range(pump.TRACEBACK_BURST + 5))


# --- the process stopped, killed, flooded with signals, out of descriptors ---------------------

@pytest.mark.needs("socket")
def test_kill_9_then_a_restart_on_the_same_socket_path_serves_again(world):
    path, proc = world.socket_server(named_config(["alpha"]))
    assert world.client(path).call(req(1, "ping"))["result"] == {}
    proc.kill(signal.SIGKILL)
    proc.proc.wait(timeout=GUARD)
    again = world.server("--socket", path)
    assert "removed a stale socket at %s" % path in again.stderr
    assert world.client(path).call(req(1, "ping"))["result"] == {}


@pytest.mark.needs("socket")
def test_sigstop_then_sigcont_loses_nothing(world):
    path, proc = world.socket_server(named_config(["alpha"]))
    client = world.client(path)
    client.initialize()
    proc.kill(signal.SIGSTOP)
    try:
        client.send(*[req(i, "prompts/list") for i in range(2, 12)])  # (read after SIGCONT)
    finally:
        proc.kill(signal.SIGCONT)
    assert [client.frame()["id"] for _ in range(10)] == list(range(2, 12))


def test_a_sighup_storm_under_load_leaves_every_request_answered(world):
    cfg = world.config_file(named_config(["alpha"]))
    proc = world.stdio("--config", cfg)
    proc.call(initialize())
    proc.send(INITIALIZED)
    for i in range(300):
        proc.kill(signal.SIGHUP)
        proc.send(req(10 + i, "prompts/list"))
    got = [proc.frame()["id"] for _ in range(300)]
    assert got == list(range(10, 310))
    rc, err, out = proc.finish(EOF)
    assert (rc, out) == (0, b""), err


@pytest.mark.needs("socket")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_NOFILE as on Linux")
def test_out_of_descriptors_while_accepting_waits_and_serves_the_backlog_later(world):
    import resource

    def few_fds():
        resource.setrlimit(resource.RLIMIT_NOFILE, (24, 24))

    path = world.path("s")
    world.config_file(named_config(["alpha"]))
    proc = world.server("--socket", path, preexec_fn=few_fds)
    clients = [world.client(path) for _ in range(30)]  # (the kernel queues what cannot be accepted)
    proc.wait_stderr("cannot accept a connection: Too many open files; retrying in")
    for c in clients[:20]:  # (more than were accepted: room for the rest)
        c.close()
    for i, c in enumerate(clients[20:]):  # accepted once descriptors are free again
        assert c.call(req(i, "ping"))["result"] == {}


def test_every_test_the_fault_table_names_exists():
    import ast
    import re
    from conftest import ROOT
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    named = set(re.findall(r"(test_\w+\.py)::(test_\w+)", text))
    assert len(named) >= 30
    defined = {module: {n.name for n in ast.parse((ROOT / "tests" / module).read_text(encoding="utf-8")).body
                        if isinstance(n, ast.FunctionDef)} for module in {module for module, _ in named}}
    assert sorted("%s::%s" % pair for pair in named if pair[1] not in defined[pair[0]]) == []


def test_the_traceback_throttle_opens_a_new_period_the_moment_the_last_one_ends():
    from tinymcp.io.log import Throttle
    now = [0.0]
    throttle = Throttle(2, 10.0, clock=lambda: now[0])
    assert [throttle.allow() for _ in range(3)] == [True, True, False]
    now[0] = 10.0  # (exactly one period on)
    assert throttle.allow() and throttle.take_dropped() == 1


@pytest.mark.parametrize("count, size", [(70, 1000), (1, 100000)], ids=["lines", "one-long-line"])
def test_what_a_full_stderr_held_back_reaches_it_from_the_serving_loop_with_no_line_after(monkeypatch, count, size):
    # (a server that logs nothing more must still get its last words out once stderr is read;
    # one line is taken whole however long, when none waits: a refused reload lists every problem)
    import time
    loop_module = importlib.import_module(PACKAGE + ".io.loop")
    r, w = os.pipe()
    err = os.fdopen(w, "w")
    monkeypatch.setattr(sys, "__stderr__", err)
    monkeypatch.setattr(pump, "_STDERR", [])
    loop = loop_module.Loop()
    monkeypatch.setattr(loop_module, "SERVING", [loop])  # (as a serving Hub puts it)
    monkeypatch.setattr(pump, "SERVING", loop_module.SERVING)
    try:
        os.set_blocking(w, True)
        for i in range(count):  # more than the 64 KiB pipe nobody reads takes: the rest waits
            pump.stderr_log("info", "%d %s" % (i, "x" * size))
        os.set_blocking(r, False)
        got, deadline = b"", time.monotonic() + GUARD
        while got.count(b"x" * size + b"\n") < count:
            assert time.monotonic() < deadline, "what was held back never reached stderr"
            try:
                got += os.read(r, 1 << 16)
            except BlockingIOError:
                loop.run_once(0.01)
        assert b"dropped" not in got and b"info: %d x" % (count - 1) in got
    finally:
        loop.close()
        err.close()
        os.close(r)
