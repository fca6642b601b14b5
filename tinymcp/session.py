"""The sans-I/O MCP session: bytes in, bytes out, for both protocol eras.

Theory of operation
-------------------
A transport owns one ``Session`` per connection and feeds it whatever it reads:
``receive_data(chunk)`` returns the bytes to write back (possibly ``b""``), and
``receive_data(b"")`` means end of input (the final unterminated line is served).
Server-initiated messages come from ``prompts_changed()``, ``log_event()`` and
``end_streams()``. Nothing here touches a file descriptor, a clock or a signal.

The session coordinates; each rule has its home elsewhere:

- ``jsonrpc``: framing (``LineBuffer``), reading a line (depth, batches), encoding;
- ``state.Connection``: which era a request is in, what the handshake state serves,
  transitions, the connection's log level and listen streams;
- ``methods.REGISTRY``: each method's handler, eras and params check;
- ``outbox.Outbox``: replies waiting for the transport, keyed by request id, where a
  cancel drops one and batches are assembled;
- ``Server``: the config and limits in force.

``_serve`` is the one place where exceptions become JSON-RPC errors: ``ProtocolError``
keeps its code; anything else becomes -32603 with a fixed message and an opaque id that
also goes to the log hook (stderr in the CLI), so no traceback or internal state ever
reaches the wire. Every line, and every item of a batch, passes through it once.
"""

from .call import Deferred, log_message
from .errors import CallbackFailed, InternalError, InvalidParams, InvalidRequest, ProtocolError
from .inbox import Decoded, Inbox
from .jsonrpc import (Encoded, Refused, TooLong, check_id, encode, encode_response, error, is_response,
                      notification, read_line, response)
from .methods import REGISTRY, server_info, stateless_result
from .outbox import BATCH_OVERHEAD, Batch, Outbox
from .revisions import LATEST_STATELESS
from .server import Server, no_log
from .state import META_SERVER_INFO, META_SUBSCRIPTION, NEVER_CANCELLED, Connection

__all__ = ["Session"]

#: the opaque ids of internal errors: ``itertools.count(1)``'s numbers, without importing
#: itertools, a start's one use of it (~0.13 ms); ``next`` on it is as atomic
_error_ids = iter(range(1, (1 << 63) - 1))  # (C longs: the fast range iterator)


#: ``Session._answer``: the answer comes later (a callable runs on the executor)
_LATER = object()


def _dropped(message):
    """``Call.live`` once a request is answered: what its callable still sends goes nowhere."""


class _Later:
    """One request whose answer comes later: its callable runs on the session's executor,
    its place is held in the outbox, its notifications (progress) go out as they are
    made, and its reply takes its place when the callable is done (discarded if the
    request was cancelled meanwhile). Everything but ``work`` happens on the session's
    thread (the executor posts back there)."""

    __slots__ = ("session", "req", "deferred", "entry")

    def __init__(self, session, req, deferred):
        self.session, self.req, self.deferred = session, req, deferred
        self.entry = None

    def start(self):
        session, req = self.session, self.req
        call = req.call
        if call.notes:
            session.outbox.push(session._encoded(call.notes))
            call.notes = None
        self.entry = session.outbox.add_pending(req.rid, req.keyed, req.batch)
        post = session.executor.post
        call.live = lambda message: post(lambda: self.live(message))
        limit = session.server.limits.max_callable_ms
        session.executor.submit(self.deferred.run, self.resolve, limit / 1000.0 if limit else None)

    def live(self, message):
        session = self.session
        # a cancelled request sends nothing more, nor does one answered already (``resolve``
        # ran, its time out, while what it sent still waited to reach the loop)
        if not (self.req.call.live is _dropped or session.outbox.dropped(self.entry)):
            session.outbox.push(session._encoded([message]))
            self._ready()

    def resolve(self, value, exc):
        session, call = self.session, self.req.call
        call.live = None  # (what the answer itself notes goes out before it)
        if not session.outbox.dropped(self.entry):
            reply = session._answer(self.req, self._finish, value, exc)
            session.outbox.fill(self.entry, session._encoded(call.notes) if call.notes else b"", reply)
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
        return self.session._finish(self.req, self.deferred, value)


def _counted(req, reply, session):
    """``reply``, counted in its batch (``req.batch``, if any): a 2025-03-26 batch's replies are
    bounded as a whole (``max_render_bytes`` and room for their JSON); past that, a reply
    is an error."""
    if req.batch is None:
        return reply
    limit = session.server.limits.max_render_bytes + BATCH_OVERHEAD
    if not req.batch.take(len(reply), limit):
        raise InvalidParams("Invalid params: this reply would take the batch's replies past %d "
                            "bytes (max_render_bytes)" % limit)
    return reply


class _Request:
    """What the boundary knows of the request being served, filled in as it is read."""

    __slots__ = ("rid", "method", "call", "keyed", "batch")

    def __init__(self, batch=None):
        self.batch = batch    # the batch it came in (its replies are bounded as a whole)
        self.rid = None       # the id to answer (None until a valid one is read)
        self.method = None
        self.call = None      # the ``Call``, once the request's era and state are settled
        self.keyed = False    # a well-formed request: its reply may be cancelled


class Session:
    """One connection's protocol state. Feed it bytes; write what it returns.

    ``log``: where diagnostics go (default: the server's hook, else nowhere);
    ``list_changed=False``: this connection can never be told of changes (a transport
    that cannot deliver them), so it is never promised ``listChanged``.
    """

    def __init__(self, server, log=None, list_changed=None, executor=None):
        if not isinstance(server, Server):
            server = Server(server)
        self.server = server
        self.log = log or server.log or no_log
        self.conn = Connection(server, list_changed is not False)
        self.outbox = Outbox()
        #: runs callables off this thread (``submit(work, done, timeout)``, ``done(value,
        #: exc)`` and ``post(fn)`` called back on this thread); None: they run in line
        self.executor = executor
        #: called (on this thread) when output is ready outside ``receive_data``: a
        #: deferred answer or a live notification; the transport then ``data_to_send()``
        self.on_ready = None
        #: complete lines read but not served yet (held back by a budget)
        self.inbox = Inbox()

    @property
    def state(self):
        """The handshake state (``state.NEW`` or ``state.READY``)."""
        return self.conn.state

    @property
    def version(self):
        """The negotiated handshake-era version (None before ``initialize``)."""
        return None if self.conn.revision is None else self.conn.revision.version

    @property
    def streams(self):
        """Open ``subscriptions/listen`` streams: request id -> notifications honoured."""
        return self.conn.streams

    # --- bytes in, bytes out --------------------------------------------------------

    def receive_data(self, data, budget=None, turn_over=None):
        """Feed bytes read from the peer (``b""`` at EOF); return bytes to send.

        Lines are served (at least one a call) while the output waiting is below
        ``budget`` bytes and ``turn_over()``, asked after each, is false; the rest stay
        ``pending`` for ``resume()``. So a transport bounds what one read can make the
        server hold and do. Replies stay cancellable until returned.
        At EOF the last unterminated line is served, and then listen streams still open
        are ended as at shutdown (``end_streams``): every request read gets its reply.
        """
        if type(data) is not bytes:
            data = bytes(data)  # (a bytearray or memoryview: lines are bytes from here on)
        self.inbox.feed(data, self.server.limits.max_line_bytes)  # (the limit in force now)
        return self.resume(budget, turn_over)

    @property
    def pending(self):
        """How many complete lines wait to be served (``resume``)."""
        return len(self.inbox)

    def resume(self, budget=None, turn_over=None):
        """Serve pending lines as ``receive_data`` does; bytes to send."""
        inbox, outbox = self.inbox, self.outbox
        while inbox:  # (a line at least: a batch's held replies may fill the budget for long)
            self._serve(inbox.popleft())
            if (budget is not None and outbox.size >= budget) or (turn_over is not None and turn_over()):
                break
        if inbox and outbox.cancellable:
            # A cancel held back by the budget that names a reply still in the outbox is
            # applied now: served in turn it would have dropped that reply before it was
            # sent (a cancel read together with its request), and a notification has no
            # reply of its own whose order could change.
            for rid in inbox.cancels(outbox.holds, self.server.limits):
                self._cancel(rid)
        data = outbox.take()
        if inbox.eof and not inbox and self.conn.streams:
            data += self.end_streams()
        return data

    def data_to_send(self):
        """What is ready to send without serving another line (after ``on_ready``)."""
        return self.outbox.take()

    @property
    def busy(self):
        """Requests whose callables still run: their answers are still to come."""
        return self.outbox.pending

    def discard_pending(self):
        """Drop the lines not served yet (the transport is shutting down)."""
        self.inbox.clear()

    # --- what the server sends on its own -------------------------------------------------

    def prompts_changed(self):
        """Bytes to send after the prompt set changed.

        Handshake era: ``notifications/prompts/list_changed`` when this session was
        promised ``listChanged`` (2025-11-25 prompts "List Changed Notification"). Stateless
        era: one tagged notification per listen stream that asked for ``promptsListChanged``
        (2026-07-28 subscriptions "Receiving Notifications"); never a type not asked for.
        """
        msgs = []
        if self.conn.hears_list_changed():
            msgs.append(notification("notifications/prompts/list_changed"))
        for rid, honoured in self.conn.streams.items():
            if honoured.get("promptsListChanged"):
                msgs.append(notification("notifications/prompts/list_changed",
                                         {"_meta": {META_SUBSCRIPTION: rid}}))
        return b"".join([encode(m) for m in msgs])

    def log_event(self, level, data):
        """Bytes of ``notifications/message`` for a server event (a reload, a rejected
        config), for a handshake-era session whose level admits it (``Connection.hears_log``)."""
        return encode(log_message(level, data)) if self.conn.hears_log(level) else b""

    def end_streams(self):
        """Bytes that end every open listen stream (server shutdown).

        2026-07-28 cancellation: the server MUST send notifications/cancelled when it
        tears a stream down, and a cancellation MUST only reference a request still in
        progress, so it comes first (tagged, as everything on the stream: subscriptions
        "Receiving Notifications"); subscriptions "Graceful Closure": the server SHOULD
        answer the listen request with a result, which follows (docs/decisions.md).
        """
        msgs = []
        for rid in self.conn.end_streams():
            msgs.append(notification("notifications/cancelled", {
                "requestId": rid, "reason": "server shutting down", "_meta": {META_SUBSCRIPTION: rid}}))
            meta = {META_SUBSCRIPTION: rid, META_SERVER_INFO: server_info(self, LATEST_STATELESS)}
            msgs.append(response(rid, {"resultType": "complete", "_meta": meta}))
        return b"".join([encode(m) for m in msgs])

    # --- one line ---------------------------------------------------------------------

    def _serve(self, item, batch=None):
        """The one exception-to-error boundary: serve one line (or one item of ``batch``)
        and queue what it makes, notifications and reply, in the outbox."""
        req = _Request(batch)
        reply = self._answer(req, self._handle, item, req)
        if reply is _LATER:
            return
        call = req.call
        notes = self._encoded(call.notes) if call is not None and call.notes else b""
        if reply is not None or notes:
            self.outbox.add(req.rid, notes, reply, req.keyed, batch)

    def _answer(self, req, produce, *args):
        """The encoded reply to what ``produce(*args)`` returns or raises: where every
        exception becomes a JSON-RPC error (``_serve`` for a line, ``_resolve`` for an
        answer that came later). None: no reply; ``_LATER``: a deferred answer is held."""
        try:
            result = produce(*args)
            if type(result) is Deferred:
                if self.executor is None:
                    result = self._finish(req, result, result.run())
                else:
                    _Later(self, req, result).start()
                    return _LATER
            return None if result is None else _counted(req, encode_response(req.rid, result), self)
        except ProtocolError as exc:
            return encode(error(req.rid, exc.to_wire()))
        except Exception as exc:  # a bug, a failed callable, a reply that does not encode
            return encode(error(req.rid, self._internal(exc, req).to_wire()))

    def _finish(self, req, deferred, value):
        result = deferred.finish(value)
        return stateless_result(self, req.call, result) if req.call.stateless else result

    def _handle(self, item, req):
        """The result of one line or batch item (None: no reply now); raises for an error
        reply. Fills ``req`` in as the request is read."""
        if req.batch is not None:
            msg = item
        elif type(item) is bytes:
            msg = read_line(item, self.server.limits, self.conn.batches)
        else:
            msg = self._read(item)
        if req.batch is None and type(msg) is list:
            return self._batch(msg)
        if type(msg) is Refused:
            return self._refused(msg, req)
        if type(msg) is not dict:
            raise InvalidRequest("Invalid Request: expected a JSON object")
        method = msg.get("method")
        if method is None and is_response(msg):
            return None  # a response to nothing we sent: ignored
        if "id" not in msg:
            # JSON-RPC 2.0 section 4.1: a notification is never answered, not even an
            # error (a malformed one neither).
            if type(method) is str and msg.get("jsonrpc") == "2.0":
                self._on_notification(method, msg.get("params"))
            elif "method" not in msg:
                raise InvalidRequest("Invalid Request: no method")
            return None
        req.rid = check_id(msg)
        if msg.get("jsonrpc") != "2.0":  # JSON-RPC 2.0 section 4: MUST be exactly "2.0"
            raise InvalidRequest('Invalid Request: "jsonrpc" must be "2.0"')
        if type(method) is not str:
            raise InvalidRequest("Invalid Request: method must be a string"
                                 if "method" in msg else "Invalid Request: no method")
        req.method = method
        req.keyed = method not in NEVER_CANCELLED
        return self._call(req, method, msg.get("params"), req.batch is not None)

    def _read(self, item):
        """A pending line that is not plain bytes as a value to serve; raises for a line
        that cannot be one."""
        if type(item) is Decoded:
            return item.value
        if type(item) is TooLong:
            raise InvalidRequest("Invalid Request: line longer than the %d-byte limit "
                                 "(max_line_bytes)" % item.limit)
        raise item  # a ParseError met while decoding it early

    def _refused(self, msg, req):
        """A message refused before it was decoded (too deep, too many values), read from its
        flattened top level: -32600 with its valid id; nothing for a notification or response."""
        flat = msg.flat
        if type(flat) is dict:
            if is_response(flat) or ("id" not in flat and "method" in flat):
                return None  # never answered, not even this
            rid = flat.get("id")
            if type(rid) is str or type(rid) is int:
                req.rid = rid
        raise InvalidRequest("Invalid Request: " + msg.reason)

    def _batch(self, items):
        """A JSON-RPC batch: each item served through the boundary, the replies
        assembled into one array by the outbox."""
        self.conn.check_batch(len(items), self.server.limits.max_batch)
        batch = Batch()
        for item in items:
            self._serve(item, batch)
        return None

    def _call(self, req, method, params, in_batch):
        """Route a well-formed request to its era, state check and handler."""
        conn = self.conn
        entry = REGISTRY.get(method)
        if params is None:
            params = {}
        meta = params.get("_meta") if type(params) is dict else None
        stateless = conn.route(method, meta, entry)  # -32022, -32601
        if type(params) is not dict:
            raise InvalidParams("Invalid params: params must be an object")
        if stateless:
            call = conn.stateless_call(req.rid, method, meta, in_batch)
        else:
            call = conn.handshake_call(req.rid, method, in_batch)
        req.call = call
        if type(meta) is dict:
            token = meta.get("progressToken")
            if type(token) is str or type(token) is int:
                call.progress_token = token
        result = entry.handler(self, call, entry.check(params))
        if stateless:  # (an Encoded result is final: methods made it so; a Deferred, later)
            if result is None or type(result) is Encoded or type(result) is Deferred:
                return result
            return stateless_result(self, call, result)
        conn.succeeded(call)
        return result

    def _internal(self, exc, req):
        """The -32603 for an unexpected failure: what failed goes to the log hook with an
        opaque id; the client gets a fixed message and the id (``data.errorId``)."""
        tag = "%s-%d" % (self.server.error_tag, next(_error_ids))
        cause = exc.__cause__ if isinstance(exc, CallbackFailed) and exc.__cause__ else exc
        try:
            self.log("error", "internal error %s in %s: %s" % (tag, req.method, exc), cause)
        except Exception:
            pass  # a failing log hook must not cost the client its answer
        if req.call is not None:
            req.call.log("error", {"error": "internal error", "errorId": tag, "method": req.method})
        return InternalError("Internal error", {"errorId": tag})

    def _encoded(self, notes):
        """A request's notifications as bytes; one that does not encode is dropped (and logged)."""
        out = []
        for note in notes:
            try:
                out.append(encode(note))
            except (ValueError, TypeError, RecursionError) as exc:
                self.log("error", "dropped a notification that does not encode: %s" % exc)
        return b"".join(out)

    def _on_notification(self, method, params):
        if method == "notifications/cancelled" and type(params) is dict:
            self._cancel(params.get("requestId"))
        # notifications/initialized: accepted (2025-11-25 lifecycle "Initialization"); we
        # send nothing before it anyway. Unknown notifications: nothing to do, never a reply.

    def _cancel(self, rid):
        """``notifications/cancelled``: end a listen stream, and drop what the request
        still has in the outbox (cancellation "Behavior Requirements": the server SHOULD
        not send a response for it; unknown or finished ids are ignored)."""
        if type(rid) is str or type(rid) is int:
            self.conn.close_stream(rid)
            self.outbox.cancel(rid)
