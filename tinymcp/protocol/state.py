"""Connection state: which era a request is in, what each state serves, what moves it;
and one request being served (``Call``), with ``progress()`` for the callables it runs.

Theory of operation
-------------------
Everything that decides how a request is read, before its handler runs, lives here; the
session asks, nothing else assigns ``Connection.state``.

Eras (2026-07-28 versioning "Backward Compatibility with Initialization-Based
Versions") are chosen per request, not per connection:

- A request whose ``params._meta`` names ``io.modelcontextprotocol/protocolVersion``,
  and a request for a *probe* method (``server/discover``) always, is **stateless**:
  served under the revision it names, with its own client capabilities and log level,
  whatever the connection did before (``admit``, ``_stateless``).
- Anything else is a **handshake-era** request, served under the revision the
  connection negotiated, subject to the handshake state table (``_handshake``).
- A stateless-only method without its version key, on a connection that has not done
  the handshake, is read as stateless, so the client learns which ``_meta`` keys are
  missing (-32602) instead of -32601.

The handshake state machine: a connection starts ``NEW``; a successful ``initialize``
moves it to ``READY`` with the negotiated revision (``TRANSITIONS``, applied by
``succeeded``). ``STATES`` says which handshake-era methods each state serves and what a
refused one gets. Whether a revision has batches, and every other feature, is the
revision table's answer (``revisions``).

Also per connection: the handshake-era log level (``logging/setLevel``) and the open
``subscriptions/listen`` streams (request id -> the notifications honoured).
"""

from ..errors import InvalidParams, InvalidRequest, MethodNotFound, UnsupportedProtocolVersion, clip, cut
from ..model.config import LOG_LEVELS
from .jsonrpc import notification
from .revisions import ALL_VERSIONS, BATCH_VERSIONS, SEVERITY, STATELESS_VERSIONS, stateless

# --- one request being served -------------------------------------------------------

#: [ContextVar]: the call being served in this context, what ``progress()`` reports on.
#: A context variable, so Sessions driven from two threads never see each other's call
#: (each thread has its own context); a callable runs while exactly its own call is set.
#: Made when a callable first runs (declarative prompts never need it). Where there is
#: no ``contextvars`` (python3-minimal), a thread-local value (``_PerThread``).
_current = []


def log_message(level, data):
    return notification("notifications/message", {"level": level, "logger": "tinymcp", "data": data})


class Call:
    """One request being served, filled in as it is read: ``batch``, the JSON-RPC batch it
    came in (its replies are bounded as a whole); ``rid``, the id to answer (None until a
    valid one is read); ``method``; ``keyed``, a well-formed request, whose reply a cancel
    may drop; ``revision``, the ``Revision`` served, and ``stateless``, its era (settled by
    ``Connection.admit``; for ``initialize``, None until it has negotiated one);
    ``log_threshold``, an index into LOG_LEVELS, or None: no notifications/message for it;
    ``notes``, notifications to go out before its reply; ``progress_token`` and
    ``last_progress``; ``live``, while a callable of it runs on a worker: sends a
    notification at once."""

    __slots__ = ("rid", "method", "revision", "stateless", "log_threshold", "notes",
                 "progress_token", "last_progress", "live", "batch", "keyed")

    def __init__(self, batch=None):
        self.batch, self.keyed, self.stateless = batch, False, False
        self.rid = self.method = self.revision = self.log_threshold = None
        self.notes = self.progress_token = self.last_progress = self.live = None

    def note(self, message):
        """Queue a notification to go out before this request's response (at once, while
        its callable runs on a worker thread)."""
        if self.live is not None:
            return self.live(message)  # (False: it went nowhere, the request cancelled)
        if self.notes is None:
            self.notes = []
        self.notes.append(message)

    def log(self, level, data):
        """Queue ``notifications/message`` for this request, when it asked for the level.

        2026-07-28 logging "Per-request log level": the server MUST NOT emit
        notifications/message for a request without the logLevel field, and sends
        them before the final response, at or above the requested level.
        """
        if self.log_threshold is not None and SEVERITY[level] >= self.log_threshold:
            self.note(log_message(level, data))


class Deferred:
    """A handler's answer that needs a callable run first: ``work()`` runs it (on a worker
    thread when the transport has them, else at once), ``finish(value)`` makes the result
    of what it returned (on the session's thread, inside the error boundary)."""

    __slots__ = ("call", "work", "finish")

    def __init__(self, call, work, finish):
        self.call, self.work, self.finish = call, work, finish

    def run(self):
        """``work()`` with ``call`` current (what ``progress()`` reports on)."""
        if not _current:
            try:
                from contextvars import ContextVar
                _current.append(ContextVar("tinymcp_current_call", default=None))
            except ImportError:  # (python3-minimal: a thread's own value does the same here)
                import threading
                _current.append(_PerThread(threading.local()))
        token = _current[0].set(self.call)
        try:
            return self.work()
        finally:
            _current[0].reset(token)


class _PerThread:
    """What ``progress()`` needs of a ContextVar, on a ``threading.local``."""

    def __init__(self, local):
        self.local = local

    def get(self):
        return getattr(self.local, "call", None)

    def set(self, call):
        before, self.local.call = self.get(), call
        return before

    reset = set  # (puts back the call that set() returned)


def progress(value, total=None, message=None):
    """Report progress from inside a ``render`` or ``complete`` callable.

    Sends ``notifications/progress`` for the request being served when its
    ``params._meta.progressToken`` asked for it (progress "Progress Flow"), before the
    response; returns False (and sends nothing) otherwise, e.g. after the response or a
    cancel (a callable may then stop).
    ``value`` MUST increase with each call (progress "Progress Flow", every revision): a
    value that does not raises ValueError.
    """
    call = _current[0].get() if _current else None
    if call is None or call.progress_token is None:
        return False
    for number in (value, total):
        # (NaN and the infinities times 0 are NaN: no math import; OverflowError for an
        # int no float can hold)
        if number is not None and (type(number) not in (int, float) or float(number) * 0 != 0):
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
    return call.note(notification("notifications/progress", params)) is not False


# --- the connection ------------------------------------------------------------------

NEW, READY = "NEW", "READY"

# 2026-07-28 basic-overview "_meta": reserved per-request keys.
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"
#: the longest string id a listen stream may have: the stream holds it as long as it is open and
#: repeats it in each of its notifications (16 of 8 MiB each held 128 MiB, pushed again on each reload);
#: and a progress token, longer than which none is honoured (repeated in each notification: a 4 MiB
#: one, and a render reporting 100 steps, held 0.8 GB for a client that did not read)
MAX_STREAM_ID = 256

#: (state, handshake-era method that succeeded) -> the next state.
TRANSITIONS = {(NEW, "initialize"): READY}


#: state -> (the handshake-era methods it serves, or None for all but ``refused``; those
#: it refuses when ``serves`` is None; the error for a method it does not serve).
#: Before initialize only ping and initialize (lifecycle: the client SHOULD NOT send
#: other requests before the initialize response); the others get -32602 at once, so a
#: probing client falls back without a timeout.
STATES = {
    NEW: (frozenset(("initialize", "ping")), (), lambda method: InvalidParams(
        "Session not initialized: send initialize before %s, or give %s and %s in params._meta"
        % (method, META_VERSION, META_CAPABILITIES), {"supported": list(ALL_VERSIONS)})),
    READY: (None, frozenset(("initialize",)),
            lambda method: InvalidRequest("Invalid Request: already initialized")),
}

#: 2025-03-26 lifecycle "Initialization": the initialize request MUST NOT be part of a batch.
NEVER_IN_BATCH = frozenset(("initialize",))
#: 2025-11-25 cancellation "Behavior Requirements": initialize MUST NOT be cancelled.
NEVER_CANCELLED = frozenset(("initialize",))


def _level(value, name):
    """The rank of log level ``value`` (logging "Error Handling": anything else -32602)."""
    if type(value) is not str or value not in SEVERITY:
        raise InvalidParams("Invalid params: %s must be one of %s" % (name, ", ".join(LOG_LEVELS)))
    return SEVERITY[value]


class Connection:
    """One connection's protocol state (see the module docstring)."""

    __slots__ = ("state", "revision", "log_threshold", "streams", "_server", "_can_notify")

    def __init__(self, server, can_notify=True):
        self.state = NEW
        #: the negotiated handshake-era ``Revision`` (None before initialize)
        self.revision = None
        #: handshake-era logging/setLevel threshold (an index into LOG_LEVELS), or None
        level = server.config.log_level
        self.log_threshold = None if level is None else SEVERITY[level]
        #: open subscriptions/listen streams: request id -> honoured notifications
        self.streams = {}
        self._server = server
        #: False when the transport can never deliver a change to this connection
        self._can_notify = can_notify

    @property
    def list_changed(self):
        """listChanged is promised: a change source exists (``Server.list_changed``) and
        this connection can be told."""
        return self._server.list_changed and self._can_notify

    # --- a request's era and revision ---------------------------------------------------

    def admit(self, call, entry, params):
        """The registry row (``entry``, or None: unknown) that serves ``call``, with the
        call's era, revision, log level and progress token settled. Raises -32022 for a stateless version
        we do not serve, before anything else (2026-07-28 versioning "Protocol Version
        Negotiation": whatever the method, so the client retries in a version we speak),
        then -32601 for a method its era does not have, then -32602 for params that are
        no object, then what the era refuses (``_handshake``, ``_stateless``)."""
        meta = params.get("_meta") if type(params) is dict else None
        named = type(meta) is dict and META_VERSION in meta
        call.stateless = named or (entry is not None and entry.probe)
        if named and type(meta[META_VERSION]) is str and stateless(meta[META_VERSION]) is None:
            raise UnsupportedProtocolVersion("Unsupported protocol version", {
                "supported": list(STATELESS_VERSIONS),
                # an echo of client input is bounded like every other (docs/security.md)
                "requested": cut(meta[META_VERSION], 80)})
        if entry is not None and not (entry.stateless if call.stateless else entry.handshake):
            # (a stateless-only method before any handshake is read as stateless)
            call.stateless = not call.stateless and self.state is NEW and entry.stateless
            entry = entry if call.stateless else None
        if entry is None:
            raise MethodNotFound("Method not found: %s" % clip(call.method))
        if type(params) is not dict:
            raise InvalidParams("Invalid params: params must be an object")
        if call.stateless:
            self._stateless(call, meta)
        else:
            self._handshake(call)
        token = meta.get("progressToken") if type(meta) is dict else None
        if type(token) is int or type(token) is str and len(token) <= MAX_STREAM_ID:  # (else none is sent)
            call.progress_token = token
        return entry

    def _handshake(self, call):
        """A handshake-era request, if this state serves it."""
        if call.batch is not None and call.method in NEVER_IN_BATCH:
            raise InvalidRequest("Invalid Request: %s cannot be part of a batch" % call.method)
        serves, refused, refusal = STATES[self.state]
        if (call.method not in serves) if serves is not None else (call.method in refused):
            raise refusal(call.method)
        call.revision, call.log_threshold = self.revision, self.log_threshold

    def _stateless(self, call, meta):
        """A stateless request, its ``_meta`` checked (2026-07-28 basic-overview
        "Per-request protocol fields": a request missing a required field MUST be
        rejected with -32602)."""
        if type(meta) is not dict:
            meta = {}  # (as an empty one: its missing keys are named)
        missing = [k for k in (META_VERSION, META_CAPABILITIES) if k not in meta]
        if missing:  # (a probe too: the conformance suite's server-stateless checks it)
            # a client that named a stateless version is offered only those (as in -32022)
            raise InvalidParams("Invalid params: missing params._meta keys: %s" % ", ".join(missing),
                                {"supported": list(STATELESS_VERSIONS if META_VERSION in meta
                                                   else ALL_VERSIONS)})
        version = meta[META_VERSION]
        if type(version) is not str:
            raise InvalidParams("Invalid params: %s must be a string" % META_VERSION)
        if type(meta[META_CAPABILITIES]) is not dict:
            raise InvalidParams("Invalid params: %s must be an object" % META_CAPABILITIES)
        if call.batch is not None:  # (the stateless era has no batches: only handshake-era requests go in one)
            raise InvalidRequest("Invalid Request: a stateless request (params._meta naming %s) "
                                 "cannot be part of a batch" % version)
        # 2026-07-28 logging "Error Handling": an unknown level SHOULD get -32602
        call.log_threshold = _level(meta[META_LOG_LEVEL], META_LOG_LEVEL) if META_LOG_LEVEL in meta else None
        call.revision = stateless(version)

    def succeeded(self, call):
        """Apply the transition a handshake-era request's success makes (``TRANSITIONS``);
        ``initialize`` carries the revision it negotiated in ``call.revision``."""
        after = TRANSITIONS.get((self.state, call.method))
        if after is not None:
            self.state = after
            self.revision = call.revision

    def check_batch(self, size, limit):
        """A JSON-RPC batch of ``size`` requests (JSON-RPC 2.0 section 6) may be served
        only under a revision that has batches (2025-03-26), within ``max_batch``."""
        if self.revision is None or not self.revision.batches:
            raise InvalidRequest("Invalid Request: batches are served only under protocol %s"
                                 % ", ".join(BATCH_VERSIONS))
        if not size:
            raise InvalidRequest("Invalid Request: empty batch")
        if size > limit:
            raise InvalidRequest("Invalid Request: batch of %d exceeds the limit of %d "
                                 "(max_batch)" % (size, limit))

    # --- what the server may send on its own ---------------------------------------------

    def set_level(self, level):
        """``logging/setLevel`` (2025-11-25 logging "Setting Log Level")."""
        self.log_threshold = _level(level, "level")

    def hears_list_changed(self):
        """Handshake era: notifications/prompts/list_changed goes to an initialized
        connection that was promised listChanged (prompts "List Changed Notification")."""
        return self.state is READY and self.list_changed

    def hears_log(self, level):
        """Handshake era: a server event's notifications/message goes to an initialized
        connection whose level admits it (logging "Log Message Notifications"); stateless
        log messages are request-scoped and never go on a listen stream."""
        return self.state is READY and self.log_threshold is not None \
            and SEVERITY[level] >= self.log_threshold

    # --- subscriptions/listen streams ----------------------------------------------------

    def open_stream(self, rid, wanted):
        """Open a listen stream; returns the notifications honoured: only what we can
        deliver (prompt list changes, when a change source exists)."""
        if rid in self.streams:
            raise InvalidRequest("Invalid Request: a listen stream with this id is already open")
        if type(rid) is str and len(rid) > MAX_STREAM_ID:
            raise InvalidRequest("Invalid Request: a listen stream's id may be %d characters at most" % MAX_STREAM_ID)
        limit = self._server.config.limits.max_listen_streams
        if len(self.streams) >= limit:
            raise InvalidRequest("Invalid Request: %d listen streams are open on this connection, "
                                 "the limit (limits.max_listen_streams); cancel one first" % limit)
        changes = wanted.get("promptsListChanged") is True and self.list_changed
        self.streams[rid] = {"promptsListChanged": True} if changes else {}
        return self.streams[rid]

    def end_streams(self):
        """Every open stream's id; they are closed."""
        rids, self.streams = list(self.streams), {}
        return rids
