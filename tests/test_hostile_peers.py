"""Hostile socket peers and signals: none of them affects the other clients of the socket server."""

import os
import select
import signal
import socket
import struct

import pytest

pytest.importorskip("tinymcp.socket", reason="a copy without socket/")

from conftest import initialize, line, named_config, req

NAMES = ["alpha", "beta"]


@pytest.fixture
def served(world):
    path, proc = world.socket_server(named_config(NAMES, text="{topic} " + "z" * 2000))
    return world, path, proc


def _peer(path):
    """A raw connection to the server at ``path``."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def _steady_client(world, path):
    client = world.client(path)
    assert client.initialize()["protocolVersion"]
    return client


def _ends_cleanly(proc):
    rc, err, out = proc.finish()
    assert rc == 0 and "Traceback" not in err, err


def _still_served(client, rid):
    reply = client.call(req(rid, "prompts/get", {"name": "alpha", "arguments": {"topic": "ok"}}))
    assert reply["result"]["messages"][0]["content"]["text"].startswith("ok ")


def test_a_flood_of_connects_and_disconnects_affects_no_one(served):
    world, path, proc = served
    steady = _steady_client(world, path)
    for i in range(300):
        s = _peer(path)
        if i % 3 == 0:
            s.sendall(line(initialize()))  # a request it never waits for
        elif i % 3 == 1:
            s.sendall(b'{"jsonrpc":"2.0","id":1,"meth')  # half a line
        s.close()
    _still_served(steady, 10)
    _ends_cleanly(proc)


def test_a_peer_that_vanishes_mid_response_affects_no_one(served):
    world, path, proc = served
    steady = _steady_client(world, path)
    for i in range(20):
        s = _peer(path)
        # many large replies queued, then the peer resets the connection unread (RST on
        # close with unread data: the server's writes get EPIPE/ECONNRESET)
        s.sendall(line(initialize()) + b"".join(
            line(req(n, "prompts/get", {"name": "beta", "arguments": {"topic": "t"}})) for n in range(200)))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
        _still_served(steady, 100 + i)
    _ends_cleanly(proc)


def test_signals_during_select_do_not_disturb_serving(served):
    world, path, proc = served
    steady = _steady_client(world, path)
    for i in range(20):
        # SIGWINCH and SIGCHLD are ignored by default, SIGHUP reloads (the file is
        # unchanged): each interrupts the loop's select (EINTR), which must just go on
        for signum in (signal.SIGWINCH, signal.SIGCHLD, signal.SIGHUP):
            os.kill(proc.proc.pid, signum)
        _still_served(steady, 200 + i)
    _ends_cleanly(proc)


def test_a_client_pipelining_slow_requests_does_not_hold_the_others_back(world):
    # 400 completions that each scan 20,000 values (some milliseconds each) in one read:
    # served in turns, so another client's ping is answered long before the last of them.
    # Without turns the whole read is served first, and every reply reaches A before B's.
    values = ["v%05d" % i for i in range(20000)]
    path, proc = world.socket_server({"prompts": [{"name": "c", "arguments": [
        {"name": "x", "completions": values}], "messages": [{"role": "user", "text": "{x}"}]}]})
    a, b = _steady_client(world, path), _steady_client(world, path)
    count = 400
    burst = b"".join(line(req(n, "completion/complete", {"ref": {"type": "ref/prompt", "name": "c"},
                                                        "argument": {"name": "x", "value": "zz"}}))
                     for n in range(count))
    assert len(burst) <= 65536  # one read of the server's
    a.send_bytes(burst)
    b.send(req(1, "ping"))
    seen_by_a = 0
    while True:
        # A first whenever both are readable: A's replies written before B's are counted
        ready = select.select([a.sock, b.sock], [], [], 30)[0]
        assert ready, "no reply within 30 s"
        if a.sock in ready:
            a.lines.read()
            while b"\n" in a.lines.buf:
                assert a.frame()["result"]["completion"]["values"] == []
                seen_by_a += 1
        if b.sock in ready:
            assert b.frame() == {"jsonrpc": "2.0", "id": 1, "result": {}}
            break
    assert seen_by_a < count // 2  # (about one turn's worth: ~20 ms of them)
    while seen_by_a < count:  # and A gets every reply
        assert a.frame()["result"]["completion"]["values"] == []
        seen_by_a += 1
    _ends_cleanly(proc)
