"""Helpers for the tests of the transports and the command line: server subprocesses
(``Proc``, ``run``), socket clients (``Client``), and in-process pipe rigs for pumps.

Nothing here waits on a clock for synchronisation: every wait is for a reply, a stderr
line, EOF or process exit, and ``GUARD`` is only a failure guard against a hung server.
Servers are the package under test (``conftest.server_command``/``server_env``: the
checkout, or a vendored copy under TINYMCP_VENDORED). POSIX only (signals, select() on pipes).
"""

import contextlib
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

from conftest import INITIALIZED, PROTOCOL, initialize, line, modern, named_config, reap, server_command, server_env

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Failure guard only: how long a well-behaved server could possibly need.
GUARD = 20.0
#: the names of the built-in default prompts (served without --config)
DEFAULT_PROMPTS = {"code_review", "explain_error", "commit_message", "write_tests"}
#: ``Proc.finish(EOF)``: end the server by closing its stdin.
EOF = "EOF"


def env():
    """The server's environment, as a host would start it: default (buffered) stdio, no
    startup hooks or warning filters (so a buffered print() in a callable is exercised too)."""
    e = server_env()
    for name in ("PYTHONUNBUFFERED", "PYTHONSTARTUP", "PYTHONWARNINGS", "PYTHONINSPECT"):
        e.pop(name, None)
    return e


def short_dir():
    """A fresh directory with a short path (AF_UNIX paths are limited to ~107 bytes)."""
    return tempfile.mkdtemp(prefix="tm", dir="/tmp" if os.path.isdir("/tmp") else None)


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


def frames(stdout):
    """Every line of ``stdout`` (bytes or text) parsed; each must be one complete JSON object."""
    if isinstance(stdout, str):
        stdout = stdout.encode("utf-8")
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


class Lines:
    """Newline-delimited output read from an fd with a bounded wait."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = b""
        self.eof = False

    def read(self):
        """One read (the fd is ready): appends to ``buf`` or sets ``eof``."""
        try:
            chunk = os.read(self.fd, 65536)
        except (BlockingIOError, InterruptedError):
            return
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            self.eof = True
        self.buf += chunk

    def _fill(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self.fd], [], [], left)[0]:
            return False
        self.read()
        return True

    def next_line(self, timeout=GUARD):
        """The next line, without its newline."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            if self.eof:
                raise AssertionError("EOF before a full line; got %r" % self.buf[-300:])
            if not self._fill(deadline):
                raise AssertionError("no line within %.1fs; got %r" % (timeout, self.buf[-300:]))
        raw, self.buf = self.buf.split(b"\n", 1)
        return raw

    def frame(self, timeout=GUARD):
        """The next line as a JSON object."""
        return frames(self.next_line(timeout) + b"\n")[0]

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


def drain(readers, timeout=GUARD):
    """Read every one of ``readers`` to its EOF, together (as communicate() does: the
    other side never blocks on a full pipe)."""
    deadline = time.monotonic() + timeout
    readers = [r for r in readers if not r.eof]
    while readers:
        left = deadline - time.monotonic()
        ready = select.select([r.fd for r in readers], [], [], left)[0] if left > 0 else []
        if not ready:
            raise AssertionError("no EOF within %.1fs" % timeout)
        for r in readers:
            if r.fd in ready:
                r.read()
        readers = [r for r in readers if not r.eof]


class Peer:
    """What a client does on a newline-delimited JSON-RPC stream (``lines`` reads it)."""

    lines = None

    def send_bytes(self, data):
        raise NotImplementedError

    def send(self, *msgs):
        self.send_bytes(b"".join(line(m) for m in msgs))

    def frame(self, timeout=GUARD):
        """The next message received."""
        return self.lines.frame(timeout)

    def call(self, msg, timeout=GUARD):
        """Send a request; the next message received must be its reply, which is returned."""
        self.send(msg)
        reply = self.frame(timeout)
        assert reply.get("id") == msg["id"] and "method" not in reply, reply
        return reply

    def initialize(self, version=PROTOCOL):
        """Initialize (and send notifications/initialized); the initialize result."""
        reply = self.call(initialize(1, version))
        assert reply["result"]["protocolVersion"] == version, reply
        self.send(INITIALIZED)
        return reply["result"]


class Client(Peer):
    """One connection to the socket server."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(GUARD)
        self.sock.connect(path)
        self.lines = Lines(self.sock.fileno())

    def send_bytes(self, data):
        self.sock.sendall(data)

    def listen(self, rid=7):
        self.send(modern(rid, "subscriptions/listen", {"notifications": {"promptsListChanged": True}}))
        ack = self.frame()
        assert ack["method"] == "notifications/subscriptions/acknowledged", ack
        return ack

    def closed(self, timeout=GUARD):
        return self.lines.wait_eof(timeout)

    def close(self):
        self.sock.close()


class Proc(Peer):
    """A server subprocess (``python -m PACKAGE ARGS``, or ``script``): talk to it on its
    stdio (``stdin=subprocess.PIPE``); its stderr is collected as it is read."""

    def __init__(self, args=(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, preexec_fn=None,
                 cwd=REPO, script=None):
        cmd = [sys.executable, script] + list(args) if script else server_command(*args)
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=env(), stdin=stdin, stdout=stdout,
                                     stderr=subprocess.PIPE, preexec_fn=preexec_fn)
        self.err = Lines(self.proc.stderr.fileno())
        self.lines = Lines(self.proc.stdout.fileno()) if self.proc.stdout else None
        #: the stderr lines read so far
        self.stderr = ""

    def send_bytes(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def stderr_line(self, timeout=GUARD):
        """The next stderr line."""
        got = self.err.next_line(timeout).decode("utf-8", "replace")
        self.stderr += got + "\n"
        return got

    def wait_stderr(self, text, timeout=GUARD):
        """Wait for a stderr line containing ``text``; return it."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                got = self.stderr_line(max(deadline - time.monotonic(), 0.0))
            except AssertionError as exc:
                raise AssertionError("no stderr line with %r (%s); stderr:\n%s"
                                     % (text, exc, self.stderr))
            if text in got:
                return got

    def kill(self, signum):
        self.proc.send_signal(signum)

    def close_stdout(self):
        """The host stops reading: close our end of the server's stdout."""
        self.proc.stdout.close()
        self.lines = None

    def finish(self, how=signal.SIGTERM, timeout=GUARD):
        """End the server and wait for its exit: ``how`` is a signal to send, ``EOF`` to
        close its stdin, or None to let it exit on its own. (returncode, all its stderr,
        the rest of its stdout)."""
        if how is EOF:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
        elif how is not None and self.proc.poll() is None:
            self.proc.send_signal(how)
        deadline = time.monotonic() + timeout
        drain([r for r in (self.lines, self.err) if r is not None], timeout)
        rc = self.proc.wait(timeout=max(deadline - time.monotonic(), 0.0))
        self.stderr += self.err.buf.decode("utf-8", "replace")
        self.err.buf = b""
        out = b""
        if self.lines is not None:
            out, self.lines.buf = self.lines.buf, b""
        return rc, self.stderr, out

    def cleanup(self):
        reap(self.proc)


def run(args=(), stdin=b"", **options):
    """Run a server (``Proc`` options) to its exit; ``stdin`` is its whole input (bytes),
    or what Popen takes. (returncode, stdout, stderr), as text."""
    piped = isinstance(stdin, bytes)
    proc = Proc(args, stdin=subprocess.PIPE if piped else stdin, **options)
    try:
        if piped and stdin:
            with contextlib.suppress(BrokenPipeError):  # it may exit without reading
                proc.send_bytes(stdin)
        rc, err, out = proc.finish(EOF if piped else None)
    finally:
        proc.cleanup()
    return rc, out.decode("utf-8"), err


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
        """Start a ``Proc`` and, with --socket, wait until it listens."""
        proc = Proc(args, **kwargs)
        self.procs.append(proc)
        if "--socket" in args:
            proc.wait_stderr("listening on")
        return proc

    def stdio(self, *args, **kwargs):
        """Start a ``Proc`` served on its stdio."""
        return self.server(*args, stdin=subprocess.PIPE, **kwargs)

    def socket_server(self, cfg, *args):
        """A socket server on ``cfg`` (written to a config file): (socket path, Proc)."""
        path = self.path("s")
        return path, self.server("--config", self.config_file(cfg), "--socket", path, *args)

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


# --- in process: a loop and pipes for a pump ----------------------------------------------

class PipeRig:
    """A Loop and two pipes for an in-process ``StreamPump``: the pump reads ``r_in`` (the
    test writes ``w_in``) and writes ``w_out`` (the test reads ``r_out``)."""

    def __init__(self, blocking=True):
        from tinymcp.io.loop import Loop
        self.loop = Loop()
        self.r_in, self.w_in = os.pipe()
        self.r_out, self.w_out = os.pipe()
        if not blocking:
            for fd in (self.r_in, self.w_in, self.w_out, self.r_out):
                os.set_blocking(fd, False)

    def end_input(self):
        """The peer's EOF."""
        os.close(self.w_in)
        self.w_in = None

    def close(self):
        self.loop.close()
        for fd in (self.r_in, self.w_in, self.r_out, self.w_out):
            if fd is not None:
                os.close(fd)


@contextlib.contextmanager
def pipe_rig(blocking=True):
    rig = PipeRig(blocking)
    try:
        yield rig
    finally:
        rig.close()


def moved_clock(monkeypatch, start=1000.0):
    """A clock the test moves (``now[0] += seconds``) for the loop's timers and the pump's
    turns and drain: no real waiting, and no preemption can reorder what it times."""
    import types
    from tinymcp.io import loop, pump
    now = [start]
    monkeypatch.setattr(loop, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    monkeypatch.setattr(pump, "monotonic", lambda: now[0])
    return now


@contextlib.contextmanager
def piped_hub(names):
    """A server with list_changed on ``named_config(names)``, its loop and hub, one pump
    between two pipes: yields (server, loop, hub, write_to_server, read_from_server)."""
    from tinymcp import Server, Session
    from tinymcp.io.pump import Hub, StreamPump
    server = Server(named_config(names), list_changed=True)
    with pipe_rig() as rig:
        hub = Hub(rig.loop, server)
        try:
            hub.add(StreamPump(rig.loop, Session(server), rig.r_in, rig.w_out, hub.discard))
            yield server, rig.loop, hub, rig.w_in, rig.r_out
        finally:
            hub.close()


def read_lines(loop, fd, count):
    """Run ``loop`` until ``count`` lines have come out of (blocking) ``fd``; the bytes."""
    got = b""
    while got.count(b"\n") < count:
        loop.run_once(GUARD)
        got += os.read(fd, 65536)
    return got
