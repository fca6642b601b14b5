"""Hostile socket peers and signals: none of them affects the other clients of the socket server."""

import os
import signal
import socket
import struct

import pytest

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
