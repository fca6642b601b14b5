"""Worker threads for ``render`` and ``complete`` callables, so that none runs on the loop.

A few threads per server, started when a callable first needs one (a config without
callables never starts any). Each outcome is posted back to the loop's thread
(``post``, the loop's thread-safe call), where the session turns it into the reply: the
loop keeps serving every other request and client meanwhile. With a time limit
(``limits.max_callable_ms``), a callable that overruns is answered -32603 on the loop
when the limit passes; its thread is abandoned (Python cannot stop a thread), logged,
and replaced, and whatever it returns later is dropped.
"""

import threading
from collections import deque

from ..errors import InternalError

#: threads per server taking callables (the socket's clients share them)
THREADS = 4
#: threads abandoned past ``max_callable_ms`` that may still be running, in all; past it a
#: callable is refused at once (-32603 saying why) until some end (security.md)
ABANDONED_MOST = 16
_BUSY = ("Internal error: callables still running past max_callable_ms hold every thread "
         "this request may use (%d abandoned in all); try again when they end")


def _count(counts, key, step):
    """Add ``step`` to ``counts[key]``; a count of 0 is no key (owners come and go)."""
    n = counts.pop(key, 0) + step
    if n:
        counts[key] = n


class _Job:
    __slots__ = ("work", "done", "owner", "timer", "over", "started", "abandoned")

    def __init__(self, work, done, owner):
        self.work, self.done, self.owner = work, done, owner
        self.timer = None
        self.over = False       # answered (done, or its time ran out)
        self.started = False    # a thread runs it
        self.abandoned = False  # its time ran out while it ran: its thread ends after it


class Workers:
    """The session's ``executor``: ``submit(work, done, timeout, owner)`` and ``post(fn)``.

    Fair between owners (the sessions): waiting jobs are taken round robin, one owner's
    at a time, and one owner's jobs hold at most ``size - 1`` threads (abandoned ones
    included, until they end), so another owner's callable always finds a thread."""

    def __init__(self, post, call_later, log, size=THREADS):
        self.post, self._call_later, self.log, self.size = post, call_later, log, size
        self.each = max(1, size - 1)  # threads one owner's jobs may hold
        self._cond = threading.Condition()
        self._waiting = {}  # owner -> deque of its waiting jobs; in turn order (round robin)
        self._held = {}     # owner -> threads its jobs hold (running or abandoned)
        self._hung = {}     # owner -> threads of its jobs abandoned (still running)
        self._threads = self._idle = self._queued = self._abandoned = 0
        self._closed = False

    def submit(self, work, done, timeout=None, owner=None):
        """Run ``work()`` on a worker; ``done(value, exc)`` is then called on the loop."""
        job = _Job(work, done, owner)
        with self._cond:
            # (an owner whose every thread is abandoned would only wait out its time)
            busy = self._abandoned >= ABANDONED_MOST or self._hung.get(owner, 0) >= self.each
            if not busy:
                self._waiting.setdefault(owner, deque()).append(job)
                self._queued += 1
                start = self._threads < self.size and self._queued > self._idle
                self._threads += start
                self._cond.notify()
        if busy:
            self.post(lambda: done(None, InternalError(_BUSY % self._abandoned)))
            return
        if timeout:
            job.timer = self._call_later(timeout, lambda: self._expire(job, timeout))
        if start:
            self._start()

    def _start(self):
        threading.Thread(target=self._serve, name="tinymcp-worker", daemon=True).start()

    def close(self):
        """Let the threads end once idle (they are daemons: they never hold the exit)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def forget(self, owner):
        """Drop ``owner``'s waiting jobs, never run nor answered, and their time limits (its
        connection ended: a client that pipelined callables and hung up, again and again,
        had every one of them run, 1 GB of them waiting, while others waited their turn)."""
        with self._cond:  # (a thread taking a job takes its owner out of _waiting for a moment)
            jobs = self._waiting.pop(owner, ())
            self._queued -= len(jobs)
        for job in jobs:
            if job.timer is not None:
                job.timer.cancel()

    def _take(self):
        """The next job (lock held): the first of the first owner in turn that may hold
        one more thread; that owner's turn then goes to the back. None when none may."""
        for owner, jobs in self._waiting.items():
            if self._held.get(owner, 0) < self.each:
                job = jobs.popleft()
                del self._waiting[owner]
                if jobs:
                    self._waiting[owner] = jobs
                self._queued -= 1
                _count(self._held, owner, 1)
                job.started = True
                return job
        return None

    def _serve(self):
        while True:
            with self._cond:
                while (job := self._take()) is None:
                    if self._closed:
                        self._threads -= 1
                        return
                    self._idle += 1
                    self._cond.wait()
                    self._idle -= 1
            try:
                value, exc = job.work(), None
            except BaseException as error:  # (SystemExit too: one request's failure)
                value, exc = None, error
            self.post(lambda job=job, value=value, exc=exc: self._finish(job, value, exc))
            with self._cond:
                _count(self._held, job.owner, -1)
                self._cond.notify()  # (an owner at its share may take a thread again)
                if job.abandoned:  # its time ran out: a replacement took this thread's place
                    self._abandoned -= 1
                    _count(self._hung, job.owner, -1)
                    return

    def _finish(self, job, value, exc):
        if job.over:
            return  # answered already (its time ran out): what it made is dropped
        job.over = True
        if job.timer is not None:
            job.timer.cancel()
        job.done(value, exc)

    def _expire(self, job, timeout):
        with self._cond:
            if job.over:
                return
            job.over = True
            if job.started:  # that thread is abandoned: a new one may take its place
                job.abandoned = True
                self._abandoned += 1
                _count(self._hung, job.owner, 1)
                start = self._queued > self._idle and not self._closed
                self._threads += start - 1
            else:  # still waiting: it never runs
                jobs = self._waiting[job.owner]
                jobs.remove(job)
                self._queued -= 1
                if not jobs:
                    del self._waiting[job.owner]
                start = False
        self.log("warning", "a callable ran over %g s (max_callable_ms): -32603 unless cancelled%s" % (
            timeout, ", its thread abandoned" if job.started else " before it started"))
        job.done(None, TimeoutError("the callable ran over the limit of %d ms (max_callable_ms)"
                                    % round(timeout * 1000)))
        if start:
            self._start()
