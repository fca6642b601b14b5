"""The sans-I/O MCP session: bytes in, bytes out, for both protocol eras; and the
``Server`` every session of one server shares (the config in force, and how it changes).

Theory of operation
-------------------
A transport owns one ``Session`` per connection and feeds it whatever it reads:
``receive_data(chunk)`` returns the bytes to write back (possibly ``b""``), and
``receive_data(b"")`` means end of input (the final unterminated line is served).
Server-initiated messages come from ``prompts_changed()``, ``log_event()`` and
``end_streams()``. Nothing here touches a file descriptor, a clock or a signal.

The session coordinates; each rule has its home elsewhere:

- ``jsonrpc``: framing (``LineBuffer``), reading a line within the bounds, messages;
- ``state.Connection``: which era a request is in, what the handshake state serves,
  transitions, the connection's log level and listen streams;
- ``methods.REGISTRY``: each method's handler, eras and params check;
- ``outbox.Outbox``: replies waiting for the transport, keyed by request id, where a
  cancel drops one and batches are assembled;
- ``Server``: the config and limits in force.

``_answer`` is the one place where exceptions become JSON-RPC errors: ``ProtocolError``
keeps its code; anything else becomes -32603 with a fixed message and an opaque id that
also goes to the log hook (stderr in the CLI), so no traceback or internal state ever
reaches the wire. Every line, and every item of a batch, passes through it once.
"""

from itertools import count

from ..codec import encode
from ..errors import CallbackFailed, ConfigError, InternalError, InvalidParams, InvalidRequest, ProtocolError, clip
from ..model.check import Check, describe, plain
from ..model.config import load_config
from ..model.limits import Limits
from .jsonrpc import (LineBuffer, Refused, TooLong, check_id, error, is_notification, is_response, notification,
                      read_line, response)
from .methods import REGISTRY, server_info, stateless_result
from .outbox import BATCH_OVERHEAD, Batch, Outbox
from .revisions import LATEST_STATELESS
from .state import META_SERVER_INFO, META_SUBSCRIPTION, NEVER_CANCELLED, Call, Connection, Deferred, log_message

#: what ``_answer`` returns for a request whose answer comes later
HELD = object()
#: a connection's requests whose callables are still to answer, at most: past it, one is
#: answered -32603 at once (each answer looks at every request still to be answered: 16,000
#: pipelined to a callable took 12 s of the loop, which a socket's other clients share)
MOST_BUSY = 64
_BUSY = "Internal error: %d requests of this connection wait for callables, the most; try again later"
#: the opaque ids of internal errors (``next`` on it is atomic: worker threads share it)
_error_ids = count(1)


#: sans-I/O: a Server reads no files (docs/decisions.md)
_NOT_A_PATH = ("Server() takes a config dict, not a path (%s): load the file yourself (json.load), "
               "or serve it with tinymcp.serve(path) or python3 -m tinymcp --config PATH")


def is_path(value):
    """True for what names a file (text, bytes, an ``os.PathLike``) where a config is due."""
    return isinstance(value, (str, bytes)) or hasattr(value, "__fspath__")


def no_log(level, message, exc=None):
    """A log hook that drops operator diagnostics."""


class _Quiet:
    """A caller's log hook that never raises: a failing hook must cost no client its
    answer and never end a loop (each line it fails to take is lost)."""

    __slots__ = ("log",)

    def __init__(self, log):
        self.log = log

    def __call__(self, level, message, exc=None):
        try:
            self.log(level, message, exc)
        except BaseException:  # (SystemExit too: it fails a line of the log, not the server)
            pass


def quiet(log):
    """``log`` made never to raise; one made so already is returned as it is (a
    transport's, handed on to its sessions, is wrapped once). One that cannot be called
    so, or a function taking fewer arguments, is refused: every diagnostic would be lost, silently."""
    code = getattr(getattr(log, "__func__", log), "__code__", None)  # (a function's or a method's; 4: *args)
    takes = code.co_argcount - hasattr(log, "__func__") if code and not code.co_flags & 4 else 3
    if not callable(log) or takes < 3:  # (``log(message)`` too: each call would fail inside the guard)
        raise TypeError("log must be callable as log(level, message, exc=None), got %s" % describe(log) + (
            " that takes %d argument%s" % (takes, "s" * (takes != 1)) if callable(log) else ""))
    return log if type(log) is _Quiet else _Quiet(log)


def log_hook(log, server, default):
    """The diagnostics hook of a session or a transport: ``log`` made never to raise,
    else the server's (made so), else ``default``."""
    return quiet(log) if log else server.log or default


class Server:
    """The config being served and the operator hooks; sessions are made from it.

    ``log(level, message, exc=None)`` receives operator diagnostics (never the wire); None
    means the transport's default (stderr), or nothing for a bare ``Session``.
    ``list_changed`` says whether a change source exists, so sessions only promise
    ``listChanged: true`` (and honour ``promptsListChanged`` subscriptions) when
    notifications can really be sent. ``page_size``, ``limits`` and ``prompts_as_tools``
    override the config's.
    """

    def __init__(self, config, log=None, list_changed=False, page_size=None, limits=None, prompts_as_tools=None):
        check = Check()
        # (those given, None being none, checked as a config's values are: "no" is no true)
        given = {k: v for k, v in (("page_size", page_size), ("prompts_as_tools", prompts_as_tools)) if v is not None}
        page_size = check.bounded(given, "page_size", "", 1)
        overrides = Limits.from_wire(check, plain(limits), "limits") if limits is not None else {}
        check.field(given, "prompts_as_tools", "", "boolean")
        if check.problems:
            raise ConfigError(check.problems)
        self._overrides = (page_size, overrides, prompts_as_tools)
        #: a transport serving this server puts its ``hook(new_config)`` here, called by
        #: ``replace_config`` instead of applying it, and its ``hook()`` that ``stop`` calls
        self.change_hooks, self.stop_hooks = [], []
        #: a ``stop()`` came while nothing served: the next serve ends as soon as it starts
        self.stop_pending = False
        self.log = log and quiet(log)
        self.list_changed = bool(list_changed)
        #: tags this server's internal-error ids (``XXXX-N``) in logs and replies
        self.error_tag = "%04x" % (id(self) & 0xFFFF)
        self.config = self._load(config)

    def replace_config(self, config):
        """Replace the prompt set (any thread): validated whole first, raises ``ConfigError``.

        With a transport running, the new config is handed to its loop (through the
        hook it put in ``change_hooks``), which applies it
        (``apply_config``) and tells the sessions when the prompts changed; without one
        it is applied at once. Returns the new config.
        """
        new = self._load(config)
        for hook in list(self.change_hooks) or [self.apply_config]:  # (no transport: applied at once)
            hook(new)
        return new

    def apply_config(self, new, since=None):
        """Swap in an already validated config (from the loop's thread, with a transport
        running). Returns whether its prompts differ from those of ``since`` (default:
        the config it replaces): the caller then sends each session's
        ``prompts_changed()`` bytes. (A transport passes the config its sessions last
        saw, so two transports serving one server both tell theirs.)"""
        changed = new.prompts != (self.config if since is None else since).prompts
        self.config = new
        return changed

    def stop(self):
        """Stop serving (any thread): every transport serving this server now ends as on
        SIGTERM (listen streams ended, output drained for at most 2 s) and its ``serve``
        call returns 0. While none serves yet (a thread just started to), the next serve
        ends as soon as it starts."""
        self.stop_pending = not self.stop_hooks
        for hook in list(self.stop_hooks):
            hook()

    def _load(self, config):
        if is_path(config):  # (os.fspath by hand: the sans-I/O core imports no os)
            raise TypeError(_NOT_A_PATH % clip(config if isinstance(config, (str, bytes))
                                               else config.__fspath__()))
        config = load_config(config)
        return config.with_overrides(*self._overrides) if self._overrides != (None, {}, None) else config


class Session:
    """One connection's protocol state. Feed it bytes; write what it returns.

    ``log``: where diagnostics go (default: the server's hook, else nowhere);
    ``list_changed=False``: this connection can never be told of changes (a transport
    that cannot deliver them), so it is never promised ``listChanged``. ``executor``:
    runs callables off this thread (``submit(work, done, timeout, owner)``, ``done(value, exc)``
    and ``post(fn)`` called back on this thread); None: they run in line.
    """

    def __init__(self, server, log=None, list_changed=None, executor=None):
        self.server = server = server if isinstance(server, Server) else Server(server)
        self.log = log_hook(log, server, no_log)
        self.conn = Connection(server, list_changed is not False)
        self.outbox = Outbox()
        self.executor = executor
        #: called (on this thread) when output is ready outside ``receive_data``: a
        #: deferred answer or a live notification; the transport then ``data_to_send()``
        self.on_ready = None
        self._framing = LineBuffer()
        #: complete lines read but not served yet (a budget held them), the next one last: a
        #: list, so ``import tinymcp`` needs no ``collections`` (1.2 ms of its 3.8 ms, measured)
        self._lines = []
        self._eof = False
        #: the lines read so far, blank ones too: an id-null error names its own (``data.line``),
        #: which the ``--connect`` bridge matches to what it relayed
        self.lines_read = 0

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
        self._eof = self._eof or not data
        self._lines[:0] = self._framing.feed(bytes(data), self.server.config.limits.max_line_bytes)[::-1]
        return self.resume(budget, turn_over)

    @property
    def pending(self):
        """How many complete lines wait to be served (``resume``)."""
        return len(self._lines)

    def resume(self, budget=None, turn_over=None):
        """Serve pending lines as ``receive_data`` does; bytes to send."""
        lines, outbox = self._lines, self.outbox
        while lines:  # (a line at least: a batch's held replies may fill the budget for long)
            self.lines_read += 1
            line = lines.pop()
            if line:  # (b"": a blank line, counted, never answered)
                self._serve(line)
            if (budget is not None and outbox.size >= budget) or (turn_over is not None and turn_over()):
                break
        data = outbox.take()
        if self._eof and not lines and self.conn.streams:
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
        self._lines.clear()

    # --- what the server sends on its own -------------------------------------------------

    def prompts_changed(self):
        """Bytes to send after the prompt set changed.

        Handshake era: ``notifications/prompts/list_changed`` when this session was
        promised ``listChanged`` (2025-11-25 prompts "List Changed Notification"). Stateless
        era: one tagged notification per listen stream that asked for ``promptsListChanged``
        (2026-07-28 subscriptions "Receiving Notifications"); never a type not asked for.
        """
        msgs = [notification("notifications/prompts/list_changed")] if self.conn.hears_list_changed() else []
        msgs += [notification("notifications/prompts/list_changed", {"_meta": {META_SUBSCRIPTION: rid}})
                 for rid, honoured in self.conn.streams.items() if honoured.get("promptsListChanged")]
        return b"".join(map(encode, msgs))

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
        return b"".join(map(encode, msgs))

    # --- one line ---------------------------------------------------------------------

    def _serve(self, item, batch=None):
        """Serve one line (or one item of ``batch``) through the boundary and queue what it
        makes, notifications and reply, in the outbox."""
        call = Call(batch)
        reply = self._answer(call, self._handle, item, call)
        if reply is HELD:
            return
        notes = b"".join(map(encode, call.notes)) if call.notes else b""
        if reply is not None or notes:
            self.outbox.add(call.rid, notes, reply, call.keyed, batch)

    def _answer(self, call, produce, *args):
        """The encoded reply to what ``produce(*args)`` returns or raises: the one place
        where every exception becomes a JSON-RPC error. None: no reply; ``HELD``: a
        deferred answer is held (its callable runs on the executor: ``later.Later``)."""
        try:
            result = produce(*args)
            if type(result) is Deferred:
                if self.executor is not None:
                    if self.outbox.pending >= MOST_BUSY:
                        raise InternalError(_BUSY % MOST_BUSY)
                    from .later import Later  # (only Python callables are deferred)
                    Later(self, call, result)
                    return HELD
                result = self._finish(call, result, result.run())
            if result is None:
                return None
            reply = encode(response(call.rid, result))
            if call.batch is not None:
                # a 2025-03-26 batch's replies are bounded as a whole: max_render_bytes, and
                # room for their JSON; past that, a reply is an error
                limit = self.server.config.limits.max_render_bytes + BATCH_OVERHEAD
                if call.batch.size + len(reply) > limit:
                    raise InvalidParams("Invalid params: this reply would take the batch's replies "
                                        "past %d bytes (max_render_bytes)" % limit)
                call.batch.size += len(reply)
            return reply
        except Exception as exc:  # (else a bug, a failed callable, a reply that does not encode)
            err = (exc if isinstance(exc, ProtocolError) else self._internal(exc, call)).to_wire()
            if call.rid is None and call.batch is None and type(err.get("data", {})) is dict:
                err["data"] = dict(err.get("data", {}), line=self.lines_read)  # (which line: id null)
            return encode(error(call.rid, err))

    def _finish(self, call, deferred, value):
        result = deferred.finish(value)
        return stateless_result(self, call, result) if call.stateless else result

    def _handle(self, item, call):
        """The result of one line or batch item (None: no reply now); raises for an error
        reply. Fills ``call`` in as the request is read, routes it to its era, state check
        and handler."""
        if call.batch is not None:
            msg = item
        elif type(item) is TooLong:
            raise InvalidRequest("Invalid Request: line longer than the %d-byte limit "
                                 "(max_line_bytes)" % item.limit)
        else:
            msg = read_line(item, self.server.config.limits)
            if type(msg) is list:
                return self._batch(msg)
        if type(msg) is Refused:
            raise InvalidRequest("Invalid Request: " + msg.reason)
        if type(msg) is not dict:
            raise InvalidRequest("Invalid Request: expected a JSON object")
        method = msg.get("method")
        if method is None and is_response(msg):
            return None  # a response to nothing we sent: ignored
        if "id" in msg:
            call.rid = check_id(msg)
        elif is_notification(msg):  # JSON-RPC 2.0 section 4.1: never answered, not even an error
            self._on_notification(method, msg.get("params"))
            return None
        if msg.get("jsonrpc") != "2.0":  # JSON-RPC 2.0 section 4: MUST be exactly "2.0"
            raise InvalidRequest('Invalid Request: "jsonrpc" must be "2.0"')
        if type(method) is not str:
            raise InvalidRequest("Invalid Request: method must be a string"
                                 if "method" in msg else "Invalid Request: no method")
        if "id" not in msg:  # (an invalid Request object, not a notification: ``is_notification``)
            raise InvalidRequest("Invalid Request: params must be an object or an array")
        call.method, call.keyed = method, method not in NEVER_CANCELLED
        entry = REGISTRY.get(method)
        if entry is None and self.server.config.tools:  # (opt-in: prompts as tools)
            from .tools import TOOLS
            entry = TOOLS.get(method)
        params = {} if msg.get("params") is None else msg["params"]
        entry = self.conn.admit(call, entry, params)  # -32022, -32601, -32602, the state's refusal
        result = entry.handler(self, call, entry.check(params))
        if not call.stateless:
            self.conn.succeeded(call)
        elif result is not None and type(result) is not Deferred:  # (a Deferred's: when it is done)
            stateless_result(self, call, result)
        return result

    def _batch(self, items):
        """A JSON-RPC batch: each item served through the boundary, the replies
        assembled into one array by the outbox."""
        self.conn.check_batch(len(items), self.server.config.limits.max_batch)
        batch = Batch()
        for item in items:
            self._serve(item, batch)
        return None

    def _internal(self, exc, call):
        """The -32603 for an unexpected failure: what failed goes to the log hook with an
        opaque id; the client gets a fixed message and the id (``data.errorId``)."""
        tag = "%s-%d" % (self.server.error_tag, next(_error_ids))
        cause = exc.__cause__ if isinstance(exc, CallbackFailed) and exc.__cause__ else exc
        self.log("error", "internal error %s in %s: %s" % (tag, call.method, exc), cause)
        call.log("error", {"error": "internal error", "errorId": tag, "method": call.method})
        return InternalError("Internal error", {"errorId": tag})

    def _on_notification(self, method, params):
        # notifications/initialized: accepted (2025-11-25 lifecycle "Initialization"); we
        # send nothing before it anyway. Unknown notifications: nothing to do, never a reply.
        if method == "notifications/cancelled" and type(params) is dict:
            rid = params.get("requestId")
            # cancellation "Behavior Requirements": the server SHOULD not send a response
            # for it (dropped from the outbox if still there; unknown or finished: ignored);
            # it also ends a listen stream
            if type(rid) is str or type(rid) is int:
                self.conn.streams.pop(rid, None)
                self.outbox.cancel(rid)

