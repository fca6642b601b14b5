#!/usr/bin/env python3
"""Throughput and memory of ``python3 -m tinymcp --socket`` (no assertions; prints a table).

usage: python3 scripts/bench_socket.py [--seconds S] [--idle N] [--config FILE.json]

- requests per second with 1, 10 and 100 concurrent clients, each a closed loop (send a
  ``prompts/get``, wait for the reply, send the next), all driven from this one process
  with non-blocking sockets; latency percentiles per request;
- peak RSS (VmHWM, Linux /proc) of a fresh server holding N idle connections (default
  1000), each with an initialized session (goal: under 40 MB);
- fairness: ping round trips of one client while another pipelines 5000 requests and
  never reads (goal: none beyond a second), and how long after a config rewrite
  (``--watch``) or a SIGHUP an initialized session gets list_changed (goal: within a
  second). These bounds are timings, so they live here and not in the tests, which
  check the behaviour (served at all, notified at all).

The clients share the machine with the server, so on a small machine the figures are a
floor for the server, not a ceiling.
"""

import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = REPO + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    return e


def start(path, args):
    proc = subprocess.Popen([sys.executable, "-m", "tinymcp", "--socket", path] + args, cwd=REPO,
                            env=env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    line = proc.stderr.readline()  # "tinymcp: info: listening on PATH"
    if b"listening on" not in line:
        raise SystemExit("server did not start: %r" % line)
    return proc


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    proc.wait(30)
    proc.stderr.close()


def status(pid):
    """{"VmRSS": kB, "VmHWM": kB} from /proc (empty elsewhere)."""
    out = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for row in f:
                key, _, value = row.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    out[key] = int(value.split()[0])
    except OSError:
        pass
    return out


def line(msg):
    return json.dumps(msg).encode() + b"\n"


INIT = line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "0"}}}) \
    + line({"jsonrpc": "2.0", "method": "notifications/initialized"})
GET = line({"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {
    "name": "code_review", "arguments": {"code": "def f(x):\n    return x + 1\n"}}})


def connect(path, n):
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        socks.append(s)
    return socks


def initialize(socks):
    for s in socks:
        s.sendall(INIT)
    for s in socks:
        buf = b""
        while b"\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                raise SystemExit("server closed a connection during initialize")
            buf += chunk


def closed_loop(path, clients, seconds):
    socks = connect(path, clients)
    initialize(socks)
    sel = selectors.DefaultSelector()
    sent_at = {}
    bufs = {}
    latencies = []
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        bufs[s] = 0
    start_t = time.perf_counter()
    end_t = start_t + seconds
    for s in socks:
        sent_at[s] = time.perf_counter()
        s.send(GET)
    done = 0
    while True:
        now = time.perf_counter()
        if now >= end_t:
            break
        for key, _ in sel.select(end_t - now):
            s = key.fileobj
            data = s.recv(1 << 20)
            if not data:
                raise SystemExit("server closed a connection")
            n = data.count(b"\n")
            if n:
                t = time.perf_counter()
                latencies.append(t - sent_at[s])
                done += n
                sent_at[s] = t
                s.send(GET)
    elapsed = time.perf_counter() - start_t
    sel.close()
    for s in socks:
        s.close()
    latencies.sort()

    def pct(p):
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000 if latencies else 0.0

    return done / elapsed, pct(0.50), pct(0.99)


def idle(path, n):
    socks = connect(path, n)
    initialize(socks)
    return socks


def read_line(sock):
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = sock.recv(65536)
        if not chunk:
            raise SystemExit("server closed a connection")
        buf += chunk
    return buf


def pings_beside_a_flooder(path, requests=5000, pings=20):
    """Round trips (ms) of pings from one client while another has pipelined ``requests``
    prompts/get and reads nothing."""
    import threading
    flooder, other = connect(path, 2)
    initialize([flooder, other])
    flood = GET * requests
    thread = threading.Thread(target=lambda: _send_until_closed(flooder, flood), daemon=True)
    thread.start()
    time.sleep(0.5)  # (a bench, not a test: let the flood fill the buffers first)
    times = []
    for i in range(pings):
        t = time.perf_counter()
        other.sendall(line({"jsonrpc": "2.0", "id": 100 + i, "method": "ping"}))
        read_line(other)
        times.append((time.perf_counter() - t) * 1000)
    flooder.shutdown(socket.SHUT_RDWR)
    thread.join(10)
    flooder.close()
    other.close()
    return times


def costly_lines(size=8 * 1024 * 1024 - 4096):
    """``(label, line)``: the lines found costliest to read, each just under the default (8 MiB)
    ``max_line_bytes`` (some refused by ``max_line_values`` or the integer cap, some served)."""
    head = b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"x":'
    body = size - 80

    def wrap(i, value):
        return head % i + value + b"}}\n"

    def listed(item, extra=b","):
        return b"[" + (item + extra) * ((body - 2) // (len(item) + len(extra))) + b"0]"
    return [
        ("a list of zeros", wrap(1, listed(b"0"))),
        ("a deep chain", wrap(2, b"[" * (body // 2) + b"]" * (body // 2))),
        ("teeth 10 deep", wrap(3, listed(b"[" * 10 + b"]" * 10))),
        ("300-digit integers", wrap(4, listed(b"1" * 300))),
        ("one string", wrap(5, b'"' + b"a" * (body - 2) + b'"')),
        ("escaped surrogate pairs", wrap(6, b'"' + b"\\ud83d\\ude00" * ((body - 2) // 12) + b'"')),
        ("runs split by spaces", wrap(8, b"[ " * (body // 4) + b"] " * (body // 4))),
        ("a stray backslash", wrap(9, b"[" * 70 + b'\\""' + b"[]" * ((body - 150) // 2) + b'"' + b"]" * 70)),
        ("33,000 objects", wrap(7, b"[" + b",".join([b'{"k":"' + b"x" * 240 + b'"}'] * 33000) + b"]")),
    ]


def pings_beside_costly_lines(path):
    """Round trips (ms) of pings from one client while another sends ``costly_lines`` one
    after another (each reply read before the next line); and the seconds each line took."""
    import threading
    sender, other = connect(path, 2)
    initialize([sender, other])
    lines = costly_lines()
    took = []

    def send():
        for label, data in lines:
            t = time.perf_counter()
            sender.sendall(data)
            read_line(sender)
            took.append((label, time.perf_counter() - t))
    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    times, i = [], 0
    while thread.is_alive():
        i += 1
        t = time.perf_counter()
        other.sendall(line({"jsonrpc": "2.0", "id": 100 + i, "method": "ping"}))
        read_line(other)
        times.append((time.perf_counter() - t) * 1000)
    thread.join()
    sender.close()
    other.close()
    return times, took


def _send_until_closed(sock, data):
    try:
        sock.sendall(data)
    except OSError:
        pass


def change_latencies(tmp, rounds=5):
    """ms from a config rewrite (--watch) and from a SIGHUP to list_changed on a session."""
    cfg = os.path.join(tmp, "c.json")
    path = os.path.join(tmp, "w")

    def write(n):
        with open(cfg + ".new", "w") as f:
            json.dump({"prompts": [{"name": "p%d" % i, "messages": [{"role": "user", "text": "x"}]}
                                   for i in range(n)]}, f)
        os.replace(cfg + ".new", cfg)

    write(1)
    proc = start(path, ["--config", cfg, "--watch"])
    out = {"--watch": [], "SIGHUP": []}
    try:
        [sock] = connect(path, 1)
        initialize([sock])
        for r in range(rounds):
            for how in out:
                t = time.perf_counter()
                write(2 + 2 * r + (how == "SIGHUP"))
                if how == "SIGHUP":
                    proc.send_signal(signal.SIGHUP)
                if b"list_changed" not in read_line(sock):
                    raise SystemExit("expected list_changed")
                out[how].append((time.perf_counter() - t) * 1000)
        sock.close()
    finally:
        stop(proc)
    return out


SLOW_SERVER = """
import sys, time
import tinymcp
from tinymcp.socket.unix import serve_unix

def render(arguments):
    for second in range(3):  # progress at 0, 1 and 2 s; the result at 3 s
        tinymcp.progress(second + 1, total=3)
        time.sleep(1)
    return "done"

serve_unix(tinymcp.Server({"prompts": [{"name": "slow", "render": render}]}), sys.argv[1])
"""


def callable_timings(tmp):
    """With a render that reports progress at 0, 1 and 2 s and returns at 3 s: when each
    notification and the result reach its client (s after the request), and the ping round
    trips (ms) of another client meanwhile."""
    import threading
    script = os.path.join(tmp, "slow_server.py")
    with open(script, "w") as f:
        f.write(SLOW_SERVER)
    path = os.path.join(tmp, "slow")
    proc = subprocess.Popen([sys.executable, script, path], cwd=REPO, env=env(),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if b"listening on" not in proc.stderr.readline():
        raise SystemExit("the slow-render server did not start")
    try:
        slow, other = connect(path, 2)
        initialize([slow, other])
        arrivals, pings, done = [], [], threading.Event()

        def ping():
            i = 0
            while not done.is_set():
                t = time.perf_counter()
                other.sendall(line({"jsonrpc": "2.0", "id": 1000 + i, "method": "ping"}))
                read_line(other)
                pings.append((time.perf_counter() - t) * 1000)
                i += 1
                done.wait(0.05)

        t0 = time.perf_counter()
        slow.sendall(line({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                           "params": {"name": "slow", "_meta": {"progressToken": "t"}}}))
        pinger = threading.Thread(target=ping, daemon=True)
        pinger.start()
        while True:
            msg = json.loads(read_line(slow))
            arrivals.append((msg.get("method", "result"), time.perf_counter() - t0))
            if "id" in msg:
                break
        done.set()
        pinger.join(10)
        slow.close()
        other.close()
    finally:
        stop(proc)
    return arrivals, sorted(pings)


def raise_nofile(need):
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < need:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard), hard))
    except (ImportError, ValueError, OSError):
        pass


def main(argv):
    seconds, n_idle, config = 3.0, 1000, None
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--seconds":
            seconds = float(args.pop(0))
        elif arg == "--idle":
            n_idle = int(args.pop(0))
        elif arg == "--config":
            config = args.pop(0)
        else:
            raise SystemExit(__doc__)
    raise_nofile(n_idle + 200)
    extra = ["--max-clients", str(n_idle + 100)] + (["--config", config] if config else [])
    tmp = tempfile.mkdtemp(prefix="tb", dir="/tmp" if os.path.isdir("/tmp") else None)
    path = os.path.join(tmp, "s")
    try:
        print("tinymcp socket bench: %s %s, %s" % (
            sys.implementation.name, sys.version.split()[0], "prompts/get code_review"))
        print()
        print("%8s %12s %10s %10s" % ("clients", "requests/s", "p50 ms", "p99 ms"))
        proc = start(path, extra)
        try:
            for clients in (1, 10, 100):
                rps, p50, p99 = closed_loop(path, clients, seconds)
                print("%8d %12.0f %10.2f %10.2f" % (clients, rps, p50, p99))
        finally:
            stop(proc)

        proc = start(path, extra)
        try:
            base = status(proc.pid)
            socks = idle(path, n_idle)
            after = status(proc.pid)
            print()
            print("%-34s %10s %10s" % ("server memory", "VmRSS MB", "VmHWM MB"))
            for label, st in (("at start", base), ("%d idle initialized connections" % n_idle, after)):
                print("%-34s %10.1f %10.1f" % (label, st.get("VmRSS", 0) / 1024.0,
                                               st.get("VmHWM", 0) / 1024.0))
            print("(goal: VmHWM under 40 MB with 1000 idle connections)")
            for s in socks:
                s.close()
        finally:
            stop(proc)

        proc = start(path, extra)
        try:
            times = sorted(pings_beside_a_flooder(path))
        finally:
            stop(proc)
        print()
        print("%-44s %8s %8s" % ("fairness and notification (ms)", "median", "max"))
        print("%-44s %8.1f %8.1f" % ("ping while another client floods, never reads",
                                     times[len(times) // 2], times[-1]))
        proc = start(path, extra)
        try:
            times, took = pings_beside_costly_lines(path)
        finally:
            stop(proc)
        times.sort()
        print("%-44s %8.1f %8.1f" % ("ping while another sends costly 8 MiB lines",
                                     times[len(times) // 2], times[-1]))
        print("  (%d pings; the lines, sent and answered: %s)" % (len(times), ", ".join(
            "%s %.2f s" % (label, seconds) for label, seconds in took)))
        for how, ms in sorted(change_latencies(tmp).items()):
            ms.sort()
            print("%-44s %8.1f %8.1f" % ("list_changed after a rewrite (%s)" % how, ms[len(ms) // 2], ms[-1]))
        print("(goal: every one under 1000 ms)")
        arrivals, pings = callable_timings(tmp)
        print()
        print("a render reporting progress at 0, 1 and 2 s and returning at 3 s (on a worker thread):")
        for what, seconds in arrivals:
            print("  %-34s at %.3f s" % (what, seconds))
        print("  another client's pings meanwhile: %d, median %.1f ms, max %.1f ms"
              % (len(pings), pings[len(pings) // 2], pings[-1]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
