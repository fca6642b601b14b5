"""Worker threads for ``render`` and ``complete`` callables, so that none runs on the loop.

A few threads per server, started when a callable first needs one (a config without
callables never starts any). Each outcome is posted back to the loop's thread
(``post``, the loop's thread-safe call), where the session turns it into the reply: the
loop keeps serving every other request and client meanwhile. With a time limit
(``limits.max_callable_ms``), a callable that overruns is answered -32603 on the loop
when the limit passes; its thread is abandoned (Python cannot stop a thread), logged,
and replaced, and whatever it returns later is dropped.
"""


#: threads per server (the socket's clients share them)
THREADS = 4


class _Job:
    __slots__ = ("work", "done", "timer", "over", "started", "abandoned")

    def __init__(self, work, done):
        self.work, self.done = work, done
        self.timer = None
        self.over = False       # answered (done, or its time ran out)
        self.started = False    # a thread runs it
        self.abandoned = False  # its time ran out while it ran: its thread ends after it


class Workers:
    """The session's ``executor``: ``submit(work, done, timeout)`` and ``post(fn)``."""

    def __init__(self, post, call_later, log, size=THREADS):
        self.post = post
        self._call_later = call_later
        self.log = log
        self.size = size
        self._jobs = None  # (a queue.SimpleQueue, made with the first job: most configs have no callables)
        self._lock = None
        self._threads = 0  # threads taking jobs (an abandoned one no longer counts)
        self._idle = 0

    def submit(self, work, done, timeout=None):
        """Run ``work()`` on a worker; ``done(value, exc)`` is then called on the loop."""
        job = _Job(work, done)
        if self._jobs is None:  # (submit runs on the loop's thread: no race)
            import queue
            import threading
            self._jobs, self._lock = queue.SimpleQueue(), threading.Lock()
        if timeout:
            job.timer = self._call_later(timeout, lambda: self._expire(job, timeout))
        self._jobs.put(job)
        self._grow()

    def _grow(self):
        """Start a thread when jobs wait that no idle thread will take, up to ``size``."""
        with self._lock:
            start = self._threads < self.size and self._jobs.qsize() > self._idle
            if start:
                self._threads += 1
        if start:
            import threading
            threading.Thread(target=self._serve, name="tinymcp-worker", daemon=True).start()

    def close(self):
        """Let the threads end once idle (they are daemons: they never hold the exit)."""
        for _ in range(self._threads):
            self._jobs.put(None)

    def _serve(self):
        while True:
            with self._lock:
                self._idle += 1
            job = self._jobs.get()
            with self._lock:
                self._idle -= 1
                if job is None:
                    return
                if job.over:
                    continue  # its time ran out before it started: never run
                job.started = True
            try:
                value, exc = job.work(), None
            except BaseException as error:  # (SystemExit too: one request's failure)
                value, exc = None, error
            self.post(lambda job=job, value=value, exc=exc: self._finish(job, value, exc))
            with self._lock:
                if job.abandoned:  # its time ran out: a replacement took this thread's place
                    return

    def _finish(self, job, value, exc):
        if job.over:
            return  # answered already (its time ran out): what it made is dropped
        job.over = True
        if job.timer is not None:
            job.timer.cancel()
        job.done(value, exc)

    def _expire(self, job, timeout):
        with self._lock:
            if job.over:
                return
            job.over = True
            if job.started:
                job.abandoned = True
                self._threads -= 1  # that thread is abandoned; a new one may start
        self.log("warning", "a callable ran over %g s (max_callable_ms): answered -32603, "
                 "its thread abandoned" % timeout)
        job.done(None, TimeoutError("the callable ran over the limit of %d ms (max_callable_ms)"
                                    % round(timeout * 1000)))
        self._grow()
