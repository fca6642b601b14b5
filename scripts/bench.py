#!/usr/bin/env python3
"""Measure tinymcp against a bare stdlib loop (scripts/bare_loop.py) over stdio.

usage: python3 scripts/bench.py [--runs N] [--quick]

Both servers run under the same interpreter (sys.executable), in the same run,
alternating, N fresh processes each. Printed: medians, tinymcp/bare ratios, and the
goal for each ratio marked PASS or MISS. Only measures and prints; never asserts
(the exit status is 0 unless a server could not be driven at all).

Per run, two pairs of processes (bare loop and tinymcp alive side by side; which one
starts first alternates from run to run):
  A. 100 prompts: cold start (spawn -> initialize reply read); prompts/get round trips
     (each sent after the previous reply) with the bench and both servers pinned to
     one CPU, then again unpinned, both interleaved between the servers in slices;
     VmHWM; the pipeline (N requests written at once by a writer thread while the
     main thread reads the N replies, PIPE_ROUNDS times); VmHWM again.
  B. 10,000 prompts, page size 100: cold start; pinned to one CPU, a full prompts/list
     walk (each page requested after the previous reply), then page 1 and the last
     page (its cursor taken from the walk) requested repeatedly, interleaved; VmHWM.
  Plus extra start-only spawns (cold start is the noisiest measure).
Then ``python3 -X importtime -c "import tinymcp"`` (cwd: the repo root).
"""

import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BARE = os.path.join(ROOT, "scripts", "bare_loop.py")
PROTOCOL = "2025-06-18"
PIPE_ROUNDS = 3


class BenchError(Exception):
    pass


# --- configs ------------------------------------------------------------------------

def make_config(n, page_size=100):
    return {
        "server": {"name": "bench", "version": "1.0"},
        "page_size": page_size,
        "prompts": [{
            "name": "p%05d" % i,
            "description": "Benchmark prompt number %d" % i,
            "arguments": [
                {"name": "topic", "description": "What to talk about", "required": True},
                {"name": "tone", "description": "How to say it", "default": "neutral"},
            ],
            "messages": [{"role": "user", "text": "Tell me about {topic} in a {tone} tone"}],
        } for i in range(n)],
    }


def write_config(tmp, n):
    path = os.path.join(tmp, "prompts-%d.json" % n)
    with open(path, "w") as f:
        json.dump(make_config(n), f)
    return path


# --- requests -----------------------------------------------------------------------

def _not_results(stream, count):
    """Read ``count`` reply lines; how many were not results (the rest, at EOF)."""
    bad = 0
    for i in range(count):
        line = stream.readline()
        if b'"result"' not in line:
            bad += 1
            if not line:
                return bad + count - i - 1
    return bad


def frame(rid, method, params):
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params},
                      separators=(",", ":")).encode() + b"\n"


INITIALIZE = frame(0, "initialize", {"protocolVersion": PROTOCOL, "capabilities": {},
                                     "clientInfo": {"name": "bench", "version": "0"}})
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'


def get_requests(count, n_prompts, first_id):
    return [frame(first_id + i, "prompts/get", {
        "name": "p%05d" % (i % n_prompts),
        "arguments": {"topic": "subject %d" % i, "tone": "calm"}}) for i in range(count)]


def child_env(tmp):
    """The environment of every child: the repo on PYTHONPATH, and bytecode cached (in
    the temp dir, warmed before timing) even when the caller's environment sets
    PYTHONDONTWRITEBYTECODE, as an installed server's would be."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
    return env


# --- one server process ---------------------------------------------------------------

#: A phase (one pair of processes) that takes longer than this is a hung server: its
#: processes are killed, the blocked read sees EOF and the bench reports it.
PHASE_TIMEOUT = 120.0


class Watchdog:
    """Kills the given processes if the ``with`` block outlives ``seconds``."""

    def __init__(self, procs, seconds=None):
        self.procs = procs
        self.fired = False
        self.seconds = PHASE_TIMEOUT if seconds is None else seconds
        self.timer = threading.Timer(self.seconds, self._fire)
        self.timer.daemon = True

    def _fire(self):
        self.fired = True
        for p in list(self.procs):
            if p.proc is not None and p.proc.poll() is None:
                p.proc.kill()

    def __enter__(self):
        self.timer.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.timer.cancel()
        if self.fired and exc_type is BenchError:
            raise BenchError("a server took over %.0f s in one phase and was killed: %s"
                             % (self.seconds, exc))
        return False


class Proc:
    """A server process on pipes; ``close()`` always reaps it (kills if it must)."""

    def __init__(self, kind, config, tmp):
        self.kind = kind
        if kind == "bare":
            argv = [sys.executable, BARE, "--config", config]
        else:
            argv = [sys.executable, "-m", "tinymcp", "--config", config]
        env = child_env(tmp)
        self.err_path = os.path.join(tmp, "stderr-%s-%d.txt" % (kind, time.monotonic_ns()))
        self.err = open(self.err_path, "wb")
        self.argv = argv
        self.env = env
        self.proc = None
        self.next_id = 1

    def start(self):
        """Spawn, send initialize, read the reply; return the seconds it took."""
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err, cwd=ROOT, env=self.env)
        self.proc.stdin.write(INITIALIZE)
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        elapsed = time.perf_counter() - t0
        self.check(line, "initialize")
        self.proc.stdin.write(INITIALIZED)
        self.proc.stdin.flush()
        return elapsed

    def check(self, line, what):
        if not line:
            raise BenchError("%s closed stdout during %s%s" % (self.kind, what, self.stderr_tail()))
        if b'"result"' not in line:
            raise BenchError("%s answered %s with %s%s" % (
                self.kind, what, line[:300].decode("utf-8", "replace"), self.stderr_tail()))

    def stderr_tail(self):
        try:
            self.err.flush()
            with open(self.err_path, "rb") as f:
                text = f.read()[-2000:].decode("utf-8", "replace").strip()
        except OSError:
            return ""
        return ("\n--- %s stderr ---\n%s" % (self.kind, text)) if text else ""

    def ids(self, count):
        first = self.next_id
        self.next_id += count
        return first

    def request(self, data):
        """Write one framed request and read one reply line."""
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        return self.proc.stdout.readline()

    def round_trip(self, reqs):
        """Seconds for ``reqs`` sent one at a time, each after the previous reply."""
        w, r = self.proc.stdin, self.proc.stdout
        bad = 0
        t0 = time.perf_counter()
        for req in reqs:
            w.write(req)
            w.flush()
            bad += _not_results(r, 1)
        elapsed = time.perf_counter() - t0
        if bad:
            raise BenchError("%s: %d of %d round-trip replies were not results%s" % (
                self.kind, bad, len(reqs), self.stderr_tail()))
        return elapsed

    def pipelined(self, reqs):
        """Seconds for ``reqs`` written at once (a writer thread) and all replies read."""
        blob = b"".join(reqs)
        w, r = self.proc.stdin, self.proc.stdout
        failed = []

        def writer():
            try:
                w.write(blob)
                w.flush()
            except OSError as exc:
                failed.append(exc)

        bad = 0
        t0 = time.perf_counter()
        thread = threading.Thread(target=writer, daemon=True)
        thread.start()
        bad += _not_results(r, len(reqs))
        elapsed = time.perf_counter() - t0
        thread.join(10)
        if bad or failed:
            raise BenchError("%s: %d of %d pipelined replies were not results %s%s" % (
                self.kind, bad, len(reqs), failed, self.stderr_tail()))
        return elapsed

    def list_page(self, cursor):
        params = {} if cursor is None else {"cursor": cursor}
        line = self.request(frame(self.ids(1), "prompts/list", params))
        self.check(line, "prompts/list")
        return line

    def traverse(self):
        """Seconds to walk every prompts/list page; the page count; the last cursor."""
        pages, cursor, last_cursor, names = 0, None, None, 0
        t0 = time.perf_counter()
        while True:
            line = self.list_page(cursor)
            pages += 1
            result = json.loads(line)["result"]
            names += len(result["prompts"])
            if "nextCursor" not in result:
                break
            cursor = last_cursor = result["nextCursor"]
        return time.perf_counter() - t0, pages, names, last_cursor

    def vm_hwm_kib(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return None

    def close(self):
        proc = self.proc
        try:
            if proc is not None:
                try:
                    proc.stdin.close()
                except OSError:
                    pass
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                proc.stdout.close()
        finally:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
            self.err.close()
            try:
                os.unlink(self.err_path)
            except OSError:
                pass


# --- phases ---------------------------------------------------------------------------

class Pinned:
    """While active, the bench and the given server processes share one CPU.

    On a multi-CPU machine (a VM especially) a request/reply ping-pong between two
    CPUs mostly measures the cross-CPU wakeup, which differs from process to process
    by 4x depending on where the scheduler put it; on one CPU it measures the work.
    A no-op where ``os.sched_setaffinity`` is missing (then the rows say so).
    """

    enabled = hasattr(os, "sched_setaffinity")

    def __init__(self, procs):
        self.procs = procs
        self.saved = None

    def __enter__(self):
        if self.enabled:
            self.saved = os.sched_getaffinity(0)
            cpu = {max(self.saved)}
            os.sched_setaffinity(0, cpu)
            for p in self.procs:
                os.sched_setaffinity(p.proc.pid, cpu)
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            os.sched_setaffinity(0, self.saved)
            for p in self.procs:
                try:
                    os.sched_setaffinity(p.proc.pid, self.saved)
                except OSError:
                    pass
        return False


def interleaved_round_trips(tasks, chunks):
    """Round-trip ``tasks`` (``(label, proc, requests)``) in ``chunks`` slices, alternating
    between them slice by slice (rotating who goes first), so that a busy spell of this
    shared machine hits every label alike. Returns seconds per label."""
    spent = {label: 0.0 for label, _, _ in tasks}
    for c in range(chunks):
        k = c % len(tasks)
        for label, proc, reqs in tasks[k:] + tasks[:k]:
            size = -(-len(reqs) // chunks)
            part = reqs[c * size:(c + 1) * size]
            if part:
                spent[label] += proc.round_trip(part)
    return spent


def run_small(order, config, tmp, n_prompts, rt_count, pipe_count):
    """Both servers alive at once, on the 100-prompt config; returns {kind: row}."""
    procs = {kind: Proc(kind, config, tmp) for kind in order}
    try:
        with Watchdog(procs.values()):
            out = {kind: {} for kind in order}
            for kind in order:
                out[kind]["cold100"] = procs[kind].start()
            for key, pin in (("rt", True), ("rt_free", False)):
                tasks = []
                for kind in order:
                    p = procs[kind]
                    tasks.append((kind, p, get_requests(rt_count, n_prompts, p.ids(rt_count))))
                if pin:
                    with Pinned(list(procs.values())):
                        spent = interleaved_round_trips(tasks, 10)
                else:
                    spent = interleaved_round_trips(tasks, 10)
                for kind in order:
                    out[kind][key] = rt_count / spent[kind]
            for kind in order:
                out[kind]["rss100"] = procs[kind].vm_hwm_kib()
            # The pipeline, PIPE_ROUNDS times per process, alternating who goes first.
            spent = {kind: 0.0 for kind in order}
            for r in range(PIPE_ROUNDS):
                for kind in (order if r % 2 == 0 else order[::-1]):
                    p = procs[kind]
                    reqs = get_requests(pipe_count, n_prompts, p.ids(pipe_count))
                    spent[kind] += p.pipelined(reqs)
            for kind in order:
                out[kind]["pipe"] = PIPE_ROUNDS * pipe_count / spent[kind]
                out[kind]["rss_pipe"] = procs[kind].vm_hwm_kib()
            return out
    finally:
        for p in procs.values():
            p.close()


def run_large(order, config, tmp, n_prompts, deep_count):
    """Both servers alive at once, on the 10k-prompt config; returns {kind: row}."""
    procs = {kind: Proc(kind, config, tmp) for kind in order}
    try:
        with Watchdog(procs.values()):
            out = {kind: {} for kind in order}
            for kind in order:
                out[kind]["cold10k"] = procs[kind].start()
            with Pinned(list(procs.values())):
                tasks = []
                for kind in order:
                    p = procs[kind]
                    out[kind]["traverse"], pages, names, last_cursor = p.traverse()
                    if names != n_prompts:
                        raise BenchError("%s listed %d prompts of %d" % (kind, names, n_prompts))
                    out[kind]["pages"] = pages
                    first = p.ids(deep_count)
                    tasks.append(((kind, "page_first"), p, [
                        frame(first + i, "prompts/list", {}) for i in range(deep_count)]))
                    first = p.ids(deep_count)
                    tasks.append(((kind, "page_deep"), p, [
                        frame(first + i, "prompts/list", {"cursor": last_cursor})
                        for i in range(deep_count)]))
                for (kind, key), seconds in interleaved_round_trips(tasks, 4).items():
                    out[kind][key] = seconds
            for kind in order:
                out[kind]["rss10k"] = procs[kind].vm_hwm_kib()
            return out
    finally:
        for p in procs.values():
            p.close()


def run_cold(kind, config, tmp):
    p = Proc(kind, config, tmp)
    try:
        with Watchdog([p]):
            return p.start()
    finally:
        p.close()


def importtime(runs, tmp):
    """``python3 -X importtime -c "import tinymcp"``, ``runs`` times: median wall seconds,
    median cumulative us of ``import tinymcp`` and of ``site`` (interpreter start-up, paid
    by both servers), and the five imports under tinymcp with the largest median
    cumulative time as ``(cumulative_us, self_us, name)``."""
    walls, times, total, site = [], {}, [], []
    env = child_env(tmp)
    line_re = re.compile(r"import time:\s+(\d+)\s*\|\s*(\d+)\s*\|(\s*)(\S+)")
    for _ in range(runs):
        t0 = time.perf_counter()
        res = subprocess.run([sys.executable, "-X", "importtime", "-c", "import tinymcp"],
                             cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, timeout=60)
        walls.append(time.perf_counter() - t0)
        err = res.stderr.decode("utf-8", "replace")
        rows = []  # (self us, cumulative us, depth, name)
        for raw in err.splitlines():
            m = line_re.match(raw)
            if m:
                rows.append((int(m.group(1)), int(m.group(2)), (len(m.group(3)) - 1) // 2,
                             m.group(4)))
        ends = [i for i, r in enumerate(rows) if r[3] == "tinymcp" and r[2] == 0]
        if res.returncode != 0 or not ends:
            raise BenchError("python3 -X importtime -c 'import tinymcp' failed:\n%s" % err[-2000:])
        # The subtree of ``import tinymcp``: the lines since the previous top-level import.
        end = start = ends[-1]
        while start > 0 and rows[start - 1][2] > 0:
            start -= 1
        total.append(rows[end][1])
        site.append(sum(r[1] for r in rows if r[3] == "site" and r[2] == 0))
        for own, cum, depth, name in rows[start:end]:
            times.setdefault(name, []).append((cum, own))
    top = sorted(((statistics.median(c for c, _ in v), statistics.median(o for _, o in v), name)
                  for name, v in times.items()), reverse=True)[:5]
    return statistics.median(walls), statistics.median(total), statistics.median(site), top


# --- report ---------------------------------------------------------------------------

def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return "%d CPUs (nproc), %s; Python %s (%s), %s" % (
        cpus or 0, model, platform.python_version(),
        platform.python_implementation(), platform.platform(terse=True))


def fmt(value, unit):
    if unit == "ms":
        return "%.1f ms" % (value * 1000)
    if unit == "MiB":
        return "%.1f MiB" % (value / 1024.0)
    if unit == "req/s":
        return "%s req/s" % format(int(round(value)), ",")
    return str(value)


def main(argv):
    runs, quick, runs_given = 5, False, False
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--quick":
            quick = True
        elif arg == "--runs" or arg.startswith("--runs="):
            value = arg.partition("=")[2] or (args.pop(0) if args else "")
            runs_given = True
            try:
                runs = int(value)
            except ValueError:
                runs = 0
            if runs < 1:
                sys.stderr.write("bench: --runs needs a whole number of 1 or more\n")
                return 2
        elif arg in ("-h", "--help"):
            sys.stdout.write(__doc__)
            return 0
        else:
            sys.stderr.write("bench: unknown argument %r\n" % arg)
            return 2
    if quick and not runs_given:
        runs = 2
    rt_count, pipe_count, deep_count = (500, 1000, 50) if quick else (2000, 5000, 200)
    # cold start is the noisiest measure: extra start-only spawns per run (100, 10k prompts)
    extra_small, extra_large = (1, 0) if quick else (4, 1)
    small_n, large_n = 100, 10000

    # SIGTERM unwinds like Ctrl-C, so the finally blocks reap the servers and the temp dir.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    tmp = tempfile.mkdtemp(prefix="tinymcp-bench-")
    try:
        small = write_config(tmp, small_n)
        large = write_config(tmp, large_n)
        results = {"bare": [], "tinymcp": []}
        cold = {key: {"bare": [], "tinymcp": []} for key in ("cold100", "cold10k")}
        t_start = time.perf_counter()
        # warm-up (page cache, __pycache__): one short process of each, not counted
        run_small(("bare", "tinymcp"), small, tmp, small_n, 50, 50)
        for i in range(runs):
            order = ("bare", "tinymcp") if i % 2 == 0 else ("tinymcp", "bare")
            rows = run_small(order, small, tmp, small_n, rt_count, pipe_count)
            for kind, row in run_large(order, large, tmp, large_n, deep_count).items():
                rows[kind].update(row)
            for kind in order:
                results[kind].append(rows[kind])
            for _ in range(extra_small):
                for kind in order:
                    cold["cold100"][kind].append(run_cold(kind, small, tmp))
            for _ in range(extra_large):
                for kind in order:
                    cold["cold10k"][kind].append(run_cold(kind, large, tmp))
            sys.stderr.write("bench: run %d/%d done (%.1f s)\n" % (
                i + 1, runs, time.perf_counter() - t_start))
        imp_wall, imp_total, imp_site, imp_top = importtime(max(runs, 3), tmp)
    except BenchError as exc:
        sys.stderr.write("bench: %s\n" % exc)
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("bench: interrupted\n")
        return 130
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    med = {kind: {key: statistics.median(r[key] for r in rows) for key in rows[0]}
           for kind, rows in results.items()}
    for key, by_kind in cold.items():
        for kind, extra in by_kind.items():
            med[kind][key] = statistics.median([r[key] for r in results[kind]] + extra)
    n_cold = {key: runs + len(cold[key]["bare"]) for key in cold}
    b, t = med["bare"], med["tinymcp"]
    # The ratio is the median of paired ratios: processes measured side by side in one
    # run share whatever else the machine was doing, which a ratio of medians would not.
    ratio = {}
    for key in results["bare"][0]:
        pairs = [(rt[key], rb[key]) for rt, rb in zip(results["tinymcp"], results["bare"])]
        if key in cold:
            pairs += list(zip(cold[key]["tinymcp"], cold[key]["bare"]))
        ratio[key] = statistics.median([x / y if y else float("inf") for x, y in pairs])
    deep_first = statistics.median([r["page_deep"] / r["page_first"] for r in results["tinymcp"]])

    # (label, key, unit, goal op, goal) ; ratio is always tinymcp / bare
    rows = [
        ("cold start, 100 prompts (%d spawns)" % n_cold["cold100"], "cold100", "ms", "<=", 1.5),
        ("peak RSS after round trips, 100 prompts", "rss100", "MiB", "<=", 1.3),
        ("prompts/get round trip%s" % (" (one CPU)" if Pinned.enabled else ""), "rt", "req/s",
         ">=", 0.7),
        ("prompts/get round trip, unpinned", "rt_free", "req/s", None, None),
        ("prompts/get pipelined (%d at once, x%d)" % (pipe_count, PIPE_ROUNDS), "pipe", "req/s",
         ">=", 0.6),
        ("peak RSS after the pipeline", "rss_pipe", "MiB", None, None),
        ("cold start, 10k prompts (%d spawns)" % n_cold["cold10k"], "cold10k", "ms", "<=", 2.0),
        ("peak RSS, 10k prompts", "rss10k", "MiB", None, None),
        ("prompts/list full walk, 10k at 100/page (%d pages)" % t["pages"], "traverse", "ms",
         "<=", 1.5),
        ("prompts/list page 1, %d requests" % deep_count, "page_first", "ms", None, None),
        ("prompts/list last page, %d requests" % deep_count, "page_deep", "ms", None, None),
    ]
    print()
    print("Machine: %s" % machine())
    print("Runs: %d fresh processes per server per config%s; %d round-trip and %d pipelined "
          "prompts/get per process; total %.0f s. Values are medians; tinymcp/bare is the median "
          "of the per-run ratios (both servers alive side by side, round trips interleaved in "
          "slices); time ratios: lower is better, req/s ratios: higher is better. Bytecode "
          "cached (warmed before timing)." % (
              runs, " (--quick)" if quick else "", rt_count, pipe_count,
              time.perf_counter() - t_start))
    print()
    print("| measure | bare loop | tinymcp | tinymcp/bare | goal | |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for label, key, unit, op, goal in rows:
        r = ratio[key]
        if op is None:
            goal_s, status = "", ""
        else:
            ok = r <= goal if op == "<=" else r >= goal
            goal_s, status = "%s %.1f" % (op, goal), "PASS" if ok else "MISS"
        # three decimals where two would print the goal itself (0.70 MISS for 0.698)
        shown = "%.3f" % r if op is not None and "%.2f" % r == "%.2f" % goal else "%.2f" % r
        print("| %s | %s | %s | %s | %s | %s |" % (
            label, fmt(b[key], unit), fmt(t[key], unit), shown, goal_s, status))
    print()
    print("tinymcp last page / page 1, same number of requests (median of per-run ratios): %.2f "
          "(1.00: a deep page costs the same as the first)" % deep_first)
    print()
    print("`python3 -X importtime -c \"import tinymcp\"` (median of %d): %.1f ms wall, interpreter "
          "included (its `site` import: %.1f ms, paid by both servers); `import tinymcp`: %.1f ms "
          "cumulative. The five most expensive imports under it:" % (
              max(runs, 3), imp_wall * 1000, imp_site / 1000.0, imp_total / 1000.0))
    print()
    print("| import | cumulative | self |")
    print("| --- | ---: | ---: |")
    for cum, own, name in imp_top:
        print("| %s | %.2f ms | %.2f ms |" % (name, cum / 1000.0, own / 1000.0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
