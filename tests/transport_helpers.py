"""Helpers for the Unix socket and live-reload tests: server subprocesses, socket clients.

Nothing here waits on a clock for synchronisation: every wait is for a reply, a stderr
line, EOF or process exit, and ``GUARD`` is only a failure guard against a hung server.
Servers are the package under test (``conftest.server_command``/``server_env``: the
checkout, or a vendored copy under TINYMCP_VENDORED).
"""

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from conftest import reap, server_command, server_env

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUARD = 20.0
PROTOCOL = "2025-11-25"
MODERN = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_SUB = "io.modelcontextprotocol/subscriptionId"


def env():
    e = server_env()
    for name in ("PYTHONSTARTUP", "PYTHONWARNINGS", "PYTHONINSPECT"):
        e.pop(name, None)
    return e


def short_dir():
    """A fresh directory with a short path (AF_UNIX paths are limited to ~107 bytes)."""
    return tempfile.mkdtemp(prefix="tm", dir="/tmp" if os.path.isdir("/tmp") else None)


def req(rid, method, params=None):
    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def modern(rid, method, params=None):
    params = dict(params or {})
    params["_meta"] = {META_VERSION: MODERN, META_CAPS: {}}
    return req(rid, method, params)


def initialize(rid=1, version=PROTOCOL):
    return req(rid, "initialize", {"protocolVersion": version, "capabilities": {},
                                   "clientInfo": {"name": "t", "version": "0"}})


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def line(msg):
    return json.dumps(msg).encode("utf-8") + b"\n"


def config(names, text="Tell me about {topic}"):
    return {"prompts": [{"name": n, "description": "prompt " + n,
                         "arguments": [{"name": "topic", "required": True}],
                         "messages": [{"role": "user", "text": text}]} for n in names]}


def write_config(path, cfg, atomic=True):
    data = json.dumps(cfg) if not isinstance(cfg, str) else cfg
    if atomic:
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(data)
        os.replace(tmp, path)
    else:
        with open(path, "w") as f:
            f.write(data)


class Lines:
    """Newline-delimited JSON read from an fd with a bounded wait."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = b""
        self.eof = False

    def _fill(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self.fd], [], [], left)[0]:
            return False
        try:
            chunk = os.read(self.fd, 65536)
        except (BlockingIOError, InterruptedError):
            return True
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            self.eof = True
        self.buf += chunk
        return True

    def frame(self, timeout=GUARD):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            if self.eof:
                raise AssertionError("EOF before a full line; got %r" % self.buf[-300:])
            if not self._fill(deadline):
                raise AssertionError("no line within %.1fs; got %r" % (timeout, self.buf[-300:]))
        raw, self.buf = self.buf.split(b"\n", 1)
        return json.loads(raw.decode("utf-8"))

    def until(self, pred, timeout=GUARD):
        """Frames up to and including the first one ``pred`` accepts."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            msg = self.frame(max(deadline - time.monotonic(), 0.0))
            seen.append(msg)
            if pred(msg):
                return seen

    def wait_eof(self, timeout=GUARD):
        """True once the peer has closed (all data before the EOF is kept in ``buf``)."""
        deadline = time.monotonic() + timeout
        while not self.eof:
            if not self._fill(deadline):
                return False
        return True


class Client:
    """One connection to the socket server."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(GUARD)
        self.sock.connect(path)
        self.lines = Lines(self.sock.fileno())
        self.ids = 100

    def send(self, *msgs):
        self.sock.sendall(b"".join(line(m) for m in msgs))

    def send_bytes(self, data):
        self.sock.sendall(data)

    def frame(self, timeout=GUARD):
        return self.lines.frame(timeout)

    def call(self, msg, timeout=GUARD):
        self.send(msg)
        frames = self.lines.until(lambda m: m.get("id") == msg["id"] and "method" not in m,
                                  timeout)
        return frames[-1]

    def initialize(self, version=PROTOCOL):
        reply = self.call(initialize(1, version))
        assert "result" in reply, reply
        self.send(INITIALIZED)
        return reply["result"]

    def listen(self, rid=7):
        self.send(modern(rid, "subscriptions/listen", {"notifications": {"promptsListChanged": True}}))
        ack = self.frame()
        assert ack["method"] == "notifications/subscriptions/acknowledged", ack
        return ack

    def closed(self, timeout=GUARD):
        return self.lines.wait_eof(timeout)

    def close(self):
        self.sock.close()


class Proc:
    """A server subprocess; stderr is collected as it is read (a pipe, read with a bounded wait)."""

    def __init__(self, args, stdin=subprocess.DEVNULL, preexec_fn=None, cwd=REPO, script=None):
        cmd = [sys.executable, script] + list(args) if script else server_command(*args)
        self.proc = subprocess.Popen(cmd, cwd=cwd,
                                     env=env(), stdin=stdin, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, preexec_fn=preexec_fn)
        self.err = Lines(self.proc.stderr.fileno())
        self.out = Lines(self.proc.stdout.fileno())
        self.stderr = ""

    # --- stdio servers (stdin=subprocess.PIPE) ---

    def send(self, *msgs):
        self.proc.stdin.write(b"".join(line(m) for m in msgs))
        self.proc.stdin.flush()

    def frame(self, timeout=GUARD):
        return self.out.frame(timeout)

    def call(self, msg, timeout=GUARD):
        self.send(msg)
        return self.out.until(lambda m: m.get("id") == msg["id"] and "method" not in m,
                              timeout)[-1]

    def wait_stderr(self, text, timeout=GUARD):
        """Wait for a stderr line containing ``text``; return it."""
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self.err.buf:
                raw, self.err.buf = self.err.buf.split(b"\n", 1)
                got = raw.decode("utf-8", "replace")
                self.stderr += got + "\n"
                if text in got:
                    return got
            if self.err.eof:
                raise AssertionError("server stderr closed before %r; stderr:\n%s"
                                     % (text, self.stderr))
            if not self.err._fill(deadline):
                raise AssertionError("no stderr line with %r within %.1fs; stderr:\n%s"
                                     % (text, timeout, self.stderr))

    def kill(self, signum):
        self.proc.send_signal(signum)

    def finish(self, signum=signal.SIGTERM, timeout=GUARD):
        """Signal (unless None), wait for exit; (returncode, all stderr, stdout)."""
        if signum is not None and self.proc.poll() is None:
            self.proc.send_signal(signum)
        rc = self.proc.wait(timeout=timeout)
        rest = self.err.buf + self.proc.stderr.read()
        self.err.buf = b""
        self.stderr += rest.decode("utf-8", "replace")
        return rc, self.stderr, self.out.buf + self.proc.stdout.read()

    def cleanup(self):
        reap(self.proc)


class World:
    """A test's processes, clients and short temp dir, all cleaned up at the end."""

    def __init__(self):
        self.dir = short_dir()
        self.procs = []
        self.clients = []

    def path(self, name):
        return os.path.join(self.dir, name)

    def config_file(self, cfg, name="c.json"):
        path = self.path(name)
        write_config(path, cfg)
        return path

    def server(self, *args, **kwargs):
        """Start ``python -m tinymcp ARGS`` and, with --socket, wait until it listens."""
        proc = Proc(args, **kwargs)
        self.procs.append(proc)
        if "--socket" in args:
            proc.wait_stderr("listening on")
        return proc

    def client(self, path):
        c = Client(path)
        self.clients.append(c)
        return c

    def cleanup(self):
        for c in self.clients:
            c.close()
        for p in self.procs:
            p.cleanup()
        shutil.rmtree(self.dir, ignore_errors=True)
