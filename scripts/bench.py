#!/usr/bin/env python3
"""Measure tinymcp against scripts/bare_loop.py, the least a stdio MCP prompts server does.

usage: python3 scripts/bench.py [--runs N] [--quick] [--no-write] [--python PATH]
                                [--pypy PATH | --no-pypy] [--root DIR]

Prints a table (medians, paired tinymcp/bare ratios, each goal's PASS or MISS) and writes it
to docs/performance.md with how it was measured. Honest by construction: both servers run under
a clean venv (a ``.pth`` file of the base python3 may import re, pathlib... at every start,
pre-paying tinymcp's imports) and without PYTHON* variables (PYTHONDONTWRITEBYTECODE would make
every start compile), their bytecode warmed first; both are measured in the same run, in fresh
processes, alternating. ``--root DIR`` measures the tinymcp checkout at DIR.
"""

import argparse, ast, contextlib, io, json, os, shutil, signal, statistics, subprocess, sys
import tempfile, threading, time, tokenize, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
ROOT = REPO  # the tinymcp checkout measured (--root)
TIMEOUT = 60.0  # seconds that a spawn, a request or a batch of requests may take
#: what site itself imports at start (``-S`` skips it); anything more is pollution
SITE_OWN = {"site", "_sitebuiltins", "sitecustomize", "usercustomize", "os", "os.path", "stat", "_stat",
            "posixpath", "genericpath", "_collections_abc", "io", "abc", "_abc", "codecs", "encodings"}
ENV = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
META = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}
PIN = hasattr(os, "sched_setaffinity")


class BenchError(Exception):
    """A server could not be driven; the rows it feeds say so."""


FAILURES = (BenchError, OSError, ValueError, KeyError, subprocess.SubprocessError)


def frame(rid, method, params):
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params},
                      separators=(",", ":")).encode() + b"\n"


INITIALIZE = frame(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "bench", "version": "0"}})


def write_config(tmp, n):
    """``n`` prompts: a description, a required and a defaulted argument, one user message
    with two placeholders."""
    path = os.path.join(tmp, "prompts-%d.json" % n)
    with open(path, "w") as f:
        json.dump({"prompts": [{
            "name": "p%05d" % i, "description": "Benchmark prompt number %d" % i,
            "arguments": [{"name": "topic", "description": "What to talk about", "required": True},
                          {"name": "tone", "description": "How to say it", "default": "neutral"}],
            "messages": [{"role": "user", "text": "Tell me about {topic} in a {tone} tone"}]}
            for i in range(n)]}, f)
    return path


def write_files(tmp, n=1000):
    """A folder of ``n`` MCP Markdown files holding ``write_config``'s prompts (front matter:
    the description and both arguments; the body: the message), and the same prompts as one
    JSON config: ``(folder, config path)``."""
    folder = os.path.join(tmp, "prompt-files-%d" % n)
    os.mkdir(folder)
    for i in range(n):
        with open(os.path.join(folder, "p%05d.md" % i), "w") as f:
            f.write("---\ndescription: Benchmark prompt number %d\narguments:\n  - name: topic\n"
                    "    description: What to talk about\n    required: true\n  - name: tone\n"
                    "    description: How to say it\n    default: neutral\n---\n"
                    "Tell me about {{topic}} in a {{tone}} tone\n" % i)
    return folder, write_config(tmp, n)


def last_line(data):
    """The last line of a child's stderr (where its exception is), cut to 200 characters."""
    return ([""] + data.decode("utf-8", "replace").strip().splitlines())[-1][-200:]


def log(text):
    sys.stderr.write("bench: %s\n" % " ".join(str(text).split()))
    sys.stderr.flush()


# --- one server process ---------------------------------------------------------------

LIVE = set()  # the running servers, each with the deadline of the reads it is blocked on


def _watchdog():
    """Kills a server whose reads outlive their deadline: the blocked read then sees EOF."""
    while True:
        time.sleep(0.25)
        for server in [s for s in list(LIVE) if time.monotonic() > s.deadline]:
            server.timed_out = True
            with contextlib.suppress(OSError):
                server.proc.kill()


class Server:
    """``kind`` ("bare" or "tiny") on pipes, started by its path or with ``-m``. Use it in a
    ``with``: it is always killed and reaped."""

    def __init__(self, py, kind, config, module=False, extra=(), argv=None, env=None):
        if kind == "bare":
            cmd, self.cwd = ([py, "-m", "bare_loop"], HERE) if module else ([py, HERE + "/bare_loop.py"], ROOT)
        else:
            cmd, self.cwd = [py] + (["-m", "tinymcp"] if module else [ROOT + "/tinymcp/__main__.py"]), ROOT
        self.argv = argv or cmd + ["--config", config] + list(extra)
        self.name = ("bare loop" if kind == "bare" else "tinymcp") + (" -m" if module else "")
        self.proc, self.timed_out, self.next_id, self.deadline = None, False, 1, float("inf")
        self.env = ENV if env is None else env

    def __enter__(self):
        self.err = tempfile.TemporaryFile()
        return self

    def __exit__(self, *exc):
        LIVE.discard(self)
        try:
            if self.proc is not None:  # EOF: it exits by itself, or is killed below
                with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                    self.proc.stdin.close()
                    self.proc.wait(2)
        finally:
            if self.proc is not None:
                if self.proc.poll() is None:
                    self.proc.kill()
                self.proc.wait()
                self.proc.stdout.close()
            self.err.close()

    def start(self):
        """Spawn, send initialize, read its reply; the seconds that took."""
        self.deadline = time.monotonic() + TIMEOUT
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err)
        LIVE.add(self)
        self.proc.stdin.write(INITIALIZE)
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        elapsed = time.perf_counter() - t0
        self.check(line, "initialize")
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.proc.stdin.flush()
        return elapsed

    def check(self, line, what):
        """``line`` if it is a result; else BenchError, with the end of the server's stderr."""
        self.deadline = float("inf")
        if b'"result"' in line:
            return line
        why = ("replied " + line[:200].decode("utf-8", "replace") if line else
               "no reply within %.0f s" % TIMEOUT if self.timed_out else "stdout closed")
        self.err.seek(0)
        tail = last_line(self.err.read()[-2000:])
        raise BenchError("%s, %s: %s%s" % (self.name, what, why, " (stderr: %s)" % tail if tail else ""))

    def request(self, method, params):
        self.deadline, self.next_id = time.monotonic() + TIMEOUT, self.next_id + 1
        try:
            self.proc.stdin.write(frame(self.next_id, method, params))
            self.proc.stdin.flush()
        except OSError:
            self.check(b"", method)  # (it died: says so, with its stderr)
        return self.check(self.proc.stdout.readline(), method)

    def gets(self, indices, n):
        """prompts/get requests of the prompts ``indices`` (modulo ``n``), both arguments given."""
        first, self.next_id = self.next_id + 1, self.next_id + len(indices)
        return [frame(first + k, "prompts/get", {"name": "p%05d" % (i % n), "arguments": {
            "topic": "subject %d" % k, "tone": "calm"}}) for k, i in enumerate(indices)]

    def timed(self, reqs, pipelined=False):
        """Seconds for ``reqs``: each sent after the previous reply, or all written at once by a
        writer thread (``pipelined``) while this one reads the replies."""
        w, r, line, blob = self.proc.stdin, self.proc.stdout, b'"result"', pipelined and b"".join(reqs)

        def write_all():
            with contextlib.suppress(OSError):  # (it died: the reads say so)
                w.write(blob)
                w.flush()
        writer = threading.Thread(target=write_all, daemon=True)
        self.deadline = time.monotonic() + TIMEOUT
        t0 = time.perf_counter()
        try:
            if pipelined:
                writer.start()
            for req in reqs:
                if not pipelined:
                    w.write(req)
                    w.flush()
                line = r.readline()
                if b'"result"' not in line:
                    break
        except OSError:
            line = b""
        elapsed = time.perf_counter() - t0
        if pipelined:
            writer.join(TIMEOUT)
        self.check(line, "pipelined prompts/get" if pipelined else "prompts/get")
        return elapsed

    def walk(self):
        """Seconds to walk every prompts/list page, each asked after the previous reply; prompts listed."""
        cursor, pages, t0 = None, [], time.perf_counter()
        while cursor is not None or not pages:  # (each page read whole after the walk: only its cursor now)
            pages.append(self.request("prompts/list", {} if cursor is None else {"cursor": cursor}))
            at = pages[-1].rfind(b'"nextCursor":')
            cursor = None if at < 0 or len(pages) > 10 ** 4 else json.JSONDecoder().raw_decode(
                pages[-1][at + 13:].decode())[0]
        elapsed = time.perf_counter() - t0
        return elapsed, sum(len(json.loads(page)["result"]["prompts"]) for page in pages)

    def hwm(self):
        """Peak RSS so far (VmHWM, KiB), read while it runs; None without /proc."""
        with contextlib.suppress(OSError), open("/proc/%d/status" % self.proc.pid) as f:
            return next((int(line.split()[1]) for line in f if line.startswith("VmHWM:")), None)


@contextlib.contextmanager
def pair(py, order, config, extra=(), make=None):
    """Both servers running side by side, started in ``order``: {kind: Server}; ``make(kind,
    config)`` makes each (default: ``kind`` under ``py``)."""
    make = make or (lambda kind, config: Server(py, kind, config, extra=extra))
    with contextlib.ExitStack() as stack:
        servers = {kind: stack.enter_context(make(kind, config)) for kind in order}
        for server in servers.values():
            server.start()
        yield servers


@contextlib.contextmanager
def pinned(servers):
    """The bench's thread and every thread of the servers on one CPU (where supported)."""
    def pin(cpus):
        for pid in [0] + [s.proc.pid for s in servers]:  # (0: this thread)
            tasks = "/proc/%d/task" % pid
            for tid in os.listdir(tasks) if pid and os.path.isdir(tasks) else [pid]:
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(int(tid), cpus)
    saved = PIN and os.sched_getaffinity(0)
    try:
        if PIN:
            pin({max(saved)})
        yield
    finally:
        if PIN:
            pin(saved)


def interleaved(servers, reqs, slices=10):
    """Round trips of ``reqs[kind]`` in slices, the servers taking turns (who goes first
    alternating) so that a busy spell of the machine hits both alike; seconds per kind."""
    spent, order = dict.fromkeys(servers, 0.0), list(servers)
    for c in range(slices):
        for kind in order[c % 2:] + order[:c % 2]:
            size = -(-len(reqs[kind]) // slices)
            spent[kind] += servers[kind].timed(reqs[kind][c * size:(c + 1) * size])
    return spent


# --- the phases: each returns one sample of each of its metrics, {metric: {kind: value}} ----

def spawned(order, make):
    """Spawn to the initialize reply read of each ``make(kind)``, one server after the
    other: ``({kind: seconds}, {kind: VmHWM right after})``."""
    secs, rss = {}, {}
    for kind in order:
        with make(kind) as s:
            secs[kind], rss[kind] = s.start(), s.hwm()
    return secs, rss


def cold_files(py, files, order):
    """Spawn to the initialize reply read: the folder of prompt files ("tiny") and the same
    prompts as a JSON config ("bare"), both tinymcp."""
    source = {"tiny": ["--prompts", files[0]], "bare": ["--config", files[1]]}
    argv = lambda kind: [py, ROOT + "/tinymcp/__main__.py"] + source[kind]  # noqa: E731
    return {"files": spawned(order, lambda kind: Server(py, "tiny", None, argv=argv(kind)))[0]}


def cold(py, config, order, module, n):
    """Spawn to the initialize reply read, one server after the other; VmHWM right after."""
    secs, rss = spawned(order, lambda kind: Server(py, kind, config, module))
    return {"coldm%d" % n: secs} if module else {"cold%d" % n: secs, "rss0_%d" % n: rss}


def round_trips(py, config, order, plan, n):
    """prompts/get round trips on one CPU: at 100 prompts (each got before) then the pipeline;
    at 10,000 each naming a prompt not got before."""
    with pair(py, order, config) as servers:
        for s in servers.values() if n == 100 else ():  # untimed: every prompt once; a JIT's warm-up
            for count in [100] + [5000] * (plan.warm // 5000):
                s.timed(s.gets(range(count), 100), pipelined=True)
        out = {"rt%d" % n: timed_gets(servers, order, plan.rt if n == 100 else plan.first, n)}
        if n == 100:
            piped = dict.fromkeys(order, 0.0)
            for r in range(plan.pipe_rounds):
                for kind in order[r % 2:] + order[:r % 2]:
                    piped[kind] += servers[kind].timed(servers[kind].gets(range(plan.pipe), n), True)
            out["pipe"] = {k: plan.pipe * plan.pipe_rounds / piped[k] for k in order}
        out["rss1_%d" % n] = {k: s.hwm() for k, s in servers.items()}
        return out


def timed_gets(servers, order, count, n):
    """``count`` prompts/get round trips of each server on one CPU, at 10,000 prompts each
    naming a prompt not got before: {kind: req/s}."""
    names = range(count) if n == 100 else [i * 7919 % n for i in range(count)]  # (7919: prime)
    reqs = {k: s.gets(names, n) for k, s in servers.items()}
    with pinned(servers.values()):
        spent = interleaved(servers, reqs)
    return {k: count / spent[k] for k in order}


def list_walk(py, config, order):
    """10,000 prompts at --page-size 100: one full prompts/list walk of each, on one CPU."""
    with pair(py, order, config, ("--page-size", "100")) as servers, pinned(servers.values()):
        out = {}
        for kind in order:
            out[kind], names = servers[kind].walk()
            if names != 10000:
                raise BenchError("%s listed %d prompts, not 10000" % (servers[kind].name, names))
        return {"walk": out}


def measure(py, configs, runs, plan, walk=True, files=None):
    """Warm bytecode and page cache (untimed), then ``runs`` runs of every phase: ({metric:
    [{kind: value}]}, {metric: why it failed}). ``files``: ``write_files``' pair, for its
    cold starts."""
    samples, errors = {}, {}

    def record(phase, *metrics):  # (a failed phase's samples are dropped, and its rows say why)
        try:
            for metric, by_kind in phase().items():
                samples.setdefault(metric, []).append(by_kind)
        except FAILURES as exc:
            errors.update(dict.fromkeys(metrics, " ".join(str(exc).split()) or repr(exc)))
            log("%s: %s" % (", ".join(metrics), errors[metrics[0]]))
    for n in configs:
        for module in (False, True):
            with contextlib.suppress(*FAILURES):  # (a failure shows in the rows measured next)
                cold(py, configs[n], ("bare", "tiny"), module, n)
    if files:
        with contextlib.suppress(*FAILURES):
            cold_files(py, files, ("bare", "tiny"))
    t0 = time.monotonic()
    for i in range(runs):
        order = ("bare", "tiny") if i % 2 == 0 else ("tiny", "bare")
        for n in configs:
            for r in range(plan.cold_reps[n]):
                o = order[r % 2:] + order[:r % 2]
                record(lambda: cold(py, configs[n], o, False, n), "cold%d" % n, "rss0_%d" % n)
                record(lambda: cold(py, configs[n], o, True, n), "coldm%d" % n)
            record(lambda: round_trips(py, configs[n], order, plan, n), "rt%d" % n, "rss1_%d" % n,
                   *(("pipe",) if n == 100 else ()))
        if walk:
            record(lambda: list_walk(py, configs[10000], order), "walk")
        for r in range(plan.cold_reps[100] if files else 0):
            record(lambda: cold_files(py, files, order[r % 2:] + order[:r % 2]), "files")
        log("%s: run %d/%d done (%.0f s)" % (py, i + 1, runs, time.monotonic() - t0))
    return samples, errors


def on_minimal(py, minimal, configs, plan):
    """tinymcp on Debian's python3-minimal ("tiny") against tinymcp on the full interpreter
    ("bare"): ({metric: [{kind: value}]}, {metric: why it failed}), as ``measure``."""
    env = dict(ENV, PYTHONHOME=os.path.dirname(os.path.dirname(minimal)))
    samples, errors = {}, {}

    def server(kind, config):
        return Server(py if kind == "bare" else minimal, "tiny", config, env=None if kind == "bare" else env)

    def cold_start(n, order):
        return {"mcold%d" % n: spawned(order, lambda kind: server(kind, configs[n]))[0]}

    def trips(n, order):
        with pair(py, order, configs[n], make=server) as servers:
            return {"mrt%d" % n: timed_gets(servers, order, plan.rt // 5 if n == 100 else plan.first // 10, n)}
    for n in configs:  # (warm: python3-minimal's own bytecode is written by its first run)
        with contextlib.suppress(*FAILURES):
            cold_start(n, ("bare", "tiny"))
    for i in range(plan.runs):
        order = ("bare", "tiny") if i % 2 == 0 else ("tiny", "bare")
        for n in configs:
            for phase, metric in ((cold_start, "mcold%d" % n), (trips, "mrt%d" % n)):
                try:
                    for key, by_kind in phase(n, order).items():
                        samples.setdefault(key, []).append(by_kind)
                except FAILURES as exc:
                    errors[metric] = " ".join(str(exc).split()) or repr(exc)
    return samples, errors


def fetch_minimal():
    """Debian's python3-minimal, by scripts/fetch-minimal-python: (its path, None) or (None, why not)."""
    try:
        out = subprocess.run([os.path.join(HERE, "fetch-minimal-python")], capture_output=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, str(exc)
    if out.returncode:
        return None, last_line(out.stderr) or "fetch-minimal-python failed"
    return out.stdout.decode().strip(), None


# --- tinymcp alone: import time and size; rows (label, value, shown, goal) ----------------

IMPORT_PROBE = ("import sys, time; t = time.perf_counter(); import tinymcp; t = time.perf_counter() - t; "
                "print(t, *[m for m in ('re', 'enum', 'base64') if m in sys.modules])")
SERVE_PROBE = """import atexit, sys
def dump(out=sys.argv[1]):  # sorted(sys.modules), each with its file
    with open(out, 'w') as f:
        f.writelines('%s\\t%s\\n' % (m, getattr(sys.modules[m], '__file__', None)) for m in sorted(sys.modules))
atexit.register(dump)
sys.path.insert(0, sys.argv[2])
from tinymcp.cli import main
sys.exit(main(sys.argv[3:]))
"""


def import_time(py, runs):
    """``import tinymcp`` timed in fresh processes, and whether it imported re, enum or base64."""
    times, seen = [], set()
    for _ in range(runs + 1):  # (the first one only warms)
        out = subprocess.run([py, "-c", IMPORT_PROBE], cwd=ROOT, env=dict(ENV, PYTHONPATH=ROOT),
                             stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT)
        if out.returncode:
            raise BenchError("import tinymcp failed: %s" % last_line(out.stderr))
        first, *mods = out.stdout.decode().split()
        times.append(float(first))
        seen.update(mods)
    ms = statistics.median(times[1:]) * 1000
    return [("`import tinymcp` in a fresh process (median of %d)" % runs, ms, "%.2f ms" % ms, ("<", 4, "< 4 ms")),
            ("re, enum or base64 imported by it", len(seen), " ".join(sorted(seen)) or "none", ("<=", 0, "none"))]


DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def code_lines(path):
    """(lines holding a token other than COMMENT/NL/NEWLINE/INDENT/DEDENT/ENDMARKER outside any
    module, class or function docstring, the file's ast)."""
    with open(path, "rb") as f:
        src = f.read()
    tree, docs, lines = ast.parse(src, path), [], set()
    for node in [tree] + [n for n in ast.walk(tree) if isinstance(n, DEFS + (ast.ClassDef,))]:
        first = node.body[0] if node.body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            docs.append(((first.lineno, first.col_offset), (first.end_lineno, first.end_col_offset)))
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENDMARKER, tokenize.ENCODING}
    for tok in tokenize.tokenize(io.BytesIO(src).readline):
        if tok.type not in skip and not any(a <= tok.start and tok.end <= b for a, b in docs):
            lines.update(range(tok.start[0], tok.end[0] + 1))
    return len(lines), tree


def served_files(py, config):
    """The package's files in sys.modules at the exit of a stdio server over ``config`` that
    served handshake-era requests, then 2026-07-28 stateless ones."""
    out = config + ".modules.txt"  # (in the bench's temp dir)
    with Server(py, "tiny", config, argv=[py, "-c", SERVE_PROBE, out, ROOT, "--config", config]) as s:
        s.start()
        s.request("prompts/list", {})
        s.request("prompts/get", {"name": "p00001", "arguments": {"topic": "x"}})
        s.request("completion/complete", {"ref": {"type": "ref/prompt", "name": "p00001"},
                                          "argument": {"name": "tone", "value": "n"}})
        s.request("server/discover", META)
        s.request("prompts/get", dict(META, name="p00002", arguments={"topic": "x"}))
        s.proc.stdin.close()
        s.proc.wait(TIMEOUT)
    pkg = os.path.realpath(os.path.join(ROOT, "tinymcp")) + os.sep
    with contextlib.suppress(OSError), open(out) as f:
        files = {os.path.realpath(line.split("\t")[1]) for line in f.read().splitlines()}
        files.add(pkg + "__main__.py")  # (run, not imported, by `python tinymcp/__main__.py`)
        return sorted(p for p in files if p.startswith(pkg))
    raise BenchError("the server exited without listing its modules")


def code_size(py, config):
    """Lines of code, in all and as served; the longest function and class."""
    pkg, counted, longest = os.path.join(ROOT, "tinymcp"), {}, {"function": (0, "none"), "class": (0, "none")}
    files = [os.path.realpath(os.path.join(d, f)) for d, _, fs in os.walk(pkg) for f in fs if f.endswith(".py")]
    for path in sorted(files):
        counted[path], tree = code_lines(path)
        for node in ast.walk(tree):
            kind = "class" if isinstance(node, ast.ClassDef) else "function" if isinstance(node, DEFS) else None
            if kind and node.end_lineno - node.lineno + 1 > longest[kind][0]:
                longest[kind] = (node.end_lineno - node.lineno + 1, "%s (%s:%d)" % (
                    node.name, os.path.relpath(path, ROOT), node.lineno))
    rows = [("lines of code, the package (%d files)" % len(counted), sum(counted.values()), 5500)]
    try:
        served = served_files(py, config)
        rows.append(("lines of code, the %d modules a stdio server runs serving both eras (its entry too)"
                     % len(served),
                     sum(counted.get(p) or code_lines(p)[0] for p in served), 2500))
    except FAILURES as exc:
        rows.append(("lines of code a stdio server imports: %s" % " ".join(str(exc).split()), None, 2500))
    rows += [("longest %s: %s" % (kind, longest[kind][1]), longest[kind][0], goal)
             for kind, goal in (("function", 80), ("class", 300))]
    return [(label, v, "n/a" if v is None else "{:,} lines".format(v), ("<=", goal)) for label, v, goal in rows]


# --- the interpreter ------------------------------------------------------------------------

def clean_venv(base):
    """A venv of ``base`` without pip or system site-packages, made once, then reused."""
    tag, where = subprocess.run([base, "-c", "import os, platform, sys; print(platform.python_implementation()"
                                 " + '-%d.%d' % sys.version_info[:2], os.path.realpath(sys.executable))"],
                                env=ENV, capture_output=True, check=True, timeout=TIMEOUT).stdout.decode().split()
    venv = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                        "tinymcp-bench", "venv-%s-%08x" % (tag, zlib.crc32(where.encode())))  # (one per base)
    if not os.path.exists(os.path.join(venv, "bin", "python")):
        log("making a clean venv at %s" % venv)
        subprocess.run([base, "-m", "venv", "--without-pip", "--clear", venv], env=ENV, check=True,
                       timeout=300, stdout=subprocess.DEVNULL)
    return os.path.join(venv, "bin", "python")


def checked(python):
    """(``python``, its description), unless it imports anything at start beyond site's own."""
    def run(*flags):
        code = ("import sys; at_start = list(sys.modules); import platform; "  # (before platform's own imports)
                "print(platform.python_implementation(), platform.python_version(), *at_start)")
        return subprocess.run([python, *flags, "-c", code], env=ENV, capture_output=True, check=True,
                              timeout=TIMEOUT).stdout.decode().split()
    impl, version, *mods = run()
    extra = sorted(m for m in set(mods) - set(run("-S")) - SITE_OWN if not m.startswith("encodings."))
    if extra:
        raise BenchError("%s imports %d modules at start beyond site's own (%s...: a .pth file or a "
                         "sitecustomize), pre-paying the servers' imports. Use the default venv or "
                         "--python a clean interpreter" % (python, len(extra), " ".join(extra[:8])))
    return python, "%s %s (`%s`)" % (impl, version, python)


# --- the report --------------------------------------------------------------------------------

ROWS = [("cold100", "cold start, 100 prompts, by path", "ms", ("<=", 1.15)),
        ("cold10000", "cold start, 10,000 prompts, by path", "ms", ("<=", 1.8)),
        ("coldm100", "cold start, 100 prompts, both with -m (information)", "ms", None),
        ("coldm10000", "cold start, 10,000 prompts, both with -m (information)", "ms", None),
        ("rss0_100", "peak RSS after initialize, 100 prompts", "MiB", ("<=", 1.15)),
        ("rss0_10000", "peak RSS after initialize, 10,000 prompts", "MiB", ("<=", 1.25)),
        ("rss1_100", "peak RSS after the round trips and the pipeline, 100 prompts", "MiB", ("<=", 1.15)),
        ("rss1_10000", "peak RSS after the first-use round trips, 10,000 prompts", "MiB", ("<=", 1.25)),
        ("rt100", "prompts/get round trip, 100 prompts, repeated gets, one CPU", "req/s", (">=", 0.75)),
        ("rt10000", "prompts/get round trip, 10,000 prompts, each a first use, one CPU", "req/s", (">=", 0.75)),
        ("pipe", "prompts/get pipelined", "req/s", (">=", 1.0)),
        ("walk", "prompts/list full walk, 10,000 prompts, 100 a page, one CPU", "ms", ("<=", 1.3))]
FILES_ROWS = [("files", "cold start, 1,000 prompts", "ms", ("<=", 2.0))]
MINIMAL_ROWS = [("mcold100", "cold start, 100 prompts", "ms", ("<=", 1.5)),
                ("mcold10000", "cold start, 10,000 prompts", "ms", None),
                ("mrt100", "prompts/get round trip, 100 prompts, repeated gets, one CPU", "req/s", None),
                ("mrt10000", "prompts/get round trip, 10,000 prompts, each a first use, one CPU", "req/s", None)]
UNITS = {"ms": lambda v: "%.1f ms" % (v * 1000), "MiB": lambda v: "%.1f MiB" % (v / 1024.0),
         "req/s": lambda v: "{:,.0f} req/s".format(v)}


def judge(value, goal):
    """(the goal as shown, PASS or MISS); FAILED where nothing was measured."""
    if goal is None:
        return "", ""
    shown = goal[2] if len(goal) > 2 else "%s %s" % (goal[0], format(goal[1], ","))
    if value is None:
        return shown, "FAILED"
    ok = {"<": value < goal[1], "<=": value <= goal[1], ">=": value >= goal[1]}[goal[0]]
    return shown, "PASS" if ok else "MISS"


def paired_table(measured, rows, header="| measure | pairs | bare loop | tinymcp | tinymcp/bare | goal | |"):
    out = [header, "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for metric, label, unit, goal in rows:
        pairs = [p for p in measured[0].get(metric, ()) if None not in p.values()]
        if not pairs:
            why = measured[1].get(metric, "not measured (no /proc?)")[:200].replace("|", "/")
            out.append("| %s | 0 | %s | | | %s | %s |" % ((label, why) + judge(None, goal)))
            continue
        ratio = statistics.median(p["tiny"] / p["bare"] for p in pairs)
        # three decimals where two would show the goal itself (1.15 MISS for 1.153)
        shown = "%.3f" % ratio if goal and "%.2f" % ratio == "%.2f" % goal[1] else "%.2f" % ratio
        medians = [UNITS[unit](statistics.median(p[k] for p in pairs)) for k in ("bare", "tiny")]
        out.append("| %s | %d | %s | %s | %s | %s | %s |" % (label, len(pairs), *medians, shown, *judge(ratio, goal)))
    return out


def machine():
    model = "unknown CPU"
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), model)
    return "%s, %d CPUs (%d usable)" % (model, os.cpu_count() or 0, len(os.sched_getaffinity(0)) if PIN else 0)


def revision():
    def git(*args):
        return subprocess.run(["git", "--no-optional-locks", "-C", ROOT, *args], capture_output=True,
                              timeout=TIMEOUT).stdout.decode().strip()
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        if os.path.samefile(git("rev-parse", "--show-toplevel") or "/", ROOT):
            return "commit " + git("rev-parse", "--short", "HEAD") + (
                " + uncommitted changes" if git("status", "--porcelain", "--", "tinymcp") else "")
    return "%s (not a git checkout)" % ROOT


def report(plan, interp, res, own, pypy, pypy_res, minimal=None, minimal_res=None):
    text = ["# Performance", "", "<!-- Written by scripts/bench.py: each run replaces this file. -->", "",
            "Measured %s on %s: tinymcp at %s; %d runs%s, %.0f s." % (
                time.strftime("%Y-%m-%d %H:%M %Z"), machine(), revision(), plan.runs,
                " (--quick)" if plan.quick else "", time.monotonic() - plan.t0), "", "## How this was measured", "",
            "tinymcp (`python tinymcp/__main__.py --config F`) against a bare stdlib loop (`python "
            "scripts/bare_loop.py --config F`), both under %s: a `venv --without-pip` without system "
            "site-packages, checked to import nothing at start beyond site's own modules; every child "
            "runs without any PYTHON* variable, the bytecode of the modules it imports warmed before timing "
            "(a script run by its path, `bare_loop.py` or `tinymcp/__main__.py`, is compiled at each start). "
            "The bare loop reads a line at a time, calls `json.loads` and `json.dumps` on each message and "
            "writes and flushes each reply; tinymcp makes its decoder and encoder once, serves every line one "
            "read brings and writes their replies at once, and loads its config with the cycle collector "
            "paused: the ratios compare it with that plain loop, not with one that does the same (a bare loop "
            "that batched its writes would be far faster pipelined). Each run starts fresh "
            "processes of both, alternating who goes first; a row gives medians and the median of the "
            "paired tinymcp/bare ratios (each pair measured in one run: cold starts one after the other, "
            "the others in turns while both run). Each generated "
            "prompt has a description, a required and a defaulted argument, and one user message with "
            "two placeholders. Cold start: spawn to the initialize reply read, %d and %d pairs a run at "
            "100 and 10,000 prompts (the `-m` rows: `python -m tinymcp`, and `python -m bare_loop` from "
            "scripts/). Peak RSS: VmHWM from /proc/PID/status while it runs. Round trips: each "
            "prompts/get sent after the previous reply, %s, the two servers taking turns in 10 slices; "
            "%s a server at 100 prompts (every prompt got once before), %s at 10,000, each naming a "
            "prompt not got before. Pipelined: %s requests written at once by a thread while the "
            "replies are read, %d times a server. The walk: every prompts/list page at `--page-size "
            "100`, each asked after the previous reply, on one CPU (each page parsed after the walk). "
            "`import tinymcp`: `perf_counter` around it in `python -c` (cwd and PYTHONPATH the checkout). "
            "Lines of code: lines holding a token that is not a comment, a blank or a docstring (tokenize "
            "and ast); served: `tinymcp/__main__.py` and the package's modules in sys.modules at the exit "
            "of a stdio server that answered initialize, prompts/list, prompts/get and "
            "completion/complete, then 2026-07-28 server/discover and a stateless prompts/get." % (
                interp, plan.cold_reps[100], plan.cold_reps[10000],
                "the bench and both servers pinned to one CPU" if PIN else "unpinned (unsupported here)",
                format(plan.rt, ","), format(plan.first, ","), format(plan.pipe, ","), plan.pipe_rounds),
            ""] + paired_table(res, ROWS)
    text += ["", "A folder of 1,000 MCP Markdown files (`--prompts DIR`, each file a prompt above: its "
             "description and arguments as front matter, its message as the body) against the same "
             "prompts as one JSON config (`--config F`), both tinymcp, in the same runs (%d pairs a run):"
             % plan.cold_reps[100], ""] + paired_table(
                 res, FILES_ROWS, "| measure | pairs | JSON config | prompt files | files/JSON | goal | |")
    text += ["", "tinymcp alone:", "", "| measure | tinymcp | goal | |", "| --- | ---: | ---: | --- |"]
    text += ["| %s | %s | %s | %s |" % (label, shown, *judge(value, goal)) for label, value, shown, goal in own]
    if pypy_res:
        text += ["", "PyPy, %s, a venv made the same way; %d run(s); each 100-prompt server first served %s "
                 "requests, untimed, for its JIT; no goals:" % (pypy, plan.pypy_runs, format(plan.warm + 100, ",")), ""]
        text += paired_table(pypy_res, [r[:3] + (None,) for r in ROWS if r[0][:3] in ("col", "rt1", "pip")])
    elif pypy:
        text += ["", "PyPy: %s." % pypy]
    if minimal_res:
        loads = [p["tiny"] for p in minimal_res[0].get("mcold10000", ())]
        load = statistics.median(loads) if loads else None
        text += ["", "Debian's python3-minimal (`%s`, PYTHONHOME its `usr`: no `json`, so `tinymcp/jsonlite.py` "
                 "reads and writes JSON) against tinymcp on the interpreter above, both `python "
                 "tinymcp/__main__.py`; the same runs and pairs, round trips a fifth and a tenth as many:"
                 % minimal, "",
                 ] + paired_table(minimal_res, MINIMAL_ROWS,
                                  "| measure | pairs | full | python3-minimal | minimal/full | goal | |")
        text += ["", "| measure | python3-minimal | goal | |", "| --- | ---: | ---: | --- |",
                 "| a 10,000-prompt config, spawn to the initialize reply | %s | < 1 s | %s |" % (
                     UNITS["ms"](load) if load is not None else "not measured",
                     judge(load, ("<", 1.0, "< 1 s"))[1])]
    elif minimal:
        text += ["", "python3-minimal: %s." % minimal]
    return "\n".join(text) + "\n"


# --- main -------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, help="runs of every measure (default 7; 2 with --quick)")
    ap.add_argument("--quick", action="store_true", help="fewer runs and requests: a smoke test")
    ap.add_argument("--no-write", action="store_true", help="print only, leave docs/performance.md")
    ap.add_argument("--python", help="measure under this interpreter (default: a clean venv)")
    ap.add_argument("--pypy", help="make the PyPy venv of this PyPy (default: pypy3 on PATH)")
    ap.add_argument("--no-pypy", action="store_true", help="skip PyPy")
    ap.add_argument("--no-minimal", action="store_true", help="skip Debian's python3-minimal")
    ap.add_argument("--root", help="the tinymcp checkout to measure (default: this repository)")
    plan = ap.parse_args(argv)
    global ROOT
    ROOT = os.path.realpath(plan.root or REPO)
    plan.runs = (2 if plan.quick else 7) if plan.runs is None else plan.runs
    if plan.runs < 1 or not os.path.isfile(os.path.join(ROOT, "tinymcp", "__main__.py")):
        ap.error("--runs must be 1 or more, and %s must hold tinymcp/__main__.py" % ROOT)
    plan.cold_reps = {100: 1, 10000: 1} if plan.quick else {100: 4, 10000: 2}
    plan.rt, plan.first, plan.pipe = (300, 1000, 1000) if plan.quick else (5000, 10000, 5000)
    plan.pipe_rounds, plan.warm, plan.pypy_runs, plan.t0 = 3, 0, max(1, plan.runs // 2), time.monotonic()
    signal.signal(signal.SIGTERM, lambda signum, _: sys.exit(128 + signum))  # (unwinds: all reaped)
    threading.Thread(target=_watchdog, daemon=True).start()
    try:
        py, interp = checked(plan.python or clean_venv(sys.executable))
    except FAILURES as exc:
        return log("refusing to measure: %s" % exc) or 2
    pypy = pypy_about = pypy_res = None
    pypy_base = None if plan.no_pypy else plan.pypy or shutil.which("pypy3")
    pypy_about = None if pypy_base or plan.no_pypy else "not measured (no pypy3 on PATH; --pypy PATH names one)"
    if pypy_base:
        try:
            pypy, pypy_about = checked(clean_venv(pypy_base))
        except FAILURES as exc:
            pypy_about = "not measured, " + " ".join(str(exc).split())
            log("PyPy " + pypy_about)
    tmp, own = tempfile.mkdtemp(prefix="tinymcp-bench-"), []
    try:
        configs = {n: write_config(tmp, n) for n in (100, 10000)}
        for label, probe, goal in (("lines of code", lambda: code_size(py, configs[100]), ("<=", 5500)),
                                   ("`import tinymcp`", lambda: import_time(py, 3 * plan.runs), ("<", 4, "< 4 ms"))):
            try:
                own += probe()  # (the first also warms the bytecode of what serving imports)
            except FAILURES as exc:
                own.append((label, None, " ".join(str(exc).split())[:200].replace("|", "/"), goal))
        res = measure(py, configs, plan.runs, plan, files=write_files(tmp))
        minimal, why = (None, "not measured (--no-minimal)") if plan.no_minimal else fetch_minimal()
        minimal_res = on_minimal(py, minimal, configs, plan) if minimal else None
        if pypy:
            plan.warm = 5000 if plan.quick else 20000
            pypy_res = measure(pypy, configs, plan.pypy_runs, plan, walk=False)
    except KeyboardInterrupt:
        return log("interrupted") or 130
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = report(plan, interp, res, own, pypy_about, pypy_res, minimal or why, minimal_res)
    sys.stdout.write(text)
    if not plan.no_write:
        with open(os.path.join(REPO, "docs", "performance.md"), "w") as f:
            f.write(text)
    return 0 if res[0] else 1


if __name__ == "__main__":
    sys.exit(main())
