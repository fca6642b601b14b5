"""Live prompt changes (issue 5): --watch, SIGHUP and the Python API reach every session
that was promised notifications, on the socket and on stdio; invalid configs change
nothing; listChanged is true exactly when a change source exists.

Every wait is for a frame or a stderr line, with ``GUARD`` only as a failure guard. No
test asserts a time: how soon a session is told ("within a second") is a figure of
scripts/bench_socket.py; here, that it is told, once, in the right form.
"""

import contextlib
import json
import os
import signal
import subprocess
import threading

import pytest

from transport_helpers import (GUARD, META_SUB, World, config, initialize, line, modern, req,
                               write_config)

HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "e2e_helpers",
                      "replace_server.py")
LIST_CHANGED = {"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"}


def stream_changed(rid):
    return {"jsonrpc": "2.0", "method": "notifications/prompts/list_changed",
            "params": {"_meta": {META_SUB: rid}}}


@pytest.fixture
def world():
    w = World()
    yield w
    w.cleanup()


def names(reply):
    return [p["name"] for p in reply["result"]["prompts"]]


def _socket_server(world, *extra):
    cfg = world.config_file(config(["alpha", "beta"]))
    path = world.path("s")
    proc = world.server("--config", cfg, "--socket", path, *extra)
    return cfg, path, proc


def _sessions(world, path):
    """An initialized legacy session, a listen stream, and a session never initialized."""
    legacy = world.client(path)
    assert legacy.initialize()["capabilities"]["prompts"] == {"listChanged": True}
    stream = world.client(path)
    ack = stream.listen(rid=7)
    assert ack["params"]["notifications"] == {"promptsListChanged": True}
    fresh = world.client(path)
    assert fresh.call(req(1, "ping"))["result"] == {}
    return legacy, stream, fresh


def _assert_told(legacy, stream):
    assert legacy.frame() == LIST_CHANGED
    assert stream.frame() == stream_changed(7)


@pytest.mark.parametrize("atomic", [True, False], ids=["rename", "in-place"])
def test_watch_rewrite_reaches_legacy_sessions_and_listen_streams(world, atomic):
    cfg, path, proc = _socket_server(world, "--watch")
    legacy, stream, fresh = _sessions(world, path)
    write_config(cfg, config(["alpha", "beta", "delta"]), atomic=atomic)
    _assert_told(legacy, stream)
    assert names(legacy.call(req(2, "prompts/list"))) == ["alpha", "beta", "delta"]
    assert names(stream.call(modern(8, "prompts/list"))) == ["alpha", "beta", "delta"]
    # never initialized: promised nothing, told nothing (the ping reply is its next frame)
    assert fresh.call(req(2, "ping")) == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert fresh.lines.buf == b""
    proc.wait_stderr("notified 2 sessions")


def test_sighup_reloads_on_demand_and_notifies(world):
    cfg, path, proc = _socket_server(world)
    legacy, stream, _ = _sessions(world, path)
    write_config(cfg, config(["gamma"]))
    proc.kill(signal.SIGHUP)
    _assert_told(legacy, stream)
    assert names(legacy.call(req(2, "prompts/list"))) == ["gamma"]
    proc.wait_stderr("reloaded %s (SIGHUP)" % cfg)


@pytest.mark.parametrize("bad, problem", [
    ("{", "invalid JSON"),
    ('{"prompts": []' + ', "x": ' + "[" * 100000 + "]" * 100000 + "}", "nested too deeply"),
    (json.dumps({"prompts": [{"name": 3, "messages": []}]}), "prompts[0].name"),
], ids=["not-json", "too-deep", "bad-name"])
def test_an_invalid_rewrite_keeps_the_old_prompts_and_is_logged_to_stderr_and_sessions(
        world, bad, problem):
    cfg, path, proc = _socket_server(world)
    legacy, stream, _ = _sessions(world, path)
    assert legacy.call(req(2, "logging/setLevel", {"level": "error"}))["result"] == {}
    write_config(cfg, bad)
    proc.kill(signal.SIGHUP)
    proc.wait_stderr("invalid config %s (SIGHUP): still serving the previous prompts" % cfg)
    proc.wait_stderr(problem)
    message = legacy.frame()
    assert message["method"] == "notifications/message"
    assert message["params"]["level"] == "error"
    assert message["params"]["logger"] == "tinymcp"
    data = message["params"]["data"]
    assert data["message"].startswith("invalid config %s" % cfg)
    assert any(problem in p["path"] + p["message"] for p in data["problems"]), data
    # nothing changed: no list_changed before the listings, and the old prompts listed
    legacy.send(req(3, "prompts/list"))
    replies = legacy.lines.until(lambda m: m.get("id") == 3)
    assert len(replies) == 1 and names(replies[0]) == ["alpha", "beta"]
    reply = stream.call(modern(8, "prompts/list"))
    assert names(reply) == ["alpha", "beta"]
    assert stream.lines.buf == b""
    # a later valid file is taken
    write_config(cfg, config(["omega"]))
    proc.kill(signal.SIGHUP)
    assert legacy.frame() == LIST_CHANGED
    assert stream.frame() == stream_changed(7)


def test_an_invalid_watched_rewrite_keeps_the_old_prompts(world):
    cfg, path, proc = _socket_server(world, "--watch")
    legacy = world.client(path)
    legacy.initialize()
    write_config(cfg, "not json at all")
    proc.wait_stderr("invalid config %s (changed): still serving the previous prompts" % cfg)
    legacy.send(req(2, "prompts/list"))
    replies = legacy.lines.until(lambda m: m.get("id") == 2)
    assert len(replies) == 1 and names(replies[0]) == ["alpha", "beta"]


def test_a_reload_that_changes_nothing_notifies_no_one(world):
    cfg, path, proc = _socket_server(world)
    legacy, stream, _ = _sessions(world, path)
    write_config(cfg, config(["alpha", "beta"]))  # same content, new file
    proc.kill(signal.SIGHUP)
    proc.wait_stderr("is unchanged: nothing to reload")
    assert legacy.call(req(2, "ping")) == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert legacy.lines.buf == b""
    reply = stream.call(modern(8, "prompts/list"))
    assert names(reply) == ["alpha", "beta"] and stream.lines.buf == b""


def test_without_a_config_file_list_changed_is_false_and_sighup_changes_nothing(world):
    path = world.path("s")
    proc = world.server("--socket", path)
    c = world.client(path)
    assert c.initialize()["capabilities"]["prompts"] == {"listChanged": False}
    ack = world.client(path).listen(rid=3)
    assert ack["params"]["notifications"] == {}  # nothing we could honour
    proc.kill(signal.SIGHUP)
    proc.wait_stderr("SIGHUP: no config file to reload")
    assert c.call(req(2, "ping"))["result"] == {}
    rc, err, _ = proc.finish()
    assert rc == 0, err


def test_watch_needs_a_config_file_usage_error_2(world):
    proc = world.server("--watch")
    rc, err, out = proc.finish(None)
    assert rc == 2
    assert err.startswith("tinymcp: --watch needs --config FILE\n")


# --- stdio -----------------------------------------------------------------------------------

def _stdio(world, *extra):
    cfg = world.config_file(config(["alpha"]))
    proc = world.server("--config", cfg, *extra, stdin=subprocess.PIPE)
    reply = proc.call(initialize())
    assert reply["result"]["capabilities"]["prompts"] == {"listChanged": True}
    proc.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return cfg, proc


def test_stdio_watch_tells_the_client(world):
    cfg, proc = _stdio(world, "--watch")
    write_config(cfg, config(["alpha", "zeta"]))
    assert proc.frame() == LIST_CHANGED
    assert names(proc.call(req(2, "prompts/list"))) == ["alpha", "zeta"]
    proc.proc.stdin.close()
    rc, err, out = proc.finish(None)
    assert (rc, out) == (0, b""), err


def test_stdio_sighup_tells_the_client(world):
    cfg, proc = _stdio(world)
    write_config(cfg, config(["eta"]))
    proc.kill(signal.SIGHUP)
    assert proc.frame() == LIST_CHANGED
    assert names(proc.call(req(2, "prompts/list"))) == ["eta"]
    rc, err, _ = proc.finish()
    assert rc == 0, err


def test_python_api_replace_from_another_thread_reaches_a_running_session(world):
    proc = world.server(script=HELPER, stdin=subprocess.PIPE)
    reply = proc.call(initialize())
    assert reply["result"]["capabilities"]["prompts"] == {"listChanged": True}
    proc.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert proc.call(req(2, "prompts/get", {"name": "swap"}))["result"]["messages"]
    assert proc.frame() == LIST_CHANGED
    assert names(proc.call(req(3, "prompts/list"))) == ["fresh"]
    proc.wait_stderr("worker: invalid config refused")
    rc, err, out = proc.finish()
    assert rc == 0, err


# --- in process: the hub -----------------------------------------------------------------------

@contextlib.contextmanager
def piped_hub(names):
    """A server with list_changed, its loop and hub, one pump between two pipes:
    yields (server, loop, hub, write_to_server, read_from_server)."""
    from tinymcp import Server
    from tinymcp.loop import Loop
    from tinymcp.pump import Hub, StreamPump
    server = Server(config(names), list_changed=True)
    loop = Loop()
    hub = Hub(loop, server)
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    try:
        hub.add(StreamPump(loop, server.session(), r_in, w_out, hub.discard))
        yield server, loop, hub, w_in, r_out
    finally:
        hub.close()
        loop.close()
        for fd in (r_in, w_in, r_out, w_out):
            os.close(fd)


def _read_lines(loop, fd, count):
    got = b""
    while got.count(b"\n") < count:
        loop.run_once(GUARD)
        got += os.read(fd, 65536)
    return got


def test_replace_config_from_a_thread_is_applied_by_the_loop_and_notifies():
    from tinymcp import ConfigError
    with piped_hub(["one"]) as (server, loop, hub, w_in, r_out):
        os.write(w_in, line(initialize()))
        _read_lines(loop, r_out, 1)
        thread_error = []

        def worker():
            try:
                server.replace_config({"prompts": 5})
            except ConfigError as exc:
                thread_error.append(exc)
            server.replace_config(config(["two"]))

        t = threading.Thread(target=worker)
        t.start()
        t.join(GUARD)
        assert thread_error and names_of(server) == ["one"]  # not applied off the loop
        loop.run_once(GUARD)
        assert names_of(server) == ["two"]
        assert json.loads(os.read(r_out, 65536)) == LIST_CHANGED
    # with no loop left, a replace is applied at once
    server.replace_config(config(["three"]))
    assert names_of(server) == ["three"]


def test_a_real_change_is_logged_to_sessions_that_set_a_level():
    with piped_hub(["one"]) as (server, loop, hub, w_in, r_out):
        os.write(w_in, line(initialize()) + line(req(2, "logging/setLevel", {"level": "notice"})))
        _read_lines(loop, r_out, 2)
        hub.apply(server._load(config(["two"])))
        loop.run_once(0)
        notes = [json.loads(x) for x in os.read(r_out, 65536).split(b"\n") if x]
        assert notes[0] == LIST_CHANGED
        assert notes[1]["method"] == "notifications/message"
        assert notes[1]["params"]["level"] == "notice" and notes[1]["params"]["data"]["prompts"] == 1


def names_of(server):
    return list(server.config.prompts.names)


def test_replace_config_with_the_same_prompts_notifies_no_one():
    # Bug: only reload.py compared old and new (as file bytes), so
    # server.replace_config(same_config) from Python told every session of a change.
    # The server decides, whatever the source: the prompts, not the bytes or the rest.
    with piped_hub(["one"]) as (server, loop, hub, w_in, r_out):
        os.write(w_in, line(initialize()) + line(req(2, "logging/setLevel", {"level": "info"})))
        _read_lines(loop, r_out, 2)
        same = config(["one"])
        same.update(ttl_ms=5, server={"title": "another title"})
        server.replace_config(config(["one"]))
        server.replace_config(same)
        loop.run_once(0)
        assert server.config.ttl_ms == 5  # applied all the same
        server.replace_config(config(["one", "two"]))
        loop.run_once(0)
        notes = [json.loads(x) for x in os.read(r_out, 65536).split(b"\n") if x]
        assert notes[0] == LIST_CHANGED and len(notes) == 2  # (the second: the logged reload)
        assert notes[1]["params"]["data"] == {"message": "prompts reloaded", "prompts": 2}


def test_apply_config_says_whether_the_prompts_changed():
    from tinymcp import Server, load_config
    server = Server(config(["a", "b"]))
    assert server.apply_config(load_config(config(["a", "b"]))) is False
    assert server.apply_config(load_config(config(["a", "b"], text="other {topic}"))) is True
    assert server.apply_config(load_config(config(["a"], text="other {topic}"))) is True
    render = lambda arguments: "x"  # noqa: E731
    server.apply_config(load_config({"prompts": [{"name": "r", "render": render}]}))
    assert server.apply_config(load_config({"prompts": [{"name": "r", "render": render}]})) is False
    assert server.apply_config(load_config({"prompts": [{"name": "r", "render": lambda a: "x"}]})) is True
