"""The sans-I/O MCP session: bytes in, bytes out, for both protocol eras.

Theory of operation
-------------------
A transport owns one ``Session`` per connection and feeds it whatever it reads:
``receive_data(chunk)`` returns the bytes to write back (possibly ``b""``), and
``receive_data(b"")`` means end of input (the final unterminated line is served).
Server-initiated messages come from ``prompts_changed()`` and ``end_streams()``.
Nothing here touches a file descriptor, a clock or a signal.

Each line is decoded, classified (request, notification, client response, batch) and
dispatched. ``_answer`` is the one place where exceptions become JSON-RPC errors:
``ProtocolError`` keeps its code; anything else becomes -32603 with a fixed message
and an opaque id that also goes to the server's log hook (stderr in the CLI), so no
traceback or internal state ever reaches the wire. Methods are resolved (-32601)
before params are validated (-32602).

Eras (2026-07-28 versioning "Backward Compatibility with Initialization-Based
Versions"): the era is chosen per request. A request whose ``params._meta`` carries
``io.modelcontextprotocol/protocolVersion`` (and ``server/discover`` always) is served
statelessly under that version; ``initialize`` selects the handshake era for the
connection; anything else is served under the handshake revision once one was
negotiated. Handshake state lives in ``_STATES``: a connection starts ``NEW``; a
successful ``initialize`` moves it to ``READY`` with the negotiated revision. Nothing
else assigns ``self.state``. Modern ``subscriptions/listen`` streams are kept in
``self.streams`` until the client cancels them or the server ends them.
"""

import gc
import itertools
import math
from collections import deque
from contextvars import ContextVar

from .errors import (ConfigError, InternalError, InvalidParams, InvalidRequest, MethodNotFound,
                     ParseError, ProtocolError, UnsupportedProtocolVersion, clip)
from .jsonrpc import TOO_LONG, LineBuffer, check_id, decode, encode, flatten_if_deeper, inner_containers
from .limits import Limits
from .models import (ALL_VERSIONS, LEGACY_VERSIONS, LOG_LEVELS, MODERN_VERSIONS, V_2025_03_26,
                     V_2025_06_18, V_2025_11_25, Check, needs_shaping, shape_content)
from .prompts import (CallbackFailed, check_arguments, check_page_size, complete_argument,
                      load_config, render, rendered_size)

__all__ = ["Server", "Session", "LATEST_LEGACY", "no_log", "LOG_LEVELS", "progress"]

LATEST_LEGACY = LEGACY_VERSIONS[-1]
BATCH_VERSION = "2025-03-26"  # the only revision with JSON-RPC batching (2025-03-26 changelog)

NEW, READY = "NEW", "READY"

# 2026-07-28 basic-overview "_meta": reserved per-request keys.
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"

_SEVERITY = {name: i for i, name in enumerate(LOG_LEVELS)}

_error_ids = itertools.count(1)

#: The call being served in this context: what ``progress()`` reports on. A context
#: variable, so Sessions driven from two threads never see each other's call (each thread
#: has its own context); on the loop a callable runs while exactly its own call is set.
_CURRENT = ContextVar("tinymcp_current_call", default=None)


def _check_version(version):
    """Raise -32022 unless ``version`` is a stateless revision we serve. Checked before
    anything else in a modern request: a client of a later revision must get the modern
    -32022 (and retry), not a -32601 or a -32602 about keys its revision may have
    renamed (and fall back)."""
    if version not in MODERN_VERSIONS:
        raise UnsupportedProtocolVersion("Unsupported protocol version", {
            # an echo of client input is bounded like every other (docs/security.md)
            "supported": list(MODERN_VERSIONS),
            "requested": version[:80] + "..." if len(version) > 80 else version})


def _is_response(msg):
    """A JSON-RPC response (a client's answer, never answered back): no method, a result
    or an error."""
    return "method" not in msg and ("result" in msg or "error" in msg)


class _TooDeep:
    """A batch item that nests deeper than max_depth: its flattened top level."""
    __slots__ = ("flat",)

    def __init__(self, flat):
        self.flat = flat


def progress(value, total=None, message=None):
    """Report progress from inside a ``render`` or ``complete`` callable.

    Sends ``notifications/progress`` for the request being served when its
    ``params._meta.progressToken`` asked for it (progress "Progress Flow"), before the
    response; returns False (and sends nothing) otherwise, e.g. after the response.
    ``value`` MUST increase with each call (progress "Progress Flow", every revision): a
    value that does not raises ValueError.
    """
    call = _CURRENT.get()
    if call is None:
        return False
    if call.progress_token is None:
        return False
    for number in (value, total):
        if number is not None and (type(number) not in (int, float) or not math.isfinite(number)):
            raise TypeError("progress and total must be finite numbers, got %r" % (number,))
    if message is not None and type(message) is not str:
        raise TypeError("message must be a string")
    if call.last_progress is not None and not value > call.last_progress:
        raise ValueError("progress must increase: %r after %r" % (value, call.last_progress))
    call.last_progress = value
    params = {"progressToken": call.progress_token, "progress": value}
    if total is not None:
        params["total"] = total
    if message is not None and call.version >= V_2025_03_26:  # message arrived in 2025-03-26
        params["message"] = message
    call.note(_notification("notifications/progress", params))
    return True


def no_log(level, message, exc=None):
    """The default log hook: drop operator diagnostics (the CLI logs to stderr)."""


class Server:
    """What every session of one server shares: the config and the operator hooks.

    ``log(level, message, exc=None)`` receives operator diagnostics (never the wire);
    ``list_changed`` says whether a change source exists, so sessions only promise
    ``listChanged: true`` (and honour ``promptsListChanged`` subscriptions) when
    notifications can really be sent.
    """

    def __init__(self, config, log=None, list_changed=False, page_size=None, limits=None):
        check = Check()
        if page_size is not None:
            page_size = check_page_size(check, {"page_size": page_size})
        overrides = Limits.from_wire(check, limits, "limits") if limits is not None else {}
        if check.problems:
            raise ConfigError(check.problems)
        self.page_size = page_size
        self._limit_overrides = overrides
        self._change_hooks = []
        self.config = self._load(config)
        self.log = log or no_log
        self.list_changed = list_changed
        self.error_tag = "%04x" % (id(self) & 0xFFFF)

    def replace_config(self, config):
        """Replace the prompt set (any thread): validated whole first, raises ``ConfigError``.

        With a transport running, the new config is handed to its loop (through the
        hooks it registered with ``add_change_hook``), which applies it and notifies
        every session; without one it is applied at once. Returns the new config.
        """
        new = self._load(config)
        if self._change_hooks:
            for hook in list(self._change_hooks):
                hook(new)
        else:
            self.apply_config(new)
        return new

    def apply_config(self, new):
        """Swap in an already validated config (from the loop's thread, with a transport
        running); the caller then sends each session's ``prompts_changed()`` bytes."""
        self.config = new

    @property
    def limits(self):
        """The limits in force: defaults < the config's ``limits`` < ``Server(limits=...)``."""
        return self.config.limits

    def add_change_hook(self, hook):
        """``hook(new_config)`` is called by ``replace_config`` instead of applying it."""
        self._change_hooks.append(hook)

    def remove_change_hook(self, hook):
        self._change_hooks.remove(hook)

    def _load(self, config):
        # A big config makes tens of thousands of long-lived objects at once; collecting
        # while they are created only re-scans them (10,000 prompts: 450 -> 280 ms).
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            config = load_config(config)
        finally:
            if gc_was_enabled:
                gc.enable()
        # (a fresh ServerConfig: nothing live changes until apply_config)
        if self.page_size is not None:
            config.page_size = self.page_size
        if self._limit_overrides:
            config.limits = config.limits.merged(self._limit_overrides)
        return config

    def session(self):
        return Session(self)


def _response(rid, result):
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def _error(rid, exc):
    return {"jsonrpc": "2.0", "id": rid, "error": exc.to_wire()}


def _notification(method, params=None):
    msg = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def _log_message(level, data, logger="tinymcp"):
    return _notification("notifications/message", {"level": level, "logger": logger, "data": data})


class Call:
    """One request being served: its era, revision, and request-scoped log level."""

    __slots__ = ("rid", "version", "modern", "in_batch", "log_threshold", "notes",
                 "progress_token", "last_progress")

    def __init__(self, rid, version, modern, in_batch, log_threshold=None):
        self.rid = rid
        self.version = version
        self.modern = modern
        self.in_batch = in_batch
        self.log_threshold = log_threshold
        self.notes = None
        self.progress_token = None
        self.last_progress = None

    def note(self, message):
        """Queue a notification to go out before this request's response."""
        if self.notes is None:
            self.notes = []
        self.notes.append(message)

    def log(self, level, data, logger="tinymcp"):
        """Queue ``notifications/message`` for this request, when it asked for the level.

        2026-07-28 logging "Per-request log level": the server MUST NOT emit
        notifications/message for a request without the logLevel field, and sends
        them before the final response, at or above the requested level.
        """
        if self.log_threshold is not None and _SEVERITY[level] >= self.log_threshold:
            self.note(_log_message(level, data, logger))


class Session:
    """One connection's protocol state. Feed it bytes; write what it returns."""

    def __init__(self, server):
        if not isinstance(server, Server):
            server = Server(server)
        self.server = server
        self.state = NEW
        self.version = None
        #: handshake-era logging/setLevel threshold (an index into LOG_LEVELS), or None
        level = server.config.log_level
        self.log_threshold = None if level is None else _SEVERITY[level]
        #: open subscriptions/listen streams: request id -> honoured filter
        self.streams = {}
        self._lines = LineBuffer(server.limits.max_line_bytes)
        #: complete lines read but not served yet (held back by a budget)
        self._pending = deque()
        self._eof = False
        #: queued output: (message, its encoded bytes), and their total size
        self._out = []
        self._out_size = 0
        #: replies queued but not yet sent, which a notifications/cancelled may still drop
        self._cancellable = {}
        self._batch_replies = None

    # --- bytes in, bytes out --------------------------------------------------------

    def receive_data(self, data, budget=None):
        """Feed bytes read from the peer (``b""`` at EOF); return bytes to send.

        With a ``budget`` (bytes), lines are served only while the output they made is
        below it (at least one line a call): the rest stay ``pending`` for ``resume()``.
        So a transport bounds what one read can make the server hold, whatever the size
        of each reply. Replies stay cancellable until they are returned.
        At EOF the last unterminated line is served, and then listen streams still open
        are ended as at shutdown (``end_streams``): every request read gets its reply.
        """
        if data:
            self._pending.extend(self._lines.feed(data))
        else:
            self._pending.extend(self._lines.close())
            self._eof = True
        return self.resume(budget)

    @property
    def pending(self):
        """How many complete lines wait to be served (``resume``)."""
        return len(self._pending)

    def resume(self, budget=None):
        """Serve pending lines, within ``budget`` as ``receive_data`` does; bytes to send."""
        pending = self._pending
        while pending and (budget is None or self._out_size < budget):
            reply = self.handle_line(pending.popleft())
            if reply is not None:
                self._queue(reply)
        if pending and self._cancellable:
            self._cancel_early()
        out = self._out
        data = b"".join([d for _, d in out]) if out else b""
        if out:
            self._out = []
            self._out_size = 0
            self._cancellable = {}
        if self._eof and not pending and self.streams:
            data += self.end_streams()
        return data

    def _cancel_early(self):
        """Apply now the notifications/cancelled held back by a budget that name a reply
        queued in this output: served in turn they would have dropped it before it was
        sent (a cancel read together with its request), and a notification has no reply
        of its own whose order could change."""
        kept = deque()
        max_depth = self.server.limits.max_depth
        for line in self._pending:
            if type(line) is bytes and b"notifications/cancelled" in line:
                try:  # (a line too deep is left to be refused in turn)
                    msg = decode(line) if flatten_if_deeper(line, max_depth) is None else None
                except ParseError:
                    msg = None
                params = msg.get("params") if type(msg) is dict else None
                rid = params.get("requestId") if type(params) is dict else None
                if type(rid) in (str, int) and rid in self._cancellable and "id" not in msg \
                        and msg.get("jsonrpc") == "2.0" and msg.get("method") == "notifications/cancelled":
                    self._cancel(rid)
                    continue
            kept.append(line)
        self._pending.clear()  # (in place: resume() holds this deque)
        self._pending.extend(kept)

    def discard_pending(self):
        """Drop the lines not served yet (the transport is shutting down)."""
        self._pending.clear()

    def _queue(self, msg):
        """Queue ``msg`` for sending, encoded now (so the output's size is known)."""
        try:
            data = encode(msg)
        except (ValueError, TypeError, RecursionError):
            msg = self._encodable(msg)
            if not msg:
                return
            data = encode(msg)
        self._out.append((msg, data))
        self._out_size += len(data)

    def _encodable(self, msg):
        """``msg`` if it encodes as JSON; else, for a reply, a -32603 error for its id (a
        callable returned NaN, say), and for a notification nothing."""
        if type(msg) is list:
            return [m for m in (self._encodable(m) for m in msg) if m]
        try:
            encode(msg)
            return msg
        except (ValueError, TypeError, RecursionError) as exc:
            if "id" in msg:
                return _error(msg["id"], self._internal(exc, "encoding a reply", None))
            self.server.log("error", "dropped a notification that does not encode: %s" % exc)
            return None

    def prompts_changed(self):
        """Bytes to send after the prompt set changed.

        Handshake era: ``notifications/prompts/list_changed`` when this session was
        promised ``listChanged`` (2025-11-25 prompts "List Changed Notification"). Modern era: one
        tagged notification per listen stream that asked for ``promptsListChanged``
        (2026-07-28 subscriptions "Receiving Notifications"); never a type not asked for.
        """
        msgs = []
        if self.state is READY and self.server.list_changed:
            msgs.append(_notification("notifications/prompts/list_changed"))
        for rid, honoured in self.streams.items():
            if honoured.get("promptsListChanged"):
                msgs.append(_notification("notifications/prompts/list_changed",
                                          {"_meta": {META_SUBSCRIPTION: rid}}))
        return b"".join([encode(m) for m in msgs])

    def log_event(self, level, data):
        """Bytes of ``notifications/message`` for a server event (a reload, a rejected
        config), for a handshake-era session whose level admits it (logging
        "Log Message Notifications"). Modern sessions get none: 2026-07-28 log
        messages are request-scoped and never go on a listen stream."""
        if self.state is READY and self.log_threshold is not None \
                and _SEVERITY[level] >= self.log_threshold:
            return encode(_log_message(level, data))
        return b""

    def end_streams(self):
        """Bytes that end every open listen stream (server shutdown).

        2026-07-28 cancellation: the server MUST send notifications/cancelled when it
        tears a stream down, and a cancellation MUST only reference a request still in
        progress, so it comes first (tagged, as everything on the stream: subscriptions
        "Receiving Notifications"); subscriptions "Graceful Closure": the server SHOULD
        answer the listen request with a result, which follows (docs/decisions.md).
        """
        msgs = []
        for rid in self.streams:
            msgs.append(_notification("notifications/cancelled", {
                "requestId": rid, "reason": "server shutting down", "_meta": {META_SUBSCRIPTION: rid}}))
            meta = {META_SUBSCRIPTION: rid, META_SERVER_INFO: self._server_info(MODERN_VERSIONS[-1])}
            msgs.append(_response(rid, {"resultType": "complete", "_meta": meta}))
        self.streams = {}
        return b"".join([encode(m) for m in msgs])

    # --- one line -------------------------------------------------------------------

    def handle_line(self, line):
        """The reply (a dict, a list for a batch, or None) to one line of input.

        Request-scoped notifications (log messages) are queued ahead of it.
        """
        limits = self.server.limits
        if line is TOO_LONG:
            return _error(None, InvalidRequest(
                "Invalid Request: line longer than the %d-byte limit (max_line_bytes)"
                % limits.max_line_bytes))
        try:
            flat = flatten_if_deeper(line, limits.max_depth)
            msg = decode(line if flat is None else flat)
            if flat is not None and type(msg) is list and self.version == BATCH_VERSION:
                # a batch too deep as a whole: each item is judged on its own, so one deep
                # item does not cost its siblings their replies
                msg = self._deep_batch_items(line, len(msg), limits.max_depth - 1)
                flat = None
        except ParseError as exc:
            return _error(None, exc)
        if flat is not None:
            return self._too_deep(msg)
        if type(msg) is list:
            return self._batch(msg)
        return self._message(msg, False)

    def _too_deep(self, msg):
        """The reply to a message nested deeper than max_depth, read from its flattened
        top level: -32600 with its id when that is valid; nothing for a notification or a
        response."""
        if type(msg) is dict and (_is_response(msg) or "id" not in msg and "method" in msg):
            return None  # a notification or a response never gets a reply, not even this one
        rid = msg.get("id") if type(msg) is dict else None
        return _error(rid if type(rid) in (str, int) else None, InvalidRequest(
            "Invalid Request: nesting deeper than %d levels (max_depth)"
            % self.server.limits.max_depth))

    def _deep_batch_items(self, line, count, limit):
        """The ``count`` items of a too-deep batch line: each container item decoded (or
        ``_TooDeep`` when it nests deeper than ``limit`` inside the batch), and the scalar
        items as None (each an invalid request)."""
        items = []
        for start, end in inner_containers(line):
            raw = line[start:end]
            flat = flatten_if_deeper(raw, limit)
            item = decode(raw if flat is None else flat)
            items.append(item if flat is None else _TooDeep(item))
        return items + [None] * (count - len(items))

    def _batch(self, items):
        # JSON-RPC 2.0 section 6; MCP allowed batches only in 2025-03-26.
        if self.version != BATCH_VERSION:
            return _error(None, InvalidRequest(
                "Invalid Request: batches are served only under protocol %s" % BATCH_VERSION))
        if not items:
            return _error(None, InvalidRequest("Invalid Request: empty batch"))
        if len(items) > self.server.limits.max_batch:
            return _error(None, InvalidRequest("Invalid Request: batch of %d exceeds the limit of %d "
                                               "(max_batch)" % (len(items), self.server.limits.max_batch)))
        replies = self._batch_replies = []
        try:
            for item in items:
                reply = self._message(item, True)
                if reply is not None:
                    replies.append(reply)
        finally:
            self._batch_replies = None
        return replies or None

    def _message(self, msg, in_batch):
        if type(msg) is _TooDeep:
            return self._too_deep(msg.flat)
        if type(msg) is not dict:
            return _error(None, InvalidRequest("Invalid Request: expected a JSON object"))
        if _is_response(msg):
            return None  # a response to nothing we sent: ignored
        method = msg.get("method")
        if "id" not in msg:
            # JSON-RPC 2.0 section 4.1: a notification is never answered, not even an error.
            if type(method) is str and msg.get("jsonrpc") == "2.0":
                self._on_notification(method, msg.get("params"))
                return None
            if "method" in msg:
                return None  # a malformed notification still never gets a reply
            return _error(None, InvalidRequest("Invalid Request: no method"))
        try:
            rid = check_id(msg)
        except InvalidRequest as exc:
            return _error(None, exc)
        if msg.get("jsonrpc") != "2.0":  # JSON-RPC 2.0 section 4: MUST be exactly "2.0"
            return _error(rid, InvalidRequest('Invalid Request: "jsonrpc" must be "2.0"'))
        if type(method) is not str:
            return _error(rid, InvalidRequest("Invalid Request: method must be a string"
                                              if "method" in msg else "Invalid Request: no method"))
        return self._answer(rid, method, msg.get("params"), in_batch)

    def _answer(self, rid, method, params, in_batch):
        """The one exception-to-error boundary."""
        call = None
        try:
            if params is None:
                params = {}
            meta = params.get("_meta") if type(params) is dict else None
            modern = (type(meta) is dict and META_VERSION in meta) or method == "server/discover"
            if modern and type(meta) is dict and type(meta.get(META_VERSION)) is str:
                # before the method: whatever the method, an unsupported version MUST get
                # -32022 (2026-07-28 versioning "Protocol Version Negotiation"), so the
                # client retries in a version we speak rather than learning nothing
                _check_version(meta[META_VERSION])
            handler = (_MODERN if modern else _HANDLERS).get(method)
            if handler is None and self.state is NEW and method in _MODERN:
                # A stateless-only method without its version key, before any handshake:
                # 2026-07-28 basic-overview "Per-request protocol fields": a request missing
                # a required field MUST get -32602 (naming it), not -32601.
                modern, handler = True, _MODERN[method]
            if handler is None:
                raise MethodNotFound("Method not found: %s" % clip(method))
            if type(params) is not dict:
                raise InvalidParams("Invalid params: params must be an object")
            if modern:
                call = self._modern_call(rid, method, meta, in_batch)
            elif method not in _STATES[self.state]:
                raise InvalidParams(
                    "Session not initialized: send initialize before %s, or give %s and %s "
                    "in params._meta" % (method, META_VERSION, META_CAPABILITIES),
                    {"supported": list(ALL_VERSIONS)})
            else:
                call = Call(rid, self.version, False, in_batch, self.log_threshold)
            if type(meta) is dict:
                token = meta.get("progressToken")
                if type(token) in (str, int):
                    call.progress_token = token
            token = _CURRENT.set(call)
            try:
                result = handler(self, params, call)
            finally:
                _CURRENT.reset(token)
            if result is None:
                reply = None  # a stream kept open (subscriptions/listen)
            else:
                if call.modern:
                    # 2026-07-28 basic-overview "Result Responses": the result MUST have
                    # resultType; servers SHOULD put serverInfo in every result's _meta
                    result["resultType"] = "complete"
                    result.setdefault("_meta", {})[META_SERVER_INFO] = self._server_info(call.version)
                reply = _response(rid, result)
        except ProtocolError as exc:
            reply = _error(rid, exc)
        except Exception as exc:
            reply = _error(rid, self._internal(exc, method, call))
        notes = call.notes if call is not None else None
        if notes:
            for note in notes:
                self._queue(note)
        # 2025-11-25 cancellation "Behavior Requirements": initialize MUST NOT be cancelled.
        # (A listen has no reply yet, but its acknowledgement is queued: a cancel in the
        # same read drops that too, stdio "Cancellation": no further messages for it.)
        if (reply is not None or notes) and method != "initialize":
            self._cancellable[rid] = (reply, notes)
        return reply

    def _modern_call(self, rid, method, meta, in_batch):
        """Validate the per-request ``_meta`` of a modern request (2026-07-28 basic-overview
        "Per-request protocol fields": a request missing a required field MUST be
        rejected with -32602; versioning: an unsupported version MUST get -32022)."""
        if type(meta) is not dict:
            if method == "server/discover":
                # a probe without _meta still learns what we speak (docs/decisions.md)
                return Call(rid, MODERN_VERSIONS[-1], True, in_batch)
            meta = {}
        version = meta.get(META_VERSION, MODERN_VERSIONS[-1])
        if type(version) is not str:
            raise InvalidParams("Invalid params: %s must be a string" % META_VERSION)
        # (a version given as a string was checked before the method: _answer)
        missing = [k for k in (META_VERSION, META_CAPABILITIES) if k not in meta]
        if missing and not (method == "server/discover" and META_VERSION not in meta):
            # a client that named a stateless version is offered only those (as in -32022)
            raise InvalidParams("Invalid params: missing params._meta keys: %s" % ", ".join(missing),
                                {"supported": list(MODERN_VERSIONS if META_VERSION in meta else ALL_VERSIONS)})
        if META_CAPABILITIES in meta and type(meta[META_CAPABILITIES]) is not dict:
            raise InvalidParams("Invalid params: %s must be an object" % META_CAPABILITIES)
        if in_batch:
            raise InvalidRequest("Invalid Request: batches are served only under protocol %s"
                                 % BATCH_VERSION)
        threshold = None
        if META_LOG_LEVEL in meta:
            level = meta[META_LOG_LEVEL]
            if type(level) is not str or level not in _SEVERITY:
                # 2026-07-28 logging "Error Handling": an unknown level SHOULD get -32602
                raise InvalidParams("Invalid params: %s must be one of %s"
                                    % (META_LOG_LEVEL, ", ".join(LOG_LEVELS)))
            threshold = _SEVERITY[level]
        return Call(rid, version, True, in_batch, threshold)

    def _capabilities(self, version):
        # 2024-11-05..2025-11-25 prompts "Capabilities": servers that support prompts MUST
        # declare them;
        # 2025-11-25 and 2026-07-28 logging "Capabilities": servers that emit log
        # messages MUST declare logging.
        caps = {"prompts": {"listChanged": bool(self.server.list_changed)}, "logging": {}}
        if version >= V_2025_03_26:
            caps["completions"] = {}  # 2024-11-05 has no such capability (but is answered)
        return caps

    def _server_info(self, version):
        config = self.server.config
        info = {"name": config.name, "version": config.version}
        if config.title is not None and version >= V_2025_06_18:
            info["title"] = config.title
        return info

    def _internal(self, exc, method, call):
        tag = "%s-%d" % (self.server.error_tag, next(_error_ids))
        cause = exc.__cause__ if isinstance(exc, CallbackFailed) and exc.__cause__ else exc
        self.server.log("error", "internal error %s in %s: %s" % (tag, method, exc), cause)
        if call is not None:
            call.log("error", {"error": "internal error", "errorId": tag, "method": method})
        # a fixed message: what failed stays on stderr, found there by data.errorId
        return InternalError("Internal error", {"errorId": tag})

    def _on_notification(self, method, params):
        if method == "notifications/cancelled" and type(params) is dict:
            self._cancel(params.get("requestId"))
        # notifications/initialized: accepted (2025-11-25 lifecycle "Initialization"); we send
        # nothing before it anyway. Unknown notifications: nothing to do, never a reply.

    def _cancel(self, rid):
        """``notifications/cancelled``: end a listen stream, or drop a reply not yet sent.

        Cancellation "Behavior Requirements": the server SHOULD not send a response for
        the cancelled request; unknown or finished ids are ignored.
        """
        if type(rid) not in (str, int):
            return
        if rid in self.streams:
            del self.streams[rid]
        queued = self._cancellable.pop(rid, None)
        if queued is None:
            return
        reply, notes = queued
        # the reply waits in the output, in a batch array there, or in the batch being
        # built; its log and progress notifications (stdio: MUST NOT send any further
        # messages for it) wait in the output
        doomed = ([] if reply is None else [reply]) + (notes or [])

        def kept(items):
            return [m for m in items if not any(m is d for d in doomed)]

        if self._batch_replies is not None:
            self._batch_replies[:] = kept(self._batch_replies)
        out = []
        for msg, data in self._out:
            if any(msg is d for d in doomed):
                continue
            if type(msg) is list and any(m is d for m in msg for d in doomed):
                msg = kept(msg)
                if not msg:
                    continue  # a batch whose every reply was cancelled: nothing to send
                data = encode(msg)
            out.append((msg, data))
        self._out = out
        self._out_size = sum(len(data) for _, data in out)

    # --- handshake-era handlers ---------------------------------------------------------

    def _initialize(self, params, call):
        if call.in_batch:
            # 2025-03-26 lifecycle "Initialization": the initialize request MUST NOT be
            # part of a JSON-RPC batch
            raise InvalidRequest("Invalid Request: initialize cannot be part of a batch")
        if self.state is not NEW:
            raise InvalidRequest("Invalid Request: already initialized")
        requested = params.get("protocolVersion")
        if type(requested) is not str:
            raise InvalidParams("Invalid params: protocolVersion must be a string")
        # 2025-11-25 lifecycle "Version Negotiation" (all four handshake revisions alike):
        # if the server supports the requested version
        # it MUST respond with the same version; otherwise with another it supports
        # (SHOULD be its latest).
        version = requested if requested in LEGACY_VERSIONS else LATEST_LEGACY
        config = self.server.config
        result = {
            "protocolVersion": version,
            "capabilities": self._capabilities(version),
            "serverInfo": self._server_info(version),
        }
        if config.instructions is not None:
            result["instructions"] = config.instructions
        self.state, self.version = READY, version
        return result

    def _ping(self, params, call):
        return {}  # 2025-11-25 ping "Behavior Requirements": MUST respond promptly with {}

    def _set_level(self, params, call):
        # 2025-11-25 logging "Setting Log Level" / "Error Handling": the eight RFC 5424
        # levels; anything else -32602.
        level = params.get("level")
        if type(level) is not str or level not in _SEVERITY:
            raise InvalidParams("Invalid params: level must be one of %s" % ", ".join(LOG_LEVELS))
        self.log_threshold = _SEVERITY[level]
        return {}

    # --- handlers of both eras ------------------------------------------------------------

    def _prompts_list(self, params, call):
        cursor = params.get("cursor")
        config = self.server.config
        prompts, next_cursor = config.prompts.page(cursor, config.page_size,
                                                   config.cache_scope if call.modern else "")
        version = call.version
        result = {"prompts": [p.listing(version) for p in prompts]}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        if call.modern:
            self._cache_hints(result)
        return result

    def _prompt(self, name):
        prompt = self.server.config.prompts.get(name)
        if prompt is None:
            # 2025-11-25 and 2026-07-28 prompts "Error Handling": invalid prompt name -32602
            raise InvalidParams("Unknown prompt: %s" % clip(name))
        return prompt

    def _prompts_get(self, params, call):
        # 2026-07-28: inputResponses/requestState (mrtr) are accepted and ignored: no
        # prompt of ours ever answers input_required.
        name = params.get("name")
        if type(name) is not str:
            raise InvalidParams("Invalid params: name must be a string")
        prompt = self._prompt(name)
        limits = self.server.limits
        arguments = check_arguments(prompt, params.get("arguments"), limits)
        messages = render(prompt, arguments)
        size = rendered_size(messages)
        if size > limits.max_render_bytes:
            raise InvalidParams("Invalid params: the rendered prompt (%d characters) exceeds the "
                                "limit of %d (max_render_bytes)" % (size, limits.max_render_bytes))
        version = call.version
        if version < V_2025_11_25:
            messages = [m if not needs_shaping(m["content"]) else
                        {"role": m["role"], "content": shape_content(m["content"], version)}
                        for m in messages]
        result = {"messages": messages}
        if prompt.description is not None:
            result["description"] = prompt.description
        if call.log_threshold is not None:
            call.log("debug", "prompts/get %s: %d message%s" % (
                clip(name), len(messages), "" if len(messages) == 1 else "s"))
        return result

    def _complete(self, params, call):
        ref = params.get("ref")
        if type(ref) is not dict:
            raise InvalidParams("Invalid params: ref must be an object")
        kind = ref.get("type")
        if kind == "ref/resource":
            raise InvalidParams("Invalid params: tinymcp serves no resources, so ref/resource "
                                "has no completions")
        if kind != "ref/prompt":
            raise InvalidParams("Invalid params: ref.type must be 'ref/prompt'")
        name = ref.get("name")
        if type(name) is not str:
            raise InvalidParams("Invalid params: ref.name must be a string")
        argument = params.get("argument")
        if type(argument) is not dict or type(argument.get("name")) is not str \
                or type(argument.get("value")) is not str:
            raise InvalidParams("Invalid params: argument must be an object with string name and value")
        prompt = self._prompt(name)
        context = None
        if call.version >= V_2025_06_18:  # completion: context.arguments from 2025-06-18 on
            ctx = params.get("context")
            if ctx is not None:
                args = ctx.get("arguments") if type(ctx) is dict else None
                if (type(ctx) is not dict or (args is not None and (type(args) is not dict or not all(
                        type(v) is str for v in args.values())))):
                    raise InvalidParams("Invalid params: context.arguments must be an object of strings")
                context = args
        values, total, more = complete_argument(prompt, argument["name"], argument["value"], context)
        return {"completion": {"values": values, "total": total, "hasMore": more}}

    # --- stateless-era handlers (2026-07-28) -------------------------------------------

    def _cache_hints(self, result):
        # 2026-07-28 caching: servers MUST include ttlMs (>= 0) and cacheScope on
        # cacheable complete results; the same scope on every page.
        config = self.server.config
        result["ttlMs"] = config.ttl_ms
        result["cacheScope"] = config.cache_scope

    def _discover(self, params, call):
        config = self.server.config
        result = {
            "supportedVersions": list(MODERN_VERSIONS),
            "capabilities": self._capabilities(call.version),
        }
        if config.instructions is not None:
            result["instructions"] = config.instructions
        self._cache_hints(result)
        return result

    def _listen(self, params, call):
        wanted = params.get("notifications")
        if type(wanted) is not dict:
            raise InvalidParams("Invalid params: notifications must be an object")
        # Only what we can honour: prompt list changes, when a change source exists.
        honoured = {}
        if wanted.get("promptsListChanged") is True and self.server.list_changed:
            honoured["promptsListChanged"] = True
        if call.rid in self.streams:
            raise InvalidRequest("Invalid Request: a listen stream with this id is already open")
        self.streams[call.rid] = honoured
        # 2026-07-28 subscriptions "Acknowledgment": MUST be the first message for this stream.
        call.note(_notification("notifications/subscriptions/acknowledged", {
            "_meta": {META_SUBSCRIPTION: call.rid}, "notifications": honoured}))
        return None


_HANDLERS = {
    "initialize": Session._initialize,
    "ping": Session._ping,
    "logging/setLevel": Session._set_level,
    "prompts/list": Session._prompts_list,
    "prompts/get": Session._prompts_get,
    "completion/complete": Session._complete,
}

#: 2026-07-28 removed initialize, notifications/initialized, ping and logging/setLevel.
_MODERN = {
    "server/discover": Session._discover,
    "prompts/list": Session._prompts_list,
    "prompts/get": Session._prompts_get,
    "completion/complete": Session._complete,
    "subscriptions/listen": Session._listen,
}

# The handshake-era state table: which requests each state serves. Before initialize
# only ping and initialize (lifecycle: the client SHOULD NOT send other requests before
# the initialize response); others get -32602 at once so probing clients fall back fast.
_STATES = {
    NEW: frozenset(("initialize", "ping")),
    READY: frozenset(_HANDLERS),
}
