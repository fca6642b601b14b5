"""Reloading a served config (``source.ConfigFile``): on SIGHUP, and with ``--watch``, the
stat checks of the config file and its prompt folders on a thread of their own, so that
walking and reading a large folder never holds the loop (a reload hands the new prompts
to it through the server's change hook). Loaded by the first reload or ``--watch``: a
server that is never reloaded never loads this, nor starts the thread.
"""

import threading
from contextlib import nullcontext
from time import perf_counter, time_ns

from .errors import ConfigError, cut

#: The most of one CPU the checks may take: when the last two both took longer than this
#: share of the interval (a large folder: every file in it is stat'ed), the next is put
#: off in proportion to the shorter, never past WATCH_LONGEST seconds (100,000 files,
#: stat'ed in ~0.3 s: a check every 30 s, 1% of a CPU; a change is seen within a minute).
WATCH_SHARE, WATCH_LONGEST = 0.01, 30.0
#: a refused reload tells sessions of its first REPORTED problems (each cut to REPORTED_CHARS
#: characters) and how many more there are; stderr has them all
REPORTED, REPORTED_CHARS = 10, 200


class Watcher:
    """The watch of a ``source.ConfigFile`` (``source``): ``start()`` its thread, which
    makes a ``check()`` every ``source.interval`` seconds or more, until ``stop`` is set."""

    def __init__(self, source):
        self.source, self.took, self.stop = source, 0.0, threading.Event()
        # (a reload at a time: SIGHUP on the loop, a change here; the prompts were read just now, at start)
        source.lock, source.read_at = threading.Lock(), time_ns()

    def start(self):
        threading.Thread(target=self._run, name="tinymcp-watch", daemon=True).start()

    def _run(self):
        delay = self.source.interval
        while not self.stop.wait(delay):
            try:
                delay = self.check()
            except Exception as exc:  # (a walk that failed, MemoryError too: told, and the watch goes on)
                self.source.log("error", "--watch: a check of %s failed: %s" % (self.source.name, exc), exc)

    def check(self):
        """One check: reload when the sources changed and looked the same at the last
        check (a file caught half-written is not reloaded until the writer is done).
        Returns the seconds until the next."""
        source = self.source
        started = perf_counter()  # (not monotonic: 15.6 ms ticks on Windows before 3.13)
        sig = source.signature()
        took = perf_counter() - started
        # (read again once, by the first check past the window of a read that was racy: see _racy)
        racy = sig == source.loaded and _racy(sig, source.read_at) and not _racy(sig, time_ns())
        if sig != source.loaded and sig == source.seen or racy:
            source.reload("changed", sig)
        source.seen = sig
        cost, self.took = min(took, self.took), took
        return min(max(source.interval, cost / WATCH_SHARE), WATCH_LONGEST)


def _racy(sig, now):
    """Whether a file of ``sig`` (a ``ConfigFile.signature()``, watched) was written within 2 s
    before ``now``, when it was read, on a file system that keeps whole seconds (ext3, HFS+,
    FAT; ext4 with small inodes): a second write of the same size in that second would look
    like none, its edit never served (as git's "racily clean" entries, compared with the time
    of the read, not of the check: a check may come 30 s later; a time after the read, a clock
    set back, is not: it would be read again at every check). Such a read is read again once,
    by the first check when the same test of its time then is false: each check for 2 s read
    it again, an edit told 18 times "reloaded", or refused 18 times over, to every session.
    Nanosecond times tell every write apart."""
    stats = [sig[0]] + [st for folder in sig[1] for _, st in folder]
    return any(st and st[3] % 10**9 == 0 and 0 <= now - st[3] < 2 * 10**9 for st in stats)


def reload(source, why, sig=None):
    """Read, validate and hand over everything of ``source``; on any problem keep the old
    prompts. ``sig``: the sources' ``signature()`` the watch check has just taken. (Not
    watched, there is no lock: reloads come from the loop alone.)"""
    with source.lock or nullcontext():
        try:
            source.loaded = source.seen = source.signature() if sig is None else sig
            source.read_at = time_ns()
            # (a file touched or rewritten as it was is read again: the server finds its
            # prompts unchanged and tells no one; no digest of every start's bytes is kept)
            if (config := source.load(sig)) is None:  # (changed while read: see below)
                return False
            source.server.replace_config(config)
        except Exception as exc:  # (MemoryError too: whatever fails, the old prompts stay)
            # (a watched change whose sources changed again while they were read: a writer began
            # again, and what was read may be half-written, or a file renamed away for a moment;
            # nothing read is served or told, and a later check that finds them the same twice
            # (not ``sig``: ``loaded``) reads them again)
            if sig is not None and source.signature() != sig:
                return False
            message = "invalid %s %s (%s): still serving the previous prompts" % (
                "config" if source.path else "prompt files in", source.name, why)
            problems = exc.problems if isinstance(exc, ConfigError) else [("", "%s: %s" % (type(exc).__name__, exc))]
            source.log("error", "\n".join([message] + ["  %s: %s" % (p, m) if p else "  %s" % m for p, m in problems]))
            if (hub := source.hub) is not None:
                hub.loop.call_soon_threadsafe(lambda: tell_sessions(hub, message, problems))
            return False
        source.tell(source.log)
        source.log("info", "reloaded %s (%s)" % (source.name, why))
        return True


def tell_sessions(hub, message, problems):
    """A reload was refused and the old prompts stay (logged on stderr): tell every
    handshake-era session of ``hub`` whose log level admits errors, with
    ``notifications/message`` (logging "Log Message Notifications"): the first few
    problems and a count, so a file of many mistakes never floods a client (loop thread)."""
    data = {"message": message, "problems": [
        {"path": cut(p, REPORTED_CHARS), "message": cut(m, REPORTED_CHARS)} for p, m in problems[:REPORTED]]}
    if len(problems) > REPORTED:
        data["more"] = len(problems) - REPORTED
    for pump in list(hub.pumps):
        pump.send(pump.session.log_event("error", data))
