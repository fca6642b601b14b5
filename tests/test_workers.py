"""Callables off the loop: render and complete run on worker threads while stdio keeps
serving; progress goes out as it happens; cancels, time limits and batches.

In process: the stdio transport serves on its own thread between pipes, and the test
drives it. Every wait is for a line (``GUARD`` only guards against a hang); a callable
that must be mid-run waits on an ``Event`` the test sets.
"""

import json
import os
import sys
import threading

import pytest

import tinymcp
from conftest import line, read_to_eof, req
from tinymcp import Server
from tinymcp.io.stdio import serve_stdio
from transport_helpers import GUARD, Lines

INIT = req(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
INIT_0325 = req(0, "initialize", {"protocolVersion": "2025-03-26", "capabilities": {}})


class Live:
    """stdio served on a thread of its own, between two pipes."""

    def __init__(self, config, transport_log=None, **server_options):
        self.r_in, self.w_in = os.pipe()
        self.r_out, self.w_out = os.pipe()
        self.server = config if isinstance(config, Server) else Server(config, **server_options)
        self.logged = []
        self.status = []
        self.thread = threading.Thread(target=lambda: self.status.append(serve_stdio(
            self.server, in_fd=self.r_in, out_fd=self.w_out,
            log=transport_log or (None if "log" in server_options else lambda level, message, exc=None:
                                  self.logged.append((level, message))))),
            daemon=True)
        self.thread.start()
        self.lines = Lines(self.r_out)

    def send(self, *msgs):
        os.write(self.w_in, b"".join(line(m) for m in msgs))

    def frame(self):
        return self.lines.frame(GUARD)

    def batch(self):
        """The next line, a batch's array."""
        import time
        deadline = time.monotonic() + GUARD
        while b"\n" not in self.lines.buf:
            assert self.lines._fill(deadline), "no line within the guard"
        raw, self.lines.buf = self.lines.buf.split(b"\n", 1)
        return json.loads(raw)

    def finish(self):
        """EOF; the frames written after the ones read, and the exit status."""
        os.close(self.w_in)
        self.thread.join(GUARD)
        os.close(self.w_out)
        rest = self.lines.buf + read_to_eof(self.r_out)
        for fd in (self.r_in, self.r_out):
            os.close(fd)
        return [json.loads(x) for x in rest.splitlines()], self.status


def blocking_render(started, release, steps=()):
    def render(arguments):
        for value in steps:
            tinymcp.progress(value, total=len(steps))
        started.set()
        assert release.wait(GUARD)
        return "done"
    return render


def test_a_running_render_does_not_hold_other_requests_and_progress_goes_out_at_once():
    started, release = threading.Event(), threading.Event()
    live = Live({"prompts": [{"name": "slow", "render": blocking_render(started, release, (1, 2))}]})
    live.send(INIT)
    assert live.frame()["id"] == 0
    live.send(req(1, "prompts/get", {"name": "slow", "_meta": {"progressToken": "t"}}))
    # the notifications arrive while the render still runs...
    for value in (1, 2):
        note = live.frame()
        assert note["method"] == "notifications/progress" and note["params"]["progress"] == value
    assert started.wait(GUARD)
    live.send(req(2, "ping"))
    assert live.frame() == {"jsonrpc": "2.0", "id": 2, "result": {}}  # ...and a ping is answered
    release.set()
    reply = live.frame()
    assert reply["id"] == 1 and reply["result"]["messages"][0]["content"]["text"] == "done"
    assert live.finish() == ([], [0])


def test_a_cancel_for_a_running_callable_sends_no_reply():
    started, release = threading.Event(), threading.Event()
    live = Live({"prompts": [{"name": "slow", "render": blocking_render(started, release)}]})
    live.send(INIT)
    live.frame()
    live.send(req(1, "prompts/get", {"name": "slow"}))
    assert started.wait(GUARD)
    live.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
              req(2, "ping"))
    assert live.frame()["id"] == 2
    release.set()
    live.send(req(3, "ping"))
    assert live.frame()["id"] == 3  # the render's answer, come meanwhile, was discarded
    assert live.finish() == ([], [0])


def test_a_cancelled_callable_sends_no_more_progress():
    # (progress "MUST only reference tokens that ... are associated with an in-progress operation")
    started, release, sent, returned = threading.Event(), threading.Event(), threading.Event(), []

    def render(arguments):
        returned.append(tinymcp.progress(1))
        started.set()
        assert release.wait(GUARD)
        returned.append(tinymcp.progress(2))  # (False: the callable can tell it may stop)
        sent.set()
        return "done"
    live = Live({"prompts": [{"name": "slow", "render": render}]})
    live.send(INIT)
    live.frame()
    live.send(req(1, "prompts/get", {"name": "slow", "_meta": {"progressToken": "t"}}))
    assert live.frame()["params"]["progress"] == 1 and started.wait(GUARD)
    live.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}, req(2, "ping"))
    assert live.frame()["id"] == 2
    release.set()
    assert sent.wait(GUARD) and returned == [True, False]  # (had it been sent, it must go no further)
    live.send(req(3, "ping"))
    assert live.frame()["id"] == 3
    assert live.finish() == ([], [0])


def test_a_callable_over_its_time_limit_is_answered_32603_and_the_server_goes_on():
    started, release = threading.Event(), threading.Event()
    live = Live({"limits": {"max_callable_ms": 50},
                 "prompts": [{"name": "slow", "render": blocking_render(started, release)},
                             {"name": "p", "messages": [{"role": "user", "text": "hi"}]}]})
    live.send(INIT)
    live.frame()
    live.send(req(1, "prompts/get", {"name": "slow"}))
    error = live.frame()["error"]
    assert error["code"] == -32603 and error["message"] == "Internal error"
    live.send(req(2, "prompts/get", {"name": "p"}))
    assert live.frame()["result"]["messages"][0]["content"]["text"] == "hi"
    release.set()  # (the abandoned thread ends; what it made is dropped)
    assert live.finish() == ([], [0])
    assert any(error["data"]["errorId"] in message and "max_callable_ms" in message
               for _, message in live.logged)
    # (the operator's line: it said "answered -32603" of a request the client had cancelled too)
    assert ("warning", "a callable ran over 0.05 s (max_callable_ms): -32603 unless cancelled, its thread "
            "abandoned") in live.logged


@pytest.mark.parametrize("given_to", ["Server", "serve_stdio"])
def test_a_log_hook_that_raises_costs_no_answer_and_never_ends_the_server(given_to):
    def log(level, message, exc=None):
        raise RuntimeError("the operator's hook failed")

    started, release = threading.Event(), threading.Event()
    live = Live({"limits": {"max_callable_ms": 50},
                 "prompts": [{"name": "slow", "render": blocking_render(started, release)},
                             {"name": "bad", "render": lambda args: 1 / 0}]},
                **({"log": log} if given_to == "Server" else {"transport_log": log}))
    live.send(INIT)
    live.frame()
    live.send(req(1, "prompts/get", {"name": "slow"}))  # (its time-out is logged)
    assert live.frame()["error"]["code"] == -32603
    live.send(req(2, "prompts/get", {"name": "bad"}))  # (and so is its failure)
    assert live.frame()["error"]["code"] == -32603
    live.send(req(3, "ping"))
    assert live.frame() == {"jsonrpc": "2.0", "id": 3, "result": {}}
    release.set()
    assert live.finish()[1] == [0]


def test_eof_with_a_callable_still_running_and_stdout_unread_still_ends(monkeypatch):
    # (the bound on the flush after EOF was looked at once, while the answer was still to
    # come: its 200 KB, never read, then held the server for good)
    import time
    monkeypatch.setattr(tinymcp.io.stdio, "DRAIN_SECONDS", 0.05)

    def render(args):
        time.sleep(0.3)  # (a callable slower than the bound: what is under test, not a wait)
        return "x" * 200000

    live = Live({"prompts": [{"name": "slow", "render": render}]})
    live.send(INIT, req(1, "prompts/get", {"name": "slow"}))
    os.close(live.w_in)  # (EOF; stdout is never read past the pipe's 64 KiB)
    live.thread.join(GUARD)
    assert live.status == [0]
    for fd in (live.r_in, live.r_out, live.w_out):
        os.close(fd)


def test_a_callable_raising_systemexit_or_keyboardinterrupt_on_a_worker_fails_only_its_request():
    def raising(exc):
        def callable_(*args):
            raise exc
        return callable_

    kinds = [SystemExit(3), KeyboardInterrupt(), GeneratorExit()]
    live = Live({"prompts": [{"name": "r%d" % i, "render": raising(exc)} for i, exc in enumerate(kinds)]
                 + [{"name": "c", "arguments": [{"name": "a", "complete": raising(SystemExit(3))}],
                     "messages": [{"role": "user", "text": "{a}"}]}]})
    live.send(INIT)
    live.frame()
    for i in range(len(kinds)):
        live.send(req(i + 1, "prompts/get", {"name": "r%d" % i}))
        error = live.frame()["error"]
        assert error["code"] == -32603 and error["message"] == "Internal error"
    live.send(req(9, "completion/complete", {"ref": {"type": "ref/prompt", "name": "c"},
                                             "argument": {"name": "a", "value": ""}}))
    assert live.frame()["error"]["code"] == -32603
    live.send(req(10, "ping"))
    assert live.frame() == {"jsonrpc": "2.0", "id": 10, "result": {}}
    assert live.finish() == ([], [0])
    assert len(live.logged) == 4


class Holding:
    """A session's executor that runs nothing: ``held`` keeps each job's ``(work, resolve)``
    until the test resolves it."""

    def __init__(self):
        self.held = []

    def submit(self, work, resolve, timeout=None, owner=None):
        self.held.append((work, resolve))

    def post(self, fn):
        fn()


def held_session(prompts, initialize=INIT):
    """A sans-I/O Session on ``Holding``, initialized; returns ``(session, executor)``."""
    from tinymcp import Session
    executor = Holding()
    session = Session(Server({"prompts": prompts}, log=lambda *a: None), executor=executor)
    session.receive_data(line(initialize))
    return session, executor


RENDERED = {"name": "r", "render": lambda a: "x"}


def test_a_worker_outcome_that_is_a_baseexception_is_an_internal_error_on_the_loop():
    # the session's side of the worker boundary: whatever a worker posts back as the
    # outcome (here SystemExit itself), the loop answers -32603 and goes on
    wire_session, executor = held_session([RENDERED])
    wire_session.receive_data(line(req(1, "prompts/get", {"name": "r"})))
    [(_, resolve)] = executor.held
    resolve(None, SystemExit(3))
    reply = json.loads(wire_session.data_to_send())
    assert reply["id"] == 1 and reply["error"]["code"] == -32603


def test_past_most_busy_callables_waiting_a_connection_is_refused_more_but_served_else():
    # (each answer looked at every request still to be answered: 16,000 pipelined to a
    # callable took 12 s of a loop that a socket's other clients share)
    from tinymcp.protocol.session import MOST_BUSY
    session, executor = held_session([RENDERED])
    session.data_to_send()
    out = session.receive_data(b"".join(line(req(i, "prompts/get", {"name": "r"})) for i in range(MOST_BUSY + 2))
                               + line({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                       "params": {"requestId": 0}}) + line(req("p", "ping")))
    refused = [json.loads(f) for f in out.splitlines()]
    assert [f["id"] for f in refused] == [MOST_BUSY, MOST_BUSY + 1, "p"]  # (the cancel and the ping: at once)
    assert refused[0]["error"]["code"] == -32603 and "try again" in refused[0]["error"]["message"]
    assert len(executor.held) == MOST_BUSY
    answered = []
    while executor.held:
        work, resolve = executor.held.pop(0)
        resolve(work(), None)
        answered += [json.loads(f)["id"] for f in session.data_to_send().splitlines()]
    assert answered == list(range(1, MOST_BUSY))  # (0 was cancelled)
    session.receive_data(line(req("again", "prompts/get", {"name": "r"})))
    assert len(executor.held) == 1  # (some answered: callables are taken again)


class Queued(Holding):
    """``Holding``, and what a worker posts back to the loop waits in ``posted`` until the
    test runs it."""

    def __init__(self):
        super().__init__()
        self.posted = []

    def post(self, fn):
        self.posted.append(fn)


def test_nothing_a_callable_sends_goes_out_after_its_time_ran_out_and_it_was_answered():
    # Progress MUST stop after completion: the time limit answers on the loop while the
    # progress the callable already sent still waits to reach it, and the callable runs on
    started, release, sent_after = threading.Event(), threading.Event(), []

    def render(arguments):
        tinymcp.progress(1)
        started.set()
        assert release.wait(GUARD)
        sent_after.append(tinymcp.progress(2))
        return "late"

    from tinymcp import Session
    executor = Queued()
    session = Session(Server({"prompts": [{"name": "r", "render": render}]}, log=lambda *a: None),
                      executor=executor)
    session.receive_data(line(INIT))
    session.data_to_send()
    session.receive_data(line(req(1, "prompts/get", {"name": "r", "_meta": {"progressToken": "t"}})))
    [(work, resolve)] = executor.held
    worker = threading.Thread(target=work)
    worker.start()
    assert started.wait(GUARD)
    resolve(None, TimeoutError("over the limit"))  # (what the time limit does)
    release.set()
    worker.join(GUARD)
    for fn in executor.posted:
        fn()
    frames = [json.loads(f) for f in session.data_to_send().splitlines()]
    assert [(f.get("id"), f.get("method")) for f in frames] == [(1, None)], frames
    assert frames[0]["error"]["code"] == -32603
    assert sent_after == [False]  # progress() says nothing was sent


def test_a_batch_with_a_callable_is_answered_as_one_array_when_all_of_it_is_done():
    started, release = threading.Event(), threading.Event()
    live = Live({"prompts": [{"name": "slow", "render": blocking_render(started, release)}]})
    live.send(INIT_0325)
    live.frame()
    live.send([req(1, "prompts/get", {"name": "slow"}), req(2, "ping")])
    assert started.wait(GUARD)
    live.send(req(3, "ping"))
    assert live.frame()["id"] == 3  # (replies may leave out of order; the batch waits whole)
    release.set()
    batch = live.batch()
    assert [r["id"] for r in batch] == [1, 2] and batch[0]["result"]["messages"]
    assert live.finish() == ([], [0])


def test_requests_read_before_eof_are_all_answered_even_when_callables_finish_after_it():
    started, release = threading.Event(), threading.Event()
    live = Live({"prompts": [{"name": "slow", "render": blocking_render(started, release)}]})
    live.send(INIT, req(1, "prompts/get", {"name": "slow"}))
    live.frame()
    assert started.wait(GUARD)
    os.close(live.w_in)  # EOF while the render runs
    live.w_in = os.open(os.devnull, os.O_WRONLY)  # (finish() closes it again)
    release.set()
    assert live.frame()["id"] == 1
    assert live.finish() == ([], [0])


def test_complete_callables_run_on_workers_too():
    started, release = threading.Event(), threading.Event()

    def complete(value, context):
        started.set()
        assert release.wait(GUARD)
        return ["a", "b"]

    live = Live({"prompts": [{"name": "c", "arguments": [{"name": "x", "complete": complete}],
                              "messages": [{"role": "user", "text": "{x}"}]}]})
    live.send(INIT)
    live.frame()
    live.send(req(1, "completion/complete", {"ref": {"type": "ref/prompt", "name": "c"},
                                            "argument": {"name": "x", "value": ""}}))
    assert started.wait(GUARD)
    live.send(req(2, "ping"))
    assert live.frame()["id"] == 2
    release.set()
    assert live.frame()["result"]["completion"]["values"] == ["a", "b"]
    assert live.finish() == ([], [0])


def test_declarative_prompts_start_no_thread():
    before = set(threading.enumerate())  # (an earlier test's idle workers may still be ending)
    live = Live({"prompts": [{"name": "p", "messages": [{"role": "user", "text": "hi"}]}]})
    live.send(INIT, req(1, "prompts/get", {"name": "p"}))
    live.frame()
    live.frame()
    assert not [t for t in threading.enumerate() if t.name == "tinymcp-worker" and t not in before]
    live.finish()


# --- serving from any thread, stopped from another ------------------------------------------

def test_stdio_served_on_a_thread_stops_when_the_server_is_stopped_from_another():
    live = Live({"prompts": [{"name": "p", "messages": [{"role": "user", "text": "hi"}]}]})
    live.send(INIT)
    assert live.frame()["id"] == 0
    live.server.stop()
    live.thread.join(GUARD)
    assert live.status == [0]  # (stdin still open: it was the stop that ended it)
    live.finish()


def test_a_stop_before_the_serving_thread_began_ends_that_serve_and_no_later_one():
    server = Server({"prompts": [{"name": "p", "messages": [{"role": "user", "text": "hi"}]}]})
    server.stop()  # (as right after Thread(target=serve, args=(server,)).start(): nothing serves yet)
    first = Live(server)
    first.thread.join(GUARD)
    assert first.status == [0]  # (stdin still open: it was the stop that ended it)
    first.finish()
    second = Live(server)
    second.send(INIT)
    assert second.frame()["id"] == 0
    assert second.finish()[1] == [0]


@pytest.mark.needs("socket")
def test_unix_socket_served_on_a_thread_stops_when_the_server_is_stopped_from_another():
    from tinymcp.socket.unix import serve_unix
    from transport_helpers import Client, short_dir
    import shutil
    where = short_dir()
    path = os.path.join(where, "s")
    server = Server({"prompts": [{"name": "p", "messages": [{"role": "user", "text": "hi"}]}]})
    listening = threading.Event()
    status = []

    def log(level, message, exc=None):
        if "listening on" in message:
            listening.set()

    thread = threading.Thread(target=lambda: status.append(serve_unix(server, path, log=log)), daemon=True)
    thread.start()
    try:
        assert listening.wait(GUARD)
        client = Client(path)
        assert client.initialize()["protocolVersion"] == "2025-11-25"
        server.stop()
        thread.join(GUARD)
        assert status == [0] and not os.path.exists(path)
        assert client.closed()
        client.close()
    finally:
        server.stop()
        shutil.rmtree(where, ignore_errors=True)


BIG = {"name": "big", "arguments": [{"name": "a"}], "messages": [{"role": "user", "text": "{a}"}]}


def test_a_session_serves_a_line_a_call_even_when_a_held_batch_fills_the_budget():
    # (the replies a batch holds for a callable count in the outbox and cannot leave: the
    # session served nothing, and a transport that asked again asked for ever)
    session, executor = held_session([RENDERED, BIG], INIT_0325)
    batch = [req(1, "prompts/get", {"name": "r"})] + [
        req(i, "prompts/get", {"name": "big", "arguments": {"a": "x" * 5000}}) for i in (2, 3)]
    out = session.receive_data(line(batch) + line(req(8, "ping")) + line(req(9, "ping")), 1000)
    served = []
    for _ in range(3):  # (each call serves a line at least)
        served += [json.loads(x)["id"] for x in out.splitlines()]
        if not session.pending:
            break
        out = session.resume(1000)
    assert served == [8, 9] and not session.pending and len(executor.held) == 1


def test_a_batch_held_for_a_callable_does_not_stall_the_lines_after_it_on_stdio():
    started, release = threading.Event(), threading.Event()
    live = Live({"prompts": [{"name": "slow", "render": blocking_render(started, release)}, BIG]})
    live.send(INIT_0325)
    live.frame()
    big = [req(i, "prompts/get", {"name": "big", "arguments": {"a": "x" * 900000}}) for i in range(2, 7)]
    live.send([req(1, "prompts/get", {"name": "slow"})] + big, req(9, "ping"))  # (4.5 MB held)
    assert started.wait(GUARD)
    assert live.frame()["id"] == 9
    release.set()
    assert [r["id"] for r in live.batch()] == [1, 2, 3, 4, 5, 6]
    assert live.finish() == ([], [0])


def test_a_pending_reply_whose_id_a_later_request_reused_can_still_be_cancelled():
    # (the later request took the id's key; once its reply had left, the pending one had
    # none, and a cancel for the id no longer dropped it: found in review)
    session, executor = held_session([RENDERED])
    out = session.receive_data(line(req(1, "prompts/get", {"name": "r"})) + line(req(1, "ping")))
    assert [json.loads(x)["id"] for x in out.splitlines()] == [1]  # (the ping's)
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    assert session.receive_data(line(cancel)) == b""
    [(work, resolve)] = executor.held
    resolve(work(), None)
    assert session.data_to_send() == b""


# --- fairness and bounds of the worker threads themselves -------------------------------------

class FakeLoop:
    """What ``Workers`` needs of a loop: ``post`` (what threads post waits until the test
    runs it) and ``call_later`` (timers the test fires)."""

    def __init__(self):
        import queue
        self.posted = queue.Queue()
        self.timers = []

    def post(self, fn):
        self.posted.put(fn)

    def call_later(self, delay, fn):
        timer = threading.Timer(delay, fn)  # (never started: ``fire`` runs it)
        self.timers.append(timer)
        return timer

    def fire(self):
        """Every timer not cancelled yet: their time runs out now."""
        timers, self.timers = self.timers, []
        for timer in timers:
            if not timer.finished.is_set():
                timer.function()

    def run_posted(self, until):
        while not until():
            self.posted.get(timeout=GUARD)()


def workers():
    from tinymcp.io.workers import Workers
    loop = FakeLoop()
    return Workers(loop.post, loop.call_later, lambda *a: None), loop


def test_one_clients_hung_callables_leave_a_thread_for_another_clients():
    pool, loop = workers()
    release, got = threading.Event(), []
    try:
        for _ in range(10):  # more than there are threads, all hanging (until the end: b's answer comes first)
            pool.submit(release.wait, lambda value, exc: None, None, "a")
        pool.submit(lambda: "b's", lambda value, exc: got.append(value), None, "b")
        loop.run_posted(lambda: got)
        assert got == ["b's"]
    finally:
        release.set()
        pool.close()


def test_the_waiting_callables_of_an_owner_forgotten_never_run_nor_time_out():
    pool, loop = workers()
    started, release, ran, answered = threading.Semaphore(0), threading.Event(), [], []

    def hold(i):
        ran.append(i)
        started.release()
        release.wait(GUARD)

    try:
        for i in range(5):  # three hold the threads one owner may hold, two wait
            pool.submit(lambda i=i: hold(i), lambda value, exc: answered.append(type(exc)), 30, "gone")
        for _ in range(3):
            assert started.acquire(timeout=GUARD)
        pool.forget("gone")
        loop.fire()  # (the time of each runs out: only those running are answered)
        release.set()
        pool.submit(lambda: "b's", lambda value, exc: answered.append(value), None, "b")
        loop.run_posted(lambda: "b's" in answered)
        assert sorted(ran) == [0, 1, 2] and answered == [TimeoutError] * 3 + ["b's"]
    finally:
        release.set()
        pool.close()


@pytest.mark.needs("socket")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="where a write tells a peer gone from one that "
                    "only shut its sending side")
def test_a_client_that_hangs_up_has_none_of_its_callables_not_begun_run():
    # Bug: a client that pipelined callables and hung up had every one of them run, again for
    # each connection it made: 1 GB of them waiting, and another client's answer 38 s late
    from tinymcp.socket.unix import serve_unix
    from transport_helpers import Client, short_dir
    import shutil
    where, started, release, ran, listening = short_dir(), threading.Semaphore(0), threading.Event(), [], \
        threading.Event()

    def render(arguments):
        ran.append(arguments["n"])
        started.release()
        assert release.wait(GUARD)
        return "done"

    server = Server({"prompts": [{"name": "slow", "arguments": [{"name": "n"}], "render": render}]})
    thread = threading.Thread(target=lambda: serve_unix(server, os.path.join(where, "s"), log=lambda level, message,
                              exc=None: "listening on" in message and listening.set()), daemon=True)
    thread.start()
    try:
        assert listening.wait(GUARD)
        gone = Client(os.path.join(where, "s"))
        gone.initialize()
        gone.send(*[req(i, "prompts/get", {"name": "slow", "arguments": {"n": str(i)}}) for i in range(5)])
        for _ in range(3):  # (the threads one client may hold: two more wait)
            assert started.acquire(timeout=GUARD)
        gone.close()
        other = Client(os.path.join(where, "s"))
        other.initialize()  # (its lines are read after the hang-up was)
        release.set()
        reply = other.call(req(9, "prompts/get", {"name": "slow", "arguments": {"n": "other"}}))
        assert reply["result"]["messages"][0]["content"]["text"] == "done"
        assert sorted(ran) == ["0", "1", "2", "other"]
        other.close()
    finally:
        release.set()
        server.stop()
        thread.join(GUARD)
        shutil.rmtree(where, ignore_errors=True)


def test_waiting_callables_are_taken_in_turn_between_clients():
    # (one thread freed takes the waiting calls one at a time: the order they run is the order
    # they are taken; with every thread let go at once, they ran in any order: flaky on PyPy)
    pool, loop = workers()
    started, release, one, order = threading.Semaphore(0), threading.Event(), threading.Event(), []

    def hold(event):
        started.release()
        event.wait(GUARD)

    try:
        for owner in ("h1", "h1", "h1", "h2"):  # every thread held (one owner may hold 3), so what follows waits
            pool.submit(lambda owner=owner: hold(one if owner == "h2" else release), lambda value, exc: None, None,
                        owner)
        for _ in range(pool.size):
            assert started.acquire(timeout=GUARD)
        for owner in "aaab":
            pool.submit(lambda owner=owner: order.append(owner), lambda value, exc: None, None, owner)
        one.set()
        loop.run_posted(lambda: len(order) == 4)
        assert order == ["a", "b", "a", "a"]  # b's one call did not wait for all of a's
    finally:
        release.set()
        one.set()
        pool.close()


def test_abandoned_threads_are_bounded_and_callables_recover_when_they_end():
    from tinymcp.io.workers import ABANDONED_MOST
    pool, loop = workers()
    release, started, hung, answers = threading.Event(), threading.Semaphore(0), [], []

    def hang():
        hung.append(threading.current_thread())
        started.release()
        release.wait(GUARD)

    try:
        for turn in range(ABANDONED_MOST):  # each turn: one call of a new client starts, then overruns
            pool.submit(hang, lambda value, exc: answers.append(exc), 1.0, turn)
            assert started.acquire(timeout=GUARD)
            loop.fire()
        assert len(hung) == ABANDONED_MOST
        workers_alive = [t for t in threading.enumerate() if t.name == "tinymcp-worker"]
        assert len(workers_alive) <= pool.size + ABANDONED_MOST
        # past the bound: refused at once, saying why
        pool.submit(lambda: "x", lambda value, exc: answers.append(exc), 1.0, "late")
        loop.run_posted(lambda: len(answers) == ABANDONED_MOST + 1)
        assert "max_callable_ms" in str(answers[-1]) and "try again" in str(answers[-1])
        release.set()
        for thread in hung:
            thread.join(GUARD)
        got = []
        pool.submit(lambda: "x", lambda value, exc: got.append(value), 1.0, "later")
        loop.run_posted(lambda: got)
        assert got == ["x"]
    finally:
        release.set()
        pool.close()


def test_a_cancel_drops_a_callable_still_waiting_for_a_thread():
    started, release, ran = threading.Event(), threading.Event(), []

    def hold(arguments):
        started.set()
        assert release.wait(GUARD)
        return "held"

    def counted(arguments):
        ran.append(1)
        return "ran"

    live = Live({"prompts": [{"name": "hold", "render": hold}, {"name": "counted", "render": counted}]})
    live.send(INIT)
    live.frame()
    live.send(*[req(i, "prompts/get", {"name": "hold"}) for i in range(1, 6)])
    assert started.wait(GUARD)
    live.send(req(6, "prompts/get", {"name": "counted"}),
              {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 6}})
    live.send(req(7, "ping"))
    assert live.frame()["id"] == 7
    release.set()
    assert sorted(live.frame()["id"] for _ in range(5)) == [1, 2, 3, 4, 5]
    assert live.finish() == ([], [0])
    assert ran == []  # cancelled before a thread took it: never run


def _abandon_every_thread_of(pool, loop, owner, release):
    """Start ``pool.each`` calls of ``owner`` that hang until ``release``, and let their time
    run out: every thread the owner may hold is abandoned. Returns their threads."""
    started, hung = threading.Semaphore(0), []

    def hang():
        hung.append(threading.current_thread())
        started.release()
        release.wait(GUARD)

    answers = []
    for _ in range(pool.each):
        pool.submit(hang, lambda value, exc: answers.append(exc), 1.0, owner)
    for _ in range(pool.each):
        assert started.acquire(timeout=GUARD)
    loop.fire()
    loop.run_posted(lambda: len(answers) == pool.each)
    return hung


def test_an_owner_whose_every_thread_is_abandoned_is_refused_at_once_then_served_once_they_end():
    pool, loop = workers()
    release, got = threading.Event(), []
    try:
        hung = _abandon_every_thread_of(pool, loop, "a", release)
        pool.submit(lambda: "x", lambda value, exc: got.append((value, exc)), 1.0, "a")
        loop.run_posted(lambda: got)  # (at once: not after its own time ran out)
        assert got[0][0] is None and "try again" in str(got[0][1])
        release.set()
        for thread in hung:
            thread.join(GUARD)
        got.clear()
        pool.submit(lambda: "x", lambda value, exc: got.append((value, exc)), 1.0, "a")
        loop.run_posted(lambda: got)
        assert got == [("x", None)]
    finally:
        release.set()
        pool.close()


def test_what_a_callable_returns_after_its_time_ran_out_is_dropped():
    pool, loop = workers()
    started, release, done = threading.Event(), threading.Event(), []

    def work():
        started.set()
        release.wait(GUARD)
        return "late"

    try:
        pool.submit(work, lambda value, exc: done.append((value, type(exc))), 1.0, "a")
        assert started.wait(GUARD)
        loop.fire()
        assert done == [(None, TimeoutError)]
        release.set()
        finished = []
        pool.submit(lambda: "next", lambda value, exc: finished.append(value), 1.0, "a")
        loop.run_posted(lambda: finished)  # (the late outcome was posted before: it ran first)
        assert done == [(None, TimeoutError)] and finished == ["next"]
    finally:
        release.set()
        pool.close()


def test_a_call_whose_time_runs_out_while_it_waits_leaves_the_threads_serving():
    pool, loop = workers()
    release, got = threading.Event(), []
    try:
        for owner in ("h1", "h1", "h1", "h2"):  # every thread held
            pool.submit(lambda: release.wait(GUARD), lambda value, exc: None, None, owner)
        pool.submit(lambda: "never", lambda value, exc: got.append(type(exc)), 1.0, "a")
        loop.fire()  # its time runs out before a thread took it
        assert got == [TimeoutError]
        release.set()
        pool.submit(lambda: "b's", lambda value, exc: got.append(value), None, "b")
        loop.run_posted(lambda: "b's" in got)
    finally:
        release.set()
        pool.close()


def test_an_abandoned_thread_that_ends_lets_its_owners_waiting_call_run():
    pool, loop = workers()
    first, rest, started, got = threading.Event(), threading.Event(), threading.Semaphore(0), []

    def hang(event):
        started.release()
        event.wait(3 * GUARD)  # (longer than the test waits for the answer: set at its end)

    try:
        pool.submit(lambda: hang(first), lambda value, exc: None, 1.0, "a")  # (timed: abandoned below)
        for _ in range(pool.each - 1):
            pool.submit(lambda: hang(rest), lambda value, exc: None, None, "a")
        for _ in range(pool.each):
            assert started.acquire(timeout=GUARD)
        pool.submit(lambda: "waited", lambda value, exc: got.append(value), None, "a")  # (a at its share: waits)
        loop.fire()  # the first is abandoned; its thread still counts until it ends
        first.set()  # it ends: the waiting call may take a thread now, while the others still hang
        loop.run_posted(lambda: "waited" in got)
    finally:
        first.set()
        rest.set()
        pool.close()
