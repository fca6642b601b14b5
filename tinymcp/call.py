"""One request being served (``Call``), and ``progress()`` for the callables it runs.

A ``Call`` carries what a handler needs to know about its request: the id, the revision
it is served under and in which era, whether it came in a batch, the log level it
asked for, and the notifications (log messages, progress) to send before its response.
"""

from .jsonrpc import notification
from .revisions import SEVERITY

__all__ = ["Call", "Deferred", "progress", "enter", "leave", "log_message"]

#: [ContextVar]: the call being served in this context, what ``progress()`` reports on.
#: A context variable, so Sessions driven from two threads never see each other's call
#: (each thread has its own context); a callable runs while exactly its own call is set.
#: Made when a callable first runs (declarative prompts never need it).
_current = []


def enter(call):
    """Make ``call`` the current one while a callable runs; returns the token for ``leave``."""
    if not _current:
        from contextvars import ContextVar
        _current.append(ContextVar("tinymcp_current_call", default=None))
    return _current[0].set(call)


def leave(token):
    _current[0].reset(token)


def _finite(number):
    number = float(number)  # (OverflowError for an int no float can hold)
    return number - number == 0  # false for NaN and the infinities (no math import)


def log_message(level, data, logger="tinymcp"):
    return notification("notifications/message", {"level": level, "logger": logger, "data": data})


class Call:
    """One request being served: its id, revision, era, and request-scoped notifications."""

    __slots__ = ("rid", "method", "revision", "stateless", "in_batch", "log_threshold", "notes",
                 "progress_token", "last_progress", "live")

    def __init__(self, rid, method, revision, stateless, in_batch, log_threshold=None):
        self.rid = rid
        self.method = method
        #: the ``Revision`` served (None for ``initialize``, until it has negotiated one)
        self.revision = revision
        self.stateless = stateless
        self.in_batch = in_batch
        #: an index into LOG_LEVELS, or None: no notifications/message for this request
        self.log_threshold = log_threshold
        self.notes = None
        self.progress_token = None
        self.last_progress = None
        #: while a callable of this request runs on a worker: sends a notification now
        self.live = None

    def note(self, message):
        """Queue a notification to go out before this request's response (at once, while
        its callable runs on a worker thread)."""
        if self.live is not None:
            self.live(message)
            return
        if self.notes is None:
            self.notes = []
        self.notes.append(message)

    def log(self, level, data, logger="tinymcp"):
        """Queue ``notifications/message`` for this request, when it asked for the level.

        2026-07-28 logging "Per-request log level": the server MUST NOT emit
        notifications/message for a request without the logLevel field, and sends
        them before the final response, at or above the requested level.
        """
        if self.log_threshold is not None and SEVERITY[level] >= self.log_threshold:
            self.note(log_message(level, data, logger))


class Deferred:
    """A handler's answer that needs a callable run first: ``work()`` runs it (on a worker
    thread when the transport has them, else at once), ``finish(value)`` makes the result
    of what it returned (on the session's thread, inside the error boundary)."""

    __slots__ = ("call", "work", "finish")

    def __init__(self, call, work, finish):
        self.call = call
        self.work = work
        self.finish = finish

    def run(self):
        """``work()`` with ``call`` current (what ``progress()`` reports on)."""
        token = enter(self.call)
        try:
            return self.work()
        finally:
            leave(token)


def progress(value, total=None, message=None):
    """Report progress from inside a ``render`` or ``complete`` callable.

    Sends ``notifications/progress`` for the request being served when its
    ``params._meta.progressToken`` asked for it (progress "Progress Flow"), before the
    response; returns False (and sends nothing) otherwise, e.g. after the response.
    ``value`` MUST increase with each call (progress "Progress Flow", every revision): a
    value that does not raises ValueError.
    """
    call = _current[0].get() if _current else None
    if call is None or call.progress_token is None:
        return False
    for number in (value, total):
        if number is not None and (type(number) not in (int, float) or not _finite(number)):
            raise TypeError("progress and total must be finite numbers, got %r" % (number,))
    if message is not None and type(message) is not str:
        raise TypeError("message must be a string")
    if call.last_progress is not None and not value > call.last_progress:
        raise ValueError("progress must increase: %r after %r" % (value, call.last_progress))
    call.last_progress = value
    params = {"progressToken": call.progress_token, "progress": value}
    if total is not None:
        params["total"] = total
    if message is not None and call.revision.progress_message:
        params["message"] = message
    call.note(notification("notifications/progress", params))
    return True
