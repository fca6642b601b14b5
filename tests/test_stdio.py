"""The stdio transport in process: what it does with the Server it is given."""

import json
import os

import pytest

from conftest import line, read_to_eof
import tinymcp
from tinymcp import Server
from tinymcp.stdio import serve_stdio

CONFIG = {"prompts": [{"name": "p", "messages": [{"role": "user", "text": "hi"}]}]}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}


def serve_in_process(server, messages, **options):
    """Serve ``messages`` then EOF on a pair of pipes; (exit status, replies)."""
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    os.write(w_in, b"".join(line(m) for m in messages))
    os.close(w_in)
    try:
        rc = serve_stdio(server, in_fd=r_in, out_fd=w_out, **options)
    finally:
        os.close(r_in)
        os.close(w_out)
    try:
        out = read_to_eof(r_out)
    finally:
        os.close(r_out)
    return rc, [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("poll", [True, False])
def test_serving_never_changes_the_server_it_is_given(poll):
    logged = []
    server = Server(CONFIG, list_changed=True)
    rc, replies = serve_in_process(server, [INIT], poll=poll, log=lambda *a: logged.append(a))
    assert rc == 0
    # the blocking loop cannot deliver a change, so it promises none; the server still can
    assert replies[0]["result"]["capabilities"]["prompts"] == {"listChanged": poll}
    assert server.list_changed is True and server.log is None


def test_the_log_option_receives_the_transports_diagnostics():
    logged = []
    server = Server({"prompts": [{"name": "r", "render": lambda a: 1 / 0}]})
    rc, replies = serve_in_process(server, [INIT, {"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
                                                   "params": {"name": "r"}}],
                                   log=lambda level, message, exc=None: logged.append((level, message)))
    assert replies[1]["error"]["code"] == -32603
    assert [level for level, _ in logged] == ["error"]
    assert replies[1]["error"]["data"]["errorId"] in logged[0][1]


def test_serve_refuses_options_it_would_ignore():
    with pytest.raises(TypeError, match=r"page_size configure a Server .* pass them to Server"):
        tinymcp.serve(Server(CONFIG), page_size=5)


def test_stdio_serves_from_a_thread_that_is_not_the_main_one():
    # no signal handlers there (Python allows them on the main thread only): it serves all the same
    import threading
    done = []
    thread = threading.Thread(target=lambda: done.append(serve_in_process(Server(CONFIG), [INIT])))
    thread.start()
    thread.join(20)
    [(rc, replies)] = done
    assert rc == 0 and replies[0]["result"]["protocolVersion"] == "2025-11-25"


# --- alone: stdin read without a poll() first, signals taken inside the read -----------------

PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


def test_alone_serves_what_the_polling_loop_serves():
    messages = [INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"}, PING,
                {"jsonrpc": "2.0", "id": 3, "method": "prompts/get", "params": {"name": "p"}}]
    assert serve_in_process(Server(CONFIG), messages, alone=True) \
        == serve_in_process(Server(CONFIG), messages)


def _pipes():
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    return r_in, w_in, r_out, w_out


def _frames_until(fd, done):
    """Read ``fd`` until ``done(frames)`` (AssertionError when nothing more comes within
    20 s: the server missed what it was sent)."""
    import select
    got = b""
    while True:
        frames = [json.loads(f) for f in got.split(b"\n")[:-1]]
        if done(frames):
            return frames
        assert select.select([fd], [], [], 20)[0], frames
        more = os.read(fd, 65536)
        assert more, frames
        got += more


def _served_file(tmp_path):
    """``(path, source, server)``: a config file of one prompt, alpha, served as --config."""
    from conftest import named_config
    from tinymcp.reload import ConfigFile
    cfg = tmp_path / "prompts.json"
    cfg.write_text(json.dumps(named_config(["alpha"])))
    source = ConfigFile(str(cfg))
    return cfg, source, Server(source.load(), list_changed=True)


def _hup_to_beta(cfg, main):
    """Rewrite the config file with one prompt, beta, and send SIGHUP to thread ``main``."""
    import signal
    from conftest import named_config
    cfg.write_text(json.dumps(named_config(["beta"])))
    signal.pthread_kill(main, signal.SIGHUP)


def _alone_beside(host, server, source, fds):
    """Serve ``fds`` (r_in, w_in, r_out, w_out) alone on this thread while ``host(main,
    ended)`` plays the host on another; ``ended`` is set once serving returned. A host
    that finds the server missed a signal closes w_in, which ends its read, and returns
    True. ``(exit status, what host returned)``; the fds are closed."""
    import threading
    r_in, w_in, r_out, w_out = fds
    ended, missed = threading.Event(), []
    thread = threading.Thread(target=lambda: missed.append(host(threading.main_thread().ident, ended)))
    thread.start()
    try:
        rc = serve_stdio(server, in_fd=r_in, out_fd=w_out, source=source, alone=True)
    finally:
        ended.set()
        thread.join(60)
        for fd in (r_in, r_out, w_out) + (() if missed and missed[0] is True else (w_in,)):
            os.close(fd)
    return rc, missed[0] if missed else None


def test_alone_a_sighup_reaches_the_read_and_a_sigterm_ends_it(tmp_path):
    # Each signal comes while the loop waits to read stdin (or on its way there): the
    # reload is served and told from inside the read, the stop raised out of it.
    import signal
    from conftest import LIST_CHANGED
    cfg, source, server = _served_file(tmp_path)
    fds = _pipes()
    os.write(fds[1], line(INIT))
    seen = []

    def host(main, ended):
        try:
            seen.append(_frames_until(fds[2], lambda f: len(f) == 1))
            _hup_to_beta(cfg, main)
            seen.append(_frames_until(fds[2], lambda f: len(f) == 1))
            signal.pthread_kill(main, signal.SIGTERM)
        except AssertionError as exc:  # (the server missed a signal: end its read with EOF)
            seen.append(exc)
            os.close(fds[1])
            return True

    rc, missed = _alone_beside(host, server, source, fds)
    assert rc == 0 and not missed, seen
    assert seen[0][0]["result"]["capabilities"]["prompts"] == {"listChanged": True}
    assert seen[1] == [LIST_CHANGED]
    assert server.config.prompts.names == ["beta"]


def test_alone_a_stop_that_came_while_a_line_was_served_ends_the_loop_before_the_next_read(
        monkeypatch):
    # (the signal is queued, not taken inside a read: the loop must see it before reading)
    import signal
    from tinymcp import stdio
    r_in, w_in, r_out, w_out = _pipes()
    os.write(w_in, line(INIT))
    take = stdio._Direct._take

    def take_then_stop(self, data):
        served = take(self, data)
        if data and w_in not in closed:
            os.write(w_in, line(PING))  # the next line waits: it must stay unread
            os.close(w_in)
            closed.append(w_in)
            signal.raise_signal(signal.SIGTERM)
        return served

    closed = []
    monkeypatch.setattr(stdio._Direct, "_take", take_then_stop)
    try:
        rc = serve_stdio(Server(CONFIG), in_fd=r_in, out_fd=w_out, alone=True)
        assert os.read(r_in, 65536) == line(PING)
    finally:
        os.close(r_in)
        os.close(w_out)
    try:
        replies = [json.loads(f) for f in read_to_eof(r_out).splitlines()]
    finally:
        os.close(r_out)
    assert rc == 0 and [r["id"] for r in replies] == [1]


def test_alone_a_callable_s_answer_comes_while_stdin_stays_open():
    # (its answer comes through the wake-up pipe: the loop polls from the first callable on)
    import threading
    server = Server({"prompts": [{"name": "r", "render": lambda arguments: "rendered"}]})
    r_in, w_in, r_out, w_out = _pipes()
    got = []

    def host():
        os.write(w_in, line(INIT) + line({"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
                                          "params": {"name": "r"}}))
        try:
            got.append(_frames_until(r_out, lambda f: len(f) == 2))
        except AssertionError as exc:
            got.append(exc)
        os.close(w_in)  # (only now: the answer must not wait for the end of input)

    thread = threading.Thread(target=host)
    thread.start()
    try:
        rc = serve_stdio(server, in_fd=r_in, out_fd=w_out, alone=True)
    finally:
        thread.join(60)
        os.close(r_in)
        os.close(w_out)
        os.close(r_out)
    [frames] = got
    assert rc == 0 and not isinstance(frames, AssertionError), frames
    assert frames[1]["result"]["messages"][0]["content"]["text"] == "rendered"


def test_alone_the_loop_polls_from_the_first_callable_on():
    # While a callable runs, its answer can only come through the wake-up pipe: reading
    # on without a poll() would wait for the host's next line (here, the end of input).
    import threading
    from tinymcp.stdio import _Direct
    release = threading.Event()
    server = Server({"prompts": [{"name": "r", "render": lambda a: release.wait(20) and "ok"}]})
    r_in, w_in, r_out, w_out = _pipes()
    os.write(w_in, line(INIT) + line({"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
                                      "params": {"name": "r"}}))
    os.close(w_in)
    direct = _Direct(server, r_in, w_out, lambda *a: None, alone=True)
    try:
        assert direct._serve_alone() is True  # (still reading: the end of input not reached)
        assert direct.session.busy
    finally:
        release.set()
        direct.close()
        for fd in (r_in, w_out, r_out):
            os.close(fd)


def test_alone_a_signal_that_comes_while_one_is_served_in_the_read_is_served_too(
        tmp_path, monkeypatch):
    # SIGHUP is served inside the read; a SIGTERM comes as its notification is written
    # (queued: none is served inside another) and must still end the read.
    import signal
    from tinymcp import stdio
    cfg, source, server = _served_file(tmp_path)
    flush, fired = stdio._Direct._flush, []

    def flush_then_stop(self, *args):
        flush(self, *args)
        if not fired and server.config.prompts.names == ["beta"]:
            fired.append(True)
            signal.raise_signal(signal.SIGTERM)

    monkeypatch.setattr(stdio._Direct, "_flush", flush_then_stop)
    fds = _pipes()
    os.write(fds[1], line(INIT))

    def host(main, ended):
        _frames_until(fds[2], lambda f: len(f) == 1)
        _hup_to_beta(cfg, main)
        if not ended.wait(20):  # (the stop was missed: end the read with EOF)
            os.close(fds[1])
            return True

    rc, missed = _alone_beside(host, server, source, fds)
    assert rc == 0 and fired and not missed
