"""The sans-I/O MCP session: bytes in, bytes out.

Theory of operation
-------------------
A transport owns one ``Session`` per connection and feeds it whatever it reads:
``receive_data(chunk)`` returns the bytes to write back (possibly ``b""``), and
``receive_data(b"")`` means end of input (the final unterminated line is served).
Server-initiated messages (``notifications/prompts/list_changed``) come from
``prompts_changed()``. Nothing here touches a file descriptor, a clock or a signal.

Each line is decoded, classified (request, notification, client response, batch) and
dispatched. ``_answer`` is the one place where exceptions become JSON-RPC errors:
``ProtocolError`` keeps its code; anything else becomes -32603 with a fixed message
and an opaque id that also goes to the server's log hook (stderr in the CLI), so no
traceback or internal state ever reaches the wire. Methods are resolved (-32601)
before params are validated (-32602).

State (handshake era, lifecycle "Lifecycle Phases") lives in ``_STATES``: a
connection starts ``NEW``; a successful ``initialize`` moves it to ``READY`` with the
negotiated revision. Nothing else assigns ``self.state``.
"""

import itertools

from .errors import (InternalError, InvalidParams, InvalidRequest, MethodNotFound,
                     ParseError, ProtocolError, clip)
from .jsonrpc import DEFAULT_MAX_LINE, TOO_LONG, LineBuffer, check_id, decode, encode
from .models import LEGACY_VERSIONS, V_ICONS, V_TITLES, needs_shaping, shape_content
from .prompts import RenderFailed, check_arguments, load_config, render

__all__ = ["Server", "Session", "LATEST_LEGACY", "no_log"]

LATEST_LEGACY = LEGACY_VERSIONS[-1]
BATCH_VERSION = "2025-03-26"  # the only revision with JSON-RPC batching (2025-03-26 changelog)

NEW, READY = "NEW", "READY"

_error_ids = itertools.count(1)


def no_log(level, message, exc=None):
    """The default log hook: drop operator diagnostics (the CLI logs to stderr)."""


class Server:
    """What every session of one server shares: the config and the operator hooks.

    ``log(level, message, exc=None)`` receives operator diagnostics (never the wire);
    ``list_changed`` says whether a change source exists, so ``initialize`` only
    promises ``listChanged: true`` when notifications can really be sent.
    """

    def __init__(self, config, log=None, list_changed=False, max_line=DEFAULT_MAX_LINE,
                 page_size=None):
        self.page_size = page_size
        self.config = self._load(config)
        self.log = log or no_log
        self.list_changed = list_changed
        self.max_line = max_line
        self.error_tag = "%04x" % (id(self) & 0xFFFF)

    def replace_config(self, config):
        """Swap in a new config (validated whole first; raises ``ConfigError``)."""
        self.config = new = self._load(config)
        return new

    def _load(self, config):
        config = load_config(config)
        if self.page_size is not None:
            config.page_size = self.page_size
        return config

    def session(self):
        return Session(self)


def _response(rid, result):
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def _error(rid, exc):
    return {"jsonrpc": "2.0", "id": rid, "error": exc.to_wire()}


class Session:
    """One connection's protocol state. Feed it bytes; write what it returns."""

    def __init__(self, server):
        if not isinstance(server, Server):
            server = Server(server)
        self.server = server
        self.state = NEW
        self.version = None
        self._lines = LineBuffer(server.max_line)

    # --- bytes in, bytes out --------------------------------------------------------

    def receive_data(self, data):
        """Feed bytes read from the peer (``b""`` at EOF); return bytes to send."""
        lines = self._lines.feed(data) if data else self._lines.close()
        out = []
        for line in lines:
            reply = self.handle_line(line)
            if reply is not None:
                out.append(encode(reply))
        return b"".join(out)

    def prompts_changed(self):
        """Bytes to send after the prompt set changed (``b""`` when this session was
        not promised ``listChanged``; prompts "List Changed Notification")."""
        if self.state is READY and self.server.list_changed:
            return encode({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
        return b""

    # --- one line -------------------------------------------------------------------

    def handle_line(self, line):
        """The reply (a dict, a list for a batch, or None) to one line of input."""
        if line is TOO_LONG:
            return _error(None, InvalidRequest(
                "Invalid Request: line longer than the %d-byte limit" % self.server.max_line))
        try:
            msg = decode(line)
        except ParseError as exc:
            return _error(None, exc)
        if type(msg) is list:
            return self._batch(msg)
        return self._message(msg, False)

    def _batch(self, items):
        # JSON-RPC 2.0 section 6; MCP allowed batches only in 2025-03-26.
        if self.version != BATCH_VERSION:
            return _error(None, InvalidRequest(
                "Invalid Request: batches are served only under protocol %s" % BATCH_VERSION))
        if not items:
            return _error(None, InvalidRequest("Invalid Request: empty batch"))
        replies = [r for r in (self._message(m, True) for m in items) if r is not None]
        return replies or None

    def _message(self, msg, in_batch):
        if type(msg) is not dict:
            return _error(None, InvalidRequest("Invalid Request: expected a JSON object"))
        method = msg.get("method")
        if "id" not in msg:
            if method is None and ("result" in msg or "error" in msg):
                return None  # a response to nothing we sent: ignored
            if type(method) is str and msg.get("jsonrpc") == "2.0":
                self._notification(method, msg.get("params"))
                return None
            if "method" in msg:
                return None  # a malformed notification still never gets a reply
            return _error(None, InvalidRequest("Invalid Request: no method"))
        if method is None and "method" not in msg and ("result" in msg or "error" in msg):
            return None  # client response
        try:
            rid = check_id(msg)
        except InvalidRequest as exc:
            return _error(None, exc)
        if msg.get("jsonrpc") != "2.0":
            return _error(rid, InvalidRequest('Invalid Request: "jsonrpc" must be "2.0"'))
        if type(method) is not str:
            return _error(rid, InvalidRequest("Invalid Request: method must be a string"))
        return self._answer(rid, method, msg.get("params"), in_batch)

    def _answer(self, rid, method, params, in_batch):
        """The one exception-to-error boundary."""
        try:
            handler = _HANDLERS.get(method)
            if handler is None:
                raise MethodNotFound("Method not found: %s" % clip(method))
            if params is None:
                params = {}
            elif type(params) is not dict:
                raise InvalidParams("Invalid params: params must be an object")
            if method not in _STATES[self.state]:
                raise InvalidParams(
                    "Session not initialized: send initialize before %s" % method)
            return _response(rid, handler(self, params, in_batch))
        except ProtocolError as exc:
            return _error(rid, exc)
        except Exception as exc:
            return _error(rid, self._internal(exc, method))

    def _internal(self, exc, method):
        tag = "%s-%d" % (self.server.error_tag, next(_error_ids))
        cause = exc.__cause__ if isinstance(exc, RenderFailed) else exc
        self.server.log("error", "internal error %s in %s: %s" % (tag, method, exc), cause)
        return InternalError("Internal error (id %s)" % tag, {"errorId": tag})

    def _notification(self, method, params):
        if method == "notifications/initialized":
            return  # lifecycle "Initialization": accepted; we send nothing before it anyway
        # notifications/cancelled and unknown notifications: nothing to do, never a reply.

    # --- handlers -----------------------------------------------------------------------

    def _initialize(self, params, in_batch):
        if in_batch:
            raise InvalidRequest("Invalid Request: initialize cannot be part of a batch")
        if self.state is not NEW:
            raise InvalidRequest("Invalid Request: already initialized")
        requested = params.get("protocolVersion")
        if type(requested) is not str:
            raise InvalidParams("Invalid params: protocolVersion must be a string")
        # lifecycle "Version Negotiation": if the server supports the requested version
        # it MUST respond with the same version; otherwise with another it supports
        # (SHOULD be its latest).
        version = requested if requested in LEGACY_VERSIONS else LATEST_LEGACY
        config = self.server.config
        info = {"name": config.name, "version": config.version}
        if config.title is not None and version >= V_TITLES:
            info["title"] = config.title
        result = {
            "protocolVersion": version,
            # prompts "Capabilities": servers that support prompts MUST declare them.
            "capabilities": {"prompts": {"listChanged": bool(self.server.list_changed)}},
            "serverInfo": info,
        }
        if config.instructions is not None:
            result["instructions"] = config.instructions
        self.state, self.version = READY, version
        return result

    def _ping(self, params, in_batch):
        return {}  # ping "Behavior Requirements": the receiver MUST respond promptly with {}

    def _prompts_list(self, params, in_batch):
        cursor = params.get("cursor")
        config = self.server.config
        prompts, next_cursor = config.prompts.page(cursor, config.page_size)
        version = self.version
        result = {"prompts": [p.listing(version) for p in prompts]}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return result

    def _prompts_get(self, params, in_batch):
        name = params.get("name")
        if type(name) is not str:
            raise InvalidParams("Invalid params: name must be a string")
        prompt = self.server.config.prompts.get(name)
        if prompt is None:
            raise InvalidParams("Unknown prompt: %s" % clip(name))
        arguments = check_arguments(prompt, params.get("arguments"))
        messages = render(prompt, arguments)
        version = self.version
        if version < V_ICONS:
            messages = [m if not needs_shaping(m["content"]) else
                        {"role": m["role"], "content": shape_content(m["content"], version)}
                        for m in messages]
        result = {"messages": messages}
        if prompt.description is not None:
            result["description"] = prompt.description
        return result


_HANDLERS = {
    "initialize": Session._initialize,
    "ping": Session._ping,
    "prompts/list": Session._prompts_list,
    "prompts/get": Session._prompts_get,
}

# The state table: which requests each state serves. Before initialize only ping and
# initialize (lifecycle: the client SHOULD NOT send other requests before the
# initialize response); others get -32602 at once so probing clients fall back fast.
_STATES = {
    NEW: frozenset(("initialize", "ping")),
    READY: frozenset(_HANDLERS),
}
