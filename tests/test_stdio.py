"""The stdio transport in process: what it does with the Server it is given."""

import contextlib
import json
import os

import pytest

from conftest import line, read_to_eof
from transport_helpers import GUARD
import tinymcp
from tinymcp import Server
from tinymcp.io.stdio import serve_stdio

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


def test_stdin_and_stdout_on_one_socket_get_their_blocking_mode_back():
    # (under inetd or socat, fds 0 and 1 are one open socket: stdout's record, taken after
    # stdin's change, was put back last, and left it non-blocking: a later writer got EAGAIN)
    import socket
    ours, peer = socket.socketpair()
    out_fd = os.dup(ours.fileno())
    try:
        peer.sendall(line(INIT))
        peer.shutdown(socket.SHUT_WR)
        assert serve_stdio(Server(CONFIG), in_fd=ours.fileno(), out_fd=out_fd) == 0
        assert os.get_blocking(ours.fileno()) and os.get_blocking(out_fd)
    finally:
        os.close(out_fd)
        ours.close()
        peer.close()


def test_serve_refuses_options_it_would_ignore():
    with pytest.raises(TypeError, match=r"page_size configure a Server .* pass them to Server"):
        tinymcp.serve(Server(CONFIG), page_size=5)
    with pytest.raises(TypeError, match=r"log configure a Server .* pass them to Server"):  # (a hook of any shape)
        tinymcp.serve(Server(CONFIG), log=print)


def test_stdio_serves_from_a_thread_that_is_not_the_main_one():
    # no signal handlers there (Python allows them on the main thread only): it serves all the same
    import threading
    done = []
    thread = threading.Thread(target=lambda: done.append(serve_in_process(Server(CONFIG), [INIT])))
    thread.start()
    thread.join(20)
    [(rc, replies)] = done
    assert rc == 0 and replies[0]["result"]["protocolVersion"] == "2025-11-25"


def test_serving_in_process_leaves_signals_fd_1_and_sys_stdout_as_it_found_them():
    # (a library caller goes on after serve returns: Ctrl-C must work again, a later fd that
    # takes the closed wake-up pipe's number must get no "\0" from a signal, and what it
    # prints must reach its own stdout)
    import signal
    import sys
    before_term, before_int = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    before_wakeup = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(before_wakeup)
    before_stdout = sys.stdout
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    try:
        os.write(w_in, line(INIT))
        os.close(w_in)
        assert serve_stdio(Server(CONFIG), in_fd=r_in, out_fd=w_out) == 0
        assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == (before_term, before_int)
        wakeup = signal.set_wakeup_fd(-1)
        signal.set_wakeup_fd(wakeup)
        assert wakeup == before_wakeup
        assert sys.stdout is before_stdout
        os.write(w_out, b"after\n")  # (the fd served on writes where it did before)
        os.close(w_out)
        w_out = None
        assert read_to_eof(r_out).endswith(b"}\nafter\n")
    finally:
        sys.stdout = before_stdout
        for fd in (r_in, r_out, w_out):
            if fd is not None:
                os.close(fd)


@contextlib.contextmanager
def _serving_a_socket_peer_a_big_reply():
    """stdio on one end of a socket pair (stdin and stdout a socket, as under inetd or socat),
    in a thread, the other end having sent initialize and the get of a 1 MB prompt:
    ``(server, peer, done, thread)``; ``done`` gets what ``serve_stdio`` returns."""
    import socket
    import threading
    ours, peer = socket.socketpair()
    out_fd = os.dup(ours.fileno())
    server = Server({"prompts": [{"name": "big", "messages": [{"role": "user", "text": "z" * 1000000}]}]})
    done = []
    thread = threading.Thread(target=lambda: done.append(serve_stdio(
        server, in_fd=ours.fileno(), out_fd=out_fd, log=lambda *a: None)), daemon=True)
    try:
        peer.sendall(line(INIT) + line({"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
                                        "params": {"name": "big"}}))
        yield server, peer, done, thread
    finally:
        peer.close()  # (what a blocked write needs to end)
        thread.join(GUARD)
        os.close(out_fd)
        ours.close()


def test_stdio_on_a_socket_that_is_never_read_still_stops_when_told():
    # (made non-blocking like a pipe: a peer that never reads leaves the loop free to stop,
    # not stuck in a write)
    with _serving_a_socket_peer_a_big_reply() as (server, peer, done, thread):
        thread.start()
        assert peer.recv(1)  # (its output has begun; the rest is never read)
        server.stop()
        thread.join(GUARD)
        assert done == [0]


def test_stdio_on_a_socket_whose_peer_half_closes_without_reading_ends_after_the_drain_bound():
    # Bug: a paused pump watched its input for POLLHUP alone, which a socket's half-close
    # (SHUT_WR) never raises: the drain bound never began, and the server waited for ever
    import socket
    with _serving_a_socket_peer_a_big_reply() as (server, peer, done, thread):
        peer.shutdown(socket.SHUT_WR)  # (its stdin ended, as socat does at EOF)
        thread.start()
        thread.join(GUARD)  # (the bound is DRAIN_SECONDS, 2 s)
        assert done == [0]
