"""What every transport shares: one pump per connection between fds and a Session, and
the hub that hands prompt changes to every session and drains them all at shutdown.

Backpressure, per pump: what one read brings is handed to the session with a budget, the
room left below ``high`` in the output backlog and at most ``BATCH`` (what a pipe takes
in one write: a larger batch of replies would only wait in memory, 0.6 MiB of a
pipelining client's peak); the session serves lines only while the replies it made are
within that budget (at least one line a call) and holds the rest back. Above ``high``
the pump neither serves nor reads until the peer has taken the backlog down to ``low``,
and it never reads while the session still holds lines. So a peer that sends without
reading holds at most ``high`` + one reply (a reply is bounded by the server's limits),
one read (``READ_SIZE``) of lines not served yet and one partial line (the server's line
limit), and costs the loop nothing more, however large its replies. Output the server
pushes on its own (list_changed notifications, the end of listen streams: at most
``max_listen_streams`` messages an event) may grow the backlog past ``high``, by up to
``hard`` bytes more than the peer has read since; past that the connection is closed
with a line in the log (a reply, up to ``max_render_bytes``, never counts: one of 7 MiB
read as it came and a reload closed its connection before it was answered). A paused
stdio pump still watches its input for a hang-up, and then reads it to the end (what the
closed pipe holds, no more), so a peer that closes stdin without reading stdout meets
the ``eof_drain`` bound rather than a server that waits. A peer's lines are served for
``TURN_SECONDS`` at most (at least one line), then the pump holds the rest until the
loop's next round, so every other peer ready by then is served first.
"""

import errno
import os
import signal
from time import monotonic

from ..protocol.session import no_log
from .loop import SERVING

READ_SIZE = 65536
#: replies made at most between two writes (with ``high``, the session's budget)
BATCH = 65536
#: stdio defaults: stop serving and reading while this much output waits for the peer
#: (one reply at least: a pipe holds 64 KiB, so a reader that keeps up never waits) ...
HIGH_WATER = 256 * 1024
#: ... and go on once it is down to this much.
LOW_WATER = 64 * 1024
#: After SIGTERM/SIGINT or EOF, give pending output this long to drain.
DRAIN_SECONDS = 2.0
#: One peer's lines are served for about this long (at least one line) before every other
#: peer ready gets its turn (the loop's next round).
TURN_SECONDS = 0.02
#: write errors that mean the peer went away: the connection ends without a log line
QUIET_ERRORS = frozenset((errno.EPIPE, errno.ECONNRESET, errno.EBADF, errno.ENOTCONN))


def read_some(fd):
    """Up to ``READ_SIZE`` bytes of the non-blocking ``fd``; None when none are ready now;
    ``b""`` at the end: EOF, or an error such as ECONNRESET (the peer is gone: what was
    read is still served)."""
    try:
        return os.read(fd, READ_SIZE)
    except (BlockingIOError, InterruptedError):
        return None
    except OSError:
        return b""


class StreamPump:
    """Moves bytes between a readable fd, a writable fd (the same one for a socket) and a
    Session on a Loop, with the backpressure described in the module docstring.

    ``on_close(pump)`` is called once, after the fds are unregistered (never closed here:
    the transport owns them). ``hard=None`` means never close for backlog (stdio, where
    pausing alone bounds memory and closing would end the server). ``eof_drain``: seconds
    output may go unread after EOF (None: no bound; stdio sets one).
    """

    def __init__(self, loop, session, in_fd, out_fd, on_close, high=HIGH_WATER, low=LOW_WATER,
                 hard=None, log=None, name="peer", eof_drain=None):
        self.loop, self.session, self.in_fd, self.out_fd = loop, session, in_fd, out_fd
        self.on_close, self.high, self.low, self.hard = on_close, high, low, hard
        self.log, self.name, self.eof_drain = log or no_log, name, eof_drain
        self.out, self.closed, self._turn_ends = bytearray(), False, 0.0
        self.eof = False      # no more input will be read (the peer's EOF, or shutdown)
        self.paused = False   # the backlog went over ``high``: no serving until it is down to ``low``
        self._waiting = False  # lines are held until the loop's next round (``_next_turn``)
        self._pushed = 0  # bytes pushed (``send``) that the peer has not read as much as since
        self._drained_at = 0.0  # (after EOF: when the peer last read some output)
        self._reading = self._writing = False
        session.on_ready = lambda: self.send(session.data_to_send(), False)  # (a deferred answer)
        self._progress()

    def on_readable(self):
        data = read_some(self.in_fd)
        if data is None:
            return
        if not data:
            self.eof = True
            if self.eof_drain is not None:
                self._drained_at = monotonic()
                self.loop.call_later(self.eof_drain, self._drain_over)
        self._turn_ends = monotonic() + TURN_SECONDS
        self._serve(self.session.receive_data, data)
        self._progress()

    def _drain_over(self):
        """``eof_drain`` seconds after EOF, or after the peer last read some of the output:
        output it has not read for that long is dropped."""
        if self.closed or not (self.out or self.session.pending):
            if not self.closed and self.session.busy:  # (answers still to come: the bound holds then)
                self.loop.call_later(self.eof_drain, self._drain_over)
            return
        left = self._drained_at + self.eof_drain - monotonic()
        if left > 0:  # (it read meanwhile: a slow reader still gets every answer)
            self.loop.call_later(left, self._drain_over)
            return
        self.log("warning", "%s: closed: none of the output read for %g s after the end of input"
                 % (self.name, self.eof_drain))
        self.close()

    def send(self, data, pushed=True):
        """Queue bytes the server sends on its own (notifications; ``pushed=False``: a
        deferred answer, bounded as a reply is)."""
        if not data or self.closed:
            return
        self._pushed += len(data) if pushed else 0
        if self.hard is not None and self._pushed > self.hard:
            self.log("warning", "%s: closed: more than %d bytes of output waiting while it "
                     "does not read" % (self.name, self.hard))
            self.close()
            return
        self.out += data
        self.paused = self.paused or len(self.out) > self.high
        self._progress()

    def shutdown(self):
        """Stop reading (lines not served are dropped), end the session's listen streams,
        and close once the output is flushed (the caller bounds how long that may take)."""
        if self.closed:
            return
        self.eof = True
        self.session.discard_pending()
        try:
            self.out += self.session.end_streams()
        except Exception as exc:  # (never let one session stop the others' shutdown)
            self.log("error", "%s: ending its streams failed: %s" % (self.name, exc), exc)
        self._progress()

    def close(self):
        if self.closed:
            return
        self.closed = True
        self.loop.forget(self.in_fd)
        self.loop.forget(self.out_fd)  # (nothing more when it is the same fd)
        self.out = bytearray()
        self.on_close(self)

    # --- the state machine ----------------------------------------------------------

    def _serve(self, serve, *data):
        """One call into the session, with the room left below ``high`` as its budget."""
        try:
            reply = serve(*data, max(min(self.high - len(self.out), BATCH), 1), self._turn_over)
        except Exception as exc:
            # Session turns every request's failure into an error reply; reaching here is
            # a bug, and it ends this connection only, never the server's other sessions.
            self.log("error", "%s: closed after an internal error: %s" % (self.name, exc), exc)
            self.close()
            return
        self.out += reply
        self.paused = self.paused or len(self.out) > self.high

    def _turn_over(self):
        return monotonic() >= self._turn_ends

    def _progress(self):
        """Serve, write and (un)register until nothing more can happen right now, within
        one turn (``TURN_SECONDS`` of serving, however many calls it takes)."""
        session = self.session
        while not self.closed:
            # (after EOF, with nothing to write too, on a socket (no drain bound: stdio has one): a write of
            # nothing to one its peer closed, not just shut for writing, fails on Linux, so its callables
            # not begun are dropped at once; never on a terminal, which stops a background job for it)
            if self.out or self.eof and self.eof_drain is None:
                try:
                    written = os.write(self.out_fd, self.out)
                    del self.out[:written]
                    self._pushed = max(self._pushed - written, 0)
                    if written and self.eof:
                        self._drained_at = monotonic()
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError as exc:
                    if exc.errno not in QUIET_ERRORS:
                        self.log("warning", "%s: closed: write failed: %s" % (self.name, exc))
                    self.close()  # the peer went away
                    return
            if self.paused and len(self.out) <= self.low:
                self.paused = False
            if self.paused or self._waiting or not session.pending:
                break
            if self._turn_over():
                self._waiting = True
                self.loop.call_next_round(self._next_turn)
                break
            self._serve(session.resume)  # (lines held back, and room for their replies now)
        if self.closed:
            return
        if self.eof and not (self.out or session.pending or session.busy):
            self.close()  # (every request read has had its answer)
            return
        # (paused on a peer that may never read: still learn that it hung up, stdio; else read when nothing holds it)
        read = "hangup" if self.paused and not self.eof and self.eof_drain is not None else not (
            self.eof or self.paused or self._waiting or session.pending)
        self._want(read, bool(self.out))

    def _next_turn(self):
        self._waiting = False
        self._turn_ends = monotonic() + TURN_SECONDS
        self._progress()  # (nothing once closed)

    def _want(self, read, write):
        if read != self._reading:
            self._reading = read
            self.loop.add_reader(self.in_fd, self.on_readable if read else None, hangup=read == "hangup")
        if write != self._writing:
            self._writing = write
            self.loop.add_writer(self.out_fd, self._progress if write else None)


class Hub:
    """The live sessions of one server on one loop.

    Registers a change hook on the server so ``Server.replace_config`` (from any thread,
    or from a reload on the loop) is applied from the loop, and every session gets its
    ``prompts_changed()`` bytes when the prompts really changed (``Server.apply_config``
    decides). ``log`` is the transport's log hook.
    """

    def __init__(self, loop, server, log=no_log):
        self.loop, self.server, self.log = loop, server, log
        self.pumps = {}  # pump -> None: an ordered set
        self._seen = server.config  # the config this hub's sessions were last told of
        server.change_hooks.append(self._on_replace)
        server.stop_hooks.append(self._stop)
        if server.stop_pending:  # (Server.stop before this serve had begun)
            self._stop()
        SERVING[0] = loop

    def _stop(self):
        self.loop.call_soon_threadsafe(self.loop.stop)  # (Server.stop, any thread)

    def add(self, pump):
        self.pumps[pump] = None

    def discard(self, pump):
        self.pumps.pop(pump, None)

    def _on_replace(self, new):
        # any thread: hand the validated config to the loop through its wake-up pipe
        if not self.loop.call_soon_threadsafe(lambda: self.apply(new)):
            self.server.apply_config(new)  # the loop is gone: no session to tell

    def apply(self, new):
        """Swap the config in (loop thread) and, when the prompts changed, notify every
        session that asked."""
        seen, self._seen = self._seen, new
        if not self.server.apply_config(new, since=seen):
            self.log("info", "prompts unchanged (%d): no session told" % len(new.prompts))
            return
        told = 0
        for pump in list(self.pumps):
            data = pump.session.prompts_changed()
            told += bool(data)
            # (and logging: a reload is one of the server's events; one write for both)
            pump.send(data + pump.session.log_event("notice", {"message": "prompts reloaded",
                                                               "prompts": len(new.prompts)}))
        self.log("info", "prompts changed (%d now): notified %d session%s" % (
            len(new.prompts), told, "" if told == 1 else "s"))

    def run(self, source=None, before_drain=lambda: None, ready=lambda: None):
        """Serve until SIGTERM/SIGINT or ``loop.stop()``, with ``source`` (a
        ``source.ConfigFile``) reloading meanwhile; then ``before_drain()`` (e.g. stop
        accepting), ``shutdown()``, and stop taking config changes. ``ready()`` is called
        once the signal handlers are in place (so a SIGTERM sent after it is handled)."""
        loop = self.loop
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, lambda signum: loop.stop())
        if source is not None:
            source.attach(loop, self.server, self, self.log)
        elif hasattr(signal, "SIGHUP"):  # (its default ends the process: a callable's kill -HUP too)
            loop.add_signal_handler(signal.SIGHUP, lambda signum: self.log(
                "info", "SIGHUP: no config file to reload"))
        try:
            ready()
            loop.run()
            before_drain()
            if source is not None:
                source.detach()  # no reload during the drain
            self.shutdown()
        finally:
            if source is not None:
                source.detach()  # (again, when serving failed)
            self.close()

    def shutdown(self, seconds=DRAIN_SECONDS):
        """End every session's streams, give output ``seconds`` to drain, close the rest."""
        for pump in list(self.pumps):
            pump.shutdown()
        deadline = monotonic() + seconds
        while self.pumps and monotonic() < deadline:
            self.loop.run_once(deadline - monotonic())
        for pump in list(self.pumps):
            pump.close()

    def close(self):
        """Stop receiving config changes and stop requests (call before the loop closes)."""
        if SERVING[0] is self.loop:
            SERVING[0] = None
        self.server.stop_pending = False  # (taken: by this serve, or one that ended since)
        for hooks, hook in ((self.server.change_hooks, self._on_replace), (self.server.stop_hooks, self._stop)):
            if hook in hooks:
                hooks.remove(hook)
