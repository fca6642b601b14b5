"""A request whose answer comes later: a Python ``render`` or ``complete`` callable run
on the session's executor (a worker thread). Loaded by the first such request: a JSON
config has none.
"""

from ..codec import encode
from ..errors import CallbackFailed


def _dropped(message):
    """``Call.live`` once a request is answered: what its callable still sends goes nowhere."""


class Later:
    """One request whose answer comes later: its callable runs on the session's executor,
    its place is held in the outbox, its notifications (progress) go out as they are
    made, and its reply takes its place when the callable is done (discarded if the
    request was cancelled meanwhile). Everything but the callable happens on the
    session's thread (the executor posts back there)."""

    __slots__ = ("session", "call", "deferred", "entry")

    def __init__(self, session, call, deferred):
        self.session, self.call, self.deferred = session, call, deferred
        self.entry = session.outbox.add_pending(call.rid, call.keyed, call.batch)
        call.live = self.send
        limit = session.server.config.limits.max_callable_ms
        # (a request cancelled while its call waits for a thread is never run)
        session.executor.submit(lambda: None if self.entry.dropped else deferred.run(), self.resolve,
                                limit / 1000.0 if limit else None, session)

    def send(self, message):
        """``Call.live`` while the callable runs (on its thread): False, sending nothing, once
        the request is cancelled (so ``progress()`` tells the callable)."""
        if self.entry.dropped:
            return False
        self.session.executor.post(lambda: self.live(message))

    def live(self, message):
        # a cancelled request sends nothing more, nor does one answered already (``resolve``
        # ran, its time out, while what it sent still waited to reach the loop)
        if not (self.call.live is _dropped or self.entry.dropped):
            self.session.outbox.push(encode(message))
            self._ready()

    def resolve(self, value, exc):
        session, call = self.session, self.call
        call.live = None  # (what the answer itself notes goes out before it)
        if not self.entry.dropped:
            reply = session._answer(call, self._finish, value, exc)
            session.outbox.fill(self.entry, b"".join(map(encode, call.notes)) if call.notes else b"", reply)
            self._ready()
        # Progress MUST stop after completion (progress "Implementation Notes", every
        # revision): a callable whose time ran out runs on, and what it sends from now on
        # is dropped (progress() returns False), not kept.
        call.live, call.notes, call.progress_token = _dropped, None, None

    def _ready(self):
        if self.session.on_ready is not None:
            self.session.on_ready()

    def _finish(self, value, exc):
        if exc is not None:
            if not isinstance(exc, Exception):  # (a worker's SystemExit ends no loop)
                raise CallbackFailed("a callable failed") from exc
            raise exc
        return self.session._finish(self.call, self.deferred, value)
