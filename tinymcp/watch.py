"""``--watch``: the stat checks of a served config file and its prompt folders, on a thread
of their own, so that walking and reading a large folder never holds the loop (a reload
hands the new prompts to it through the server's change hook). Loaded by ``--watch``
alone: a server without it never starts the thread, nor loads this.
"""

from time import perf_counter

#: The most of one CPU the checks may take: when the last two both took longer than this
#: share of the interval (a large folder: every file in it is stat'ed), the next is put
#: off in proportion to the shorter, never past WATCH_LONGEST seconds (100,000 files,
#: stat'ed in ~0.3 s: a check every 30 s, 1% of a CPU; a change is seen within a minute).
WATCH_SHARE, WATCH_LONGEST = 0.01, 30.0


class Watcher:
    """The watch of a ``source.ConfigFile`` (``source``): ``start()`` its thread, which
    makes a ``check()`` every ``source.interval`` seconds or more, until ``stop`` is set."""

    def __init__(self, source):
        import threading
        self.source, self.took, self.stop = source, 0.0, threading.Event()
        source.lock = threading.Lock()  # (a reload at a time: SIGHUP on the loop, a change here)

    def start(self):
        import threading
        threading.Thread(target=self._run, name="tinymcp-watch", daemon=True).start()

    def _run(self):
        delay = self.source.interval
        while not self.stop.wait(delay):
            delay = self.check()

    def check(self):
        """One check: reload when the sources changed and looked the same at the last
        check (a file caught half-written is not reloaded until the writer is done).
        Returns the seconds until the next."""
        source = self.source
        started = perf_counter()  # (not monotonic: 15.6 ms ticks on Windows before 3.13)
        sig = source.signature()
        took = perf_counter() - started
        if sig != source.loaded and sig == source.seen:
            source.reload("changed", sig)
        source.seen = sig
        cost, self.took = min(took, self.took), took
        return min(max(source.interval, cost / WATCH_SHARE), WATCH_LONGEST)
