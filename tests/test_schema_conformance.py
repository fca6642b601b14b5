"""Everything tinymcp writes conforms to the schema of the negotiated revision.

For each handshake-era revision a scripted session runs through the sans-I/O core
(``Session.receive_data``) and EVERY message the server writes is validated with
``schema_check.check_server_message(rev, msg, request_method)``, the request method
being looked up from the id of the request it answers.

Beyond the schemas (which never say ``additionalProperties: false``, so they cannot
see a field a revision does not define), version shaping is proven twice: with
explicit assertions (no audio/resource_link on 2024-11-05, no title/_meta/lastModified
before 2025-06-18, no icons before 2025-11-25, all of them on 2025-11-25) and with a
"closed" copy of each schema in which every object that lists its ``properties`` and
says nothing about others gets ``additionalProperties: false``.

Standard library + pytest only; CPython 3.8 compatible.
"""
import copy
import itertools
import json
import re
from functools import lru_cache

import pytest

try:
    import schema_check as sc
except ImportError:  # tests/ became a package
    from tests import schema_check as sc

REVS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST = "2025-11-25"

if sc.missing_revisions(REVS):
    pytest.skip(sc.skip_reason(REVS), allow_module_level=True)

from tinymcp import Server, Session  # noqa: E402  (after the skip: nothing to test without specs)

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602

# ============================================================================ config
ICON = {"src": "https://example.com/i.png", "mimeType": "image/png", "sizes": ["48x48"]}
STAMP = "2025-01-12T15:00:58Z"
ANN_FULL = {"audience": ["user", "assistant"], "priority": 0.5, "lastModified": STAMP}
ANN_DATE_ONLY = {"lastModified": STAMP}  # must vanish entirely before 2025-06-18
PNG = "iVBORw0KGgo="
WAV = "UklGRiQAAABXQVZF"
BLOB = "AAECAwQ="
META = {"example.com/owner": "docs-team"}


def _render_str(args):
    return "Hello, %s!" % args["who"]


def _render_list(args):
    return [
        # rendered output is final: braces are not placeholders here
        {"role": "user", "text": "Rendered {literal} for %s" % args.get("n", "")},
        {"role": "assistant", "content": {"type": "audio", "data": WAV, "mimeType": "audio/wav",
                                          "annotations": ANN_DATE_ONLY}},
        {"role": "user", "content": {"type": "resource_link", "uri": "file:///x.txt", "name": "x",
                                     "icons": [ICON], "annotations": ANN_FULL, "_meta": META}},
    ]


def _render_fails(args):
    raise ValueError("boom: /secret/path")


CONFIG = {
    "server": {"name": "conformance", "version": "1.2.3", "title": "Conformance Server",
               "instructions": "Use the prompts."},
    "page_size": 3,
    "prompts": [
        {"name": "a_review", "title": "Code review", "description": "Review some code",
         "icons": [ICON], "_meta": META,
         "arguments": [
             {"name": "topic", "title": "Topic", "description": "What to review",
              "required": True},
             {"name": "style", "title": "Style", "description": "Tone of the review",
              "default": "terse"},
         ],
         "messages": [
             {"role": "user", "text": "Review {topic} in a {style} way."},
             {"role": "user", "content": {"type": "text", "text": "Focus: {topic}",
                                          "annotations": ANN_FULL, "_meta": META}},
             {"role": "assistant", "text": "Sure, reviewing {topic}."},
         ]},
        {"name": "b_media", "description": "Image and audio",
         "messages": [
             {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png",
                                          "annotations": {"audience": ["user"], "priority": 1,
                                                          "lastModified": STAMP}}},
             {"role": "user", "content": {"type": "audio", "data": WAV, "mimeType": "audio/wav",
                                          "annotations": ANN_DATE_ONLY, "_meta": META}},
             # undated: keep their kind on every revision that knows it
             {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
             {"role": "user", "content": {"type": "audio", "data": WAV, "mimeType": "audio/wav",
                                          "annotations": {"priority": 0.25}}},
         ]},
        {"name": "c_resources", "description": "Embedded resources",
         "arguments": [{"name": "path", "description": "File stem", "required": True}],
         "messages": [
             {"role": "user", "content": {
                 "type": "resource", "annotations": ANN_FULL,
                 "resource": {"uri": "file:///notes/{path}.md", "mimeType": "text/markdown",
                              "text": "Notes for {path}", "_meta": META}}},
             {"role": "assistant", "content": {
                 "type": "resource", "annotations": ANN_DATE_ONLY, "_meta": META,
                 "resource": {"uri": "file:///data.bin", "mimeType": "application/octet-stream",
                              "blob": BLOB}}},
             {"role": "user", "content": {
                 "type": "resource", "resource": {"uri": "file:///plain.txt", "text": "plain"}}},
         ]},
        {"name": "d_link", "title": "Link", "icons": [ICON],
         "arguments": [{"name": "page", "title": "Page", "default": "index"}],
         "messages": [
             {"role": "user", "content": {
                 "type": "resource_link", "uri": "https://example.com/{page}", "name": "docs",
                 "title": "Docs", "description": "The docs page", "mimeType": "text/html",
                 "size": 2048, "icons": [ICON], "annotations": ANN_FULL, "_meta": META}},
         ]},
        {"name": "e_render_str", "description": "render() returns a str",
         "arguments": [{"name": "who", "description": "Whom to greet", "default": "world"}],
         "render": _render_str},
        {"name": "f_render_list", "_meta": META,
         "arguments": [{"name": "n"}],
         "render": _render_list},
        {"name": "g_plain", "messages": [{"role": "user", "text": "Just text."}]},
        {"name": "h_broken", "description": "render() raises", "render": _render_fails},
    ],
}
CONFIG_SNAPSHOT = json.dumps(CONFIG, sort_keys=True, default=repr)
NAMES = sorted(p["name"] for p in CONFIG["prompts"])
BROKEN = "h_broken"  # prompts/get -> -32603 internal error (validated like any error)
GOOD_NAMES = [n for n in NAMES if n != BROKEN]
GET_ARGS = {"a_review": {"topic": "parser.py"}, "c_resources": {"path": "my todo"},
            "d_link": {"page": "api/caf\u00e9 #1"}, "e_render_str": {"who": "Ada"}, "f_render_list": {"n": "7"}}

# What 2025-11-25 (every field defined) must serve: the config, verbatim, rendered.
EXPECTED_LISTING = {
    "a_review": {"name": "a_review", "title": "Code review", "description": "Review some code",
                 "icons": [ICON], "_meta": META, "arguments": [
                     {"name": "topic", "title": "Topic", "description": "What to review",
                      "required": True},
                     {"name": "style", "title": "Style", "description": "Tone of the review"}]},
    "b_media": {"name": "b_media", "description": "Image and audio"},
    "c_resources": {"name": "c_resources", "description": "Embedded resources", "arguments": [
        {"name": "path", "description": "File stem", "required": True}]},
    "d_link": {"name": "d_link", "title": "Link", "icons": [ICON],
               "arguments": [{"name": "page", "title": "Page"}]},
    "e_render_str": {"name": "e_render_str", "description": "render() returns a str",
                     "arguments": [{"name": "who", "description": "Whom to greet"}]},
    "f_render_list": {"name": "f_render_list", "_meta": META, "arguments": [{"name": "n"}]},
    "g_plain": {"name": "g_plain"},
    "h_broken": {"name": "h_broken", "description": "render() raises"},
}


def _msg(role, block):
    return {"role": role, "content": block}


EXPECTED_GET = {
    "a_review": {"description": "Review some code", "messages": [
        _msg("user", {"type": "text", "text": "Review parser.py in a terse way."}),
        _msg("user", {"type": "text", "text": "Focus: parser.py", "annotations": ANN_FULL,
                      "_meta": META}),
        _msg("assistant", {"type": "text", "text": "Sure, reviewing parser.py."})]},
    "b_media": {"description": "Image and audio", "messages": [
        _msg("user", CONFIG["prompts"][1]["messages"][0]["content"]),
        _msg("user", CONFIG["prompts"][1]["messages"][1]["content"]),
        _msg("user", CONFIG["prompts"][1]["messages"][2]["content"]),
        _msg("user", CONFIG["prompts"][1]["messages"][3]["content"])]},
    "c_resources": {"description": "Embedded resources", "messages": [
        _msg("user", {"type": "resource", "annotations": ANN_FULL, "resource": {
            "uri": "file:///notes/my%20todo.md", "mimeType": "text/markdown",
            "text": "Notes for my todo", "_meta": META}}),
        _msg("assistant", CONFIG["prompts"][2]["messages"][1]["content"]),
        # (no mimeType in the config: the generic one for text is put in)
        _msg("user", {"type": "resource", "resource": {"uri": "file:///plain.txt", "text": "plain",
                                                       "mimeType": "text/plain"}})]},
    "d_link": {"messages": [_msg("user", dict(CONFIG["prompts"][3]["messages"][0]["content"],
                                              uri="https://example.com/api/caf%C3%A9%20#1"))]},
    "e_render_str": {"description": "render() returns a str", "messages": [
        _msg("user", {"type": "text", "text": "Hello, Ada!"})]},
    "f_render_list": {"messages": [
        _msg("user", {"type": "text", "text": "Rendered {literal} for 7"}),
        _msg("assistant", _render_list({})[1]["content"]),
        _msg("user", _render_list({})[2]["content"])]},
    "g_plain": {"messages": [_msg("user", {"type": "text", "text": "Just text."})]},
}


# ======================================================================= validation
def _defs(root):
    return root.get("$defs") or root.get("definitions") or {}


def _error_response_def(rev):
    return "JSONRPCErrorResponse" if "JSONRPCErrorResponse" in _defs(sc.load_schema(rev)) \
        else "JSONRPCError"


def null_id_error_errors(rev, msg):
    """Schema errors for an error response whose ``id`` is null.

    Decision (documented here on purpose): JSON-RPC 2.0 section 5 requires
    ``"id": null`` when the request's id could not be detected (-32700 Parse error,
    -32600 Invalid Request, e.g. unparseable input or ``"id": true``), but every MCP
    schema types ``RequestId`` as string|integer and never allows null. So for these
    messages we check everything EXCEPT the id:

    * where the error-response definition does not require ``id`` (2025-11-25's
      JSONRPCErrorResponse) the message minus its ``id`` key must pass
      ``check_server_message`` unchanged;
    * where it does (2024-11-05 .. 2025-06-18 JSONRPCError), the message minus its id
      is validated against a copy of that definition with ``id`` dropped from
      ``required``: ``jsonrpc`` const "2.0" and the ``error`` object's own schema
      (code integer, message string, data anything).

    In both cases a null id is accepted only with code -32700 or -32600, the two
    cases in which JSON-RPC allows it, and a ``result`` next to ``error`` is refused.
    """
    errs = []
    error = msg.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    if code not in (PARSE_ERROR, INVALID_REQUEST):
        errs.append("$.id: null is allowed only for -32700/-32600 errors, got code %s"
                    % json.dumps(code))
    if "result" in msg:
        errs.append("$: has both 'result' and 'error'")
    without_id = {k: v for k, v in msg.items() if k != "id"}
    root = sc.load_schema(rev)
    definition = _defs(root)[_error_response_def(rev)]
    if "id" not in definition.get("required", ()):
        return errs + sc.check_server_message(rev, without_id)
    relaxed = dict(definition, required=[k for k in definition["required"] if k != "id"])
    return errs + sc.validate_against(without_id, relaxed, root)


def _is_null_id_error(msg):
    return isinstance(msg, dict) and "error" in msg and "id" in msg and msg["id"] is None


def _id_key(rid):
    """Dict key for a request id: 1, "1" and True must stay distinct."""
    return json.dumps(rid)


def _valid_id(rid):
    return type(rid) in (str, int)


def server_message_errors(rev, msg, methods):
    """Errors for one message (or batch array) the server wrote; ``methods`` maps
    ``_id_key(id)`` to the method of the request with that id."""
    if isinstance(msg, list):
        if any(_is_null_id_error(item) for item in msg):
            # Validate item by item (null ids need the helper), plus the batch rules.
            errs = [] if "JSONRPCBatchResponse" in sc.definition_names(rev) \
                else ["$: JSON-RPC batches are not allowed in %s" % rev]
            for i, item in enumerate(msg):
                errs += ["$[%d]%s" % (i, e[1:]) for e in server_message_errors(rev, item, methods)]
            return errs
        errs = []
        for item in msg:
            errs += _unknown_id_errors(item, methods)
        return errs + sc.check_server_message(
            rev, msg, [_method_of(item, methods) for item in msg])
    if _is_null_id_error(msg):
        return null_id_error_errors(rev, msg)
    return _unknown_id_errors(msg, methods) + sc.check_server_message(
        rev, msg, _method_of(msg, methods))


def _method_of(msg, methods):
    if isinstance(msg, dict) and "method" not in msg and _valid_id(msg.get("id")):
        return methods.get(_id_key(msg["id"]))
    return None


def _unknown_id_errors(msg, methods):
    if isinstance(msg, dict) and "method" not in msg and "id" in msg and msg["id"] is not None \
            and _id_key(msg["id"]) not in methods:
        return ["$.id: %s answers no request that was sent" % json.dumps(msg["id"])]
    return []


# --- closed schemas: additionalProperties false wherever the schema is silent ----------
@lru_cache(maxsize=None)
def _closed_root(rev):
    root = copy.deepcopy(sc.load_schema(rev))

    def close(node):
        if isinstance(node, list):
            for item in node:
                close(item)
        elif isinstance(node, dict):
            if isinstance(node.get("properties"), dict) and not any(
                    k in node for k in ("additionalProperties", "patternProperties", "allOf")):
                node["additionalProperties"] = False
            for key, value in node.items():
                if key in ("properties", "$defs", "definitions", "patternProperties"):
                    for sub in value.values():
                        close(sub)
                elif key not in ("const", "enum", "default", "examples"):
                    close(value)

    close(root)
    return root


def undeclared_property_errors(rev, msg, methods):
    """Fields the revision does not define, anywhere in a result (or error) the server
    wrote: its schema with every silent object closed. Null-id errors: as above."""
    if isinstance(msg, list):
        errs = []
        for i, item in enumerate(msg):
            errs += ["$[%d]%s" % (i, e[1:]) for e in undeclared_property_errors(rev, item, methods)]
        return errs
    root = _closed_root(rev)
    defs = _defs(root)
    if "method" in msg:  # a notification: its own definition (e.g. PromptListChangedNotification)
        kind = "Request" if "id" in msg else "Notification"
        names = [n for n, d in sorted(defs.items()) if n.endswith(kind)
                 and not n.startswith(("Client", "Server", "JSONRPC"))
                 and (d.get("properties", {}).get("method") or {}).get("const") == msg["method"]]
        definition = defs[names[0] if names else "JSONRPC" + kind]
        if "jsonrpc" not in definition.get("properties", {}):  # pre-2025-11-25 defs lack
            msg = {k: v for k, v in msg.items() if k != "jsonrpc"}  # the envelope fields
        return sc.validate_against(msg, definition, root)
    if "error" in msg:
        definition = defs[_error_response_def(rev)]
        if msg.get("id", 0) is None:
            msg = {k: v for k, v in msg.items() if k != "id"}
            definition = dict(definition, required=[k for k in definition["required"] if k != "id"])
        return sc.validate_against(msg, definition, root)
    envelope = "JSONRPCResultResponse" if "JSONRPCResultResponse" in defs else "JSONRPCResponse"
    errs = sc.validate_against(msg, defs[envelope], root)
    method = _method_of(msg, methods)
    name = sc.result_definition(rev, method) if method else None
    if name is not None:
        errs += sc.validate_against(msg["result"], defs[name], root, "$.result")
    return errs


# ========================================================================== client
class Client:
    """Drives one Session and checks every message it writes against ``rev``'s schema.

    ``violations``: schema errors (with the offending message); ``extra_fields``:
    fields the revision does not define (closed schema); ``problems``: wrong
    behaviour (codes, pagination ...), kept apart so one does not hide the other.
    """

    def __init__(self, rev, server=None):
        self.rev = rev
        self.session = Session(server if server is not None else Server(CONFIG))
        self.methods = {}  # _id_key(id) -> method, for every request sent
        self.violations = []
        self.extra_fields = []
        self.problems = []
        self.written = []  # every message the server wrote, in order
        self.sent = []  # every line sent, in order (without its newline)
        self._ids = itertools.count(1)

    # --- wire -------------------------------------------------------------------------
    def send(self, line):
        """Send one raw line (bytes or a JSON-able value); return the parsed replies."""
        if not isinstance(line, bytes):
            line = json.dumps(line).encode("utf-8")
        self._track(line)
        self.sent.append(line)
        out = self.session.receive_data(line + b"\n")
        assert isinstance(out, bytes), out
        assert out == b"" or out.endswith(b"\n"), out
        replies = []
        for raw in out.split(b"\n")[:-1]:
            msg = json.loads(raw.decode("utf-8"))
            replies.append(msg)
            self.written.append(msg)
            where = "%s\n  in reply to: %s\n  server wrote: %s" % (
                self.rev, line.decode("utf-8", "replace")[:300], raw.decode("utf-8")[:600])
            for err in server_message_errors(self.rev, msg, self.methods):
                self.violations.append("%s\n  schema error: %s" % (where, err))
            for err in undeclared_property_errors(self.rev, msg, self.methods):
                self.extra_fields.append("%s\n  undeclared: %s" % (where, err))
        return replies

    def _track(self, line):
        try:
            value = json.loads(line.decode("utf-8"))
        except ValueError:
            return
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict) and _valid_id(item.get("id")) \
                    and isinstance(item.get("method"), str):
                self.methods[_id_key(item["id"])] = item["method"]

    def request(self, method, params=None, rid=None):
        """Send a request; return its one reply (a problem is recorded otherwise)."""
        rid = next(self._ids) if rid is None else rid
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        replies = self.send(msg)
        if len(replies) != 1 or replies[0].get("id") != rid:
            self.problems.append("%s %r: expected one reply with id %r, got %r"
                                 % (method, params, rid, replies))
            return {}
        return replies[0]

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        replies = self.send(msg)
        if replies:
            self.problems.append("notification %s got replies %r" % (method, replies))

    # --- expectations -----------------------------------------------------------------
    def result(self, method, params=None, rid=None):
        reply = self.request(method, params, rid)
        if "result" not in reply:
            self.problems.append("%s %r: expected a result, got %r" % (method, params, reply))
            return {}
        return reply["result"]

    def error(self, code, method, params=None, rid=None):
        reply = self.request(method, params, rid)
        got = (reply.get("error") or {}).get("code")
        if got != code:
            self.problems.append("%s %r: expected error %d, got %r" % (method, params, code, reply))
        return reply

    def initialize(self, version):
        return self.result("initialize", {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "conformance-client", "version": "0.0.1"}})


def _fmt(items):
    return "\n%d found:\n\n" % len(items) + "\n\n".join(items)


@lru_cache(maxsize=None)
def scripted_session(rev):
    """Run the whole script for ``rev`` once; return the Client, with what it saw and
    ``init`` (InitializeResult), ``pages`` (ListPromptsResults), ``gets`` ({name: GetPromptResult})."""
    c = Client(rev)
    # before initialize: ping works, prompts/list does not
    if c.result("ping", rid="ping-0") != {}:
        c.problems.append("ping before initialize: result is not {}")
    reply = c.request("prompts/list")
    if "error" not in reply:
        c.problems.append("prompts/list before initialize: expected an error, got %r" % reply)

    c.init = init = c.initialize(rev)
    if init.get("protocolVersion") != rev:
        c.problems.append("initialize %s answered %r" % (rev, init.get("protocolVersion")))
    c.notify("notifications/initialized")
    c.result("ping")

    # walk every page
    pages, cursor = [], None
    while len(pages) <= len(NAMES):
        page = c.result("prompts/list", {"cursor": cursor} if cursor is not None else {})
        pages.append(page)
        cursor = page.get("nextCursor")
        if cursor is None:
            break
    listed = [p.get("name") for page in pages for p in page.get("prompts", ())]
    if listed != NAMES or [len(p.get("prompts", ())) for p in pages] != [3, 3, 2]:
        c.problems.append("pagination: pages %r" % (pages,))

    gets = {}
    for name in GOOD_NAMES:
        params = {"name": name}
        if name in GET_ARGS:
            params["arguments"] = GET_ARGS[name]
        gets[name] = c.result("prompts/get", params, rid="get-" + name)
    reply = c.error(-32603, "prompts/get", {"name": BROKEN})
    if "secret" in json.dumps(reply):
        c.problems.append("internal error leaks the exception: %r" % reply)
    # handshake-era _meta (progressToken) changes nothing
    for method, params in (("prompts/list", {"_meta": {"progressToken": "p1"}}),
                           ("prompts/get", {"name": "g_plain", "_meta": {"progressToken": 7}})):
        if c.result(method, params, rid="meta-" + method) != c.result(method, dict(
                (k, v) for k, v in params.items() if k != "_meta")):
            c.problems.append("%s with params._meta answered differently" % method)
    # ids: any string or integer, echoed exactly
    for rid in (0, -1, "", "0", 2 ** 53 + 1, "\u00e9\U0001f600"):
        c.result("ping", rid=rid)

    # error cases
    c.error(INVALID_PARAMS, "prompts/get", {"name": "no_such_prompt"})
    c.error(INVALID_PARAMS, "prompts/get", {"name": "a_review", "arguments": {}})
    c.error(INVALID_PARAMS, "prompts/get", {"name": "a_review"})
    c.error(INVALID_PARAMS, "prompts/get",
            {"name": "a_review", "arguments": {"topic": "x", "bogus": "y"}})
    c.error(INVALID_PARAMS, "prompts/get", {"name": "a_review", "arguments": {"topic": 5}})
    c.error(INVALID_PARAMS, "prompts/get", {"name": "g_plain", "arguments": ["x"]})
    c.error(INVALID_PARAMS, "prompts/get", {})
    c.error(INVALID_PARAMS, "prompts/list", {"cursor": "not-a-cursor!"})
    c.error(INVALID_PARAMS, "prompts/list", {"cursor": 7})
    c.error(METHOD_NOT_FOUND, "tools/list")
    c.error(METHOD_NOT_FOUND, "no/such/method", {"x": 1})
    c.error(INVALID_REQUEST, "initialize", {"protocolVersion": rev, "capabilities": {},
                                            "clientInfo": {"name": "again", "version": "1"}})
    c.notify("notifications/cancelled", {"requestId": 999, "reason": "test"})
    c.notify("notifications/unknown")

    if rev == "2025-03-26":  # the one revision with JSON-RPC batches
        replies = c.send([{"jsonrpc": "2.0", "id": "batch-1", "method": "ping"},
                          {"jsonrpc": "2.0", "id": "batch-2", "method": "prompts/get",
                           "params": {"name": "g_plain"}}])
        if len(replies) != 1 or not isinstance(replies[0], list) \
                or sorted(r.get("id") for r in replies[0]) != ["batch-1", "batch-2"]:
            c.problems.append("batch of two requests: got %r" % (replies,))
    c.pages, c.gets = pages, gets
    return c


# ============================================================================ tests
@pytest.mark.parametrize("rev", REVS)
def test_every_message_of_scripted_session_matches_schema(rev):
    c = scripted_session(rev)
    assert len(c.written) >= 25  # the script really ran
    assert not c.violations, _fmt(c.violations)


@pytest.mark.parametrize("rev", REVS)
def test_scripted_session_behaves(rev):
    c = scripted_session(rev)
    assert not c.problems, _fmt(c.problems)


@pytest.mark.parametrize("rev", REVS)
def test_no_field_the_revision_does_not_define(rev):
    """Closed-schema check: stricter than the schemas, this is version shaping."""
    c = scripted_session(rev)
    assert not c.extra_fields, _fmt(c.extra_fields)


def _walk(value, path="$"):
    """Yield (path, dict) for every object nested in ``value``."""
    if isinstance(value, dict):
        yield path, value
        for k, v in value.items():
            for item in _walk(v, "%s.%s" % (path, k)):
                yield item
    elif isinstance(value, list):
        for i, v in enumerate(value):
            for item in _walk(v, "%s[%d]" % (path, i)):
                yield item


def _blocks(gets):
    return [(name, m["content"]) for name, g in sorted(gets.items())
            for m in g.get("messages", ())]


@pytest.mark.parametrize("rev", REVS)
def test_version_shaping(rev):
    c = scripted_session(rev)
    pages, gets, init = c.pages, c.gets, c.init
    listing = [p for page in pages for p in page.get("prompts", ())]
    blocks = _blocks(gets)
    kinds = sorted(set(b.get("type") for _, b in blocks))
    everything = {"list": pages, "get": gets}
    keys_at = lambda key: [path for path, obj in _walk(everything) if key in obj]  # noqa: E731

    if rev < "2025-03-26":
        assert "audio" not in kinds and "resource_link" not in kinds, kinds
        texts = [b.get("text", "") for _, b in blocks if b.get("type") == "text"]
        # converted to text that still carries the information
        assert sum(t.startswith("[audio audio/wav, base64] " + WAV) for t in texts) == 3, texts
        assert any(t.startswith("[resource link] Docs (docs) <https://example.com/api/caf%C3%A9%20#1>") and
                   "(text/html)" in t and "2048 bytes" in t and "The docs page" in t
                   for t in texts), texts
        assert any(t.startswith("[resource link] x <file:///x.txt>") for t in texts), texts
    elif rev < "2025-06-18":
        assert "audio" in kinds and "resource_link" not in kinds, kinds
    else:
        assert "audio" in kinds and "resource_link" in kinds, kinds

    if rev < "2025-06-18":
        # a dated block becomes text ending with its date (the undated ones keep their kind)
        dated = [t for t in (b.get("text", "") for _, b in blocks) if t.endswith("\n[last modified %s]" % STAMP)]
        assert len(dated) == 8, dated
        assert "image" in kinds and "resource" in kinds, kinds
        assert not [p for p in listing if "title" in p or "_meta" in p], listing
        assert not [a for p in listing for a in p.get("arguments", ()) if "title" in a], listing
        assert "title" not in init["serverInfo"], init
        assert keys_at("lastModified") == [], keys_at("lastModified")
        assert keys_at("_meta") == [], keys_at("_meta")
        # an annotations object left empty by dropping lastModified is dropped too
        assert [p for p in keys_at("annotations")
                if not _lookup(everything, p)["annotations"]] == []
    else:
        assert init["serverInfo"].get("title") == "Conformance Server", init
        by_name = {p["name"]: p for p in listing}
        assert by_name["a_review"]["title"] == "Code review"
        assert by_name["a_review"]["_meta"] == META
        assert by_name["a_review"]["arguments"][0]["title"] == "Topic"
        assert keys_at("lastModified"), "lastModified missing on %s" % rev
    if rev < "2025-11-25":
        assert keys_at("icons") == [], keys_at("icons")
    else:
        assert len(keys_at("icons")) == 4, keys_at("icons")  # 2 prompts + 2 resource links
    assert keys_at("default") == [], keys_at("default")  # config-only, never on the wire


def _lookup(value, path):
    """The object at a ``_walk`` path (only the parts _walk produces)."""
    for key, index in re.findall(r"\.([^.\[]+)|\[(\d+)\]", path[1:]):
        value = value[key] if key else value[int(index)]
    return value


def test_latest_revision_serves_the_config_verbatim():
    c = scripted_session(LATEST)
    pages, gets = c.pages, c.gets
    listing = {p["name"]: p for page in pages for p in page.get("prompts", ())}
    assert sorted(listing) == NAMES
    for name in NAMES:
        assert listing[name] == EXPECTED_LISTING[name], name
    for name in GOOD_NAMES:
        assert gets[name] == EXPECTED_GET[name], name


def test_2025_06_18_drops_only_icons():
    c = scripted_session("2025-06-18")
    pages, gets = c.pages, c.gets
    listing = {p["name"]: p for page in pages for p in page.get("prompts", ())}

    def no_icons(value):
        if isinstance(value, dict):
            return {k: no_icons(v) for k, v in value.items() if k != "icons"}
        if isinstance(value, list):
            return [no_icons(v) for v in value]
        return value
    for name in NAMES:
        assert listing[name] == no_icons(EXPECTED_LISTING[name]), name
    for name in GOOD_NAMES:
        assert gets[name] == no_icons(EXPECTED_GET[name]), name


@pytest.mark.parametrize("rev", REVS)
def test_initialize_echoes_requested_version(rev):
    c = Client(rev)
    result = c.initialize(rev)
    assert result.get("protocolVersion") == rev
    assert result.get("capabilities", {}).get("prompts") is not None
    assert result.get("instructions") == "Use the prompts."
    assert not c.violations, _fmt(c.violations)
    assert not c.problems, _fmt(c.problems)


@pytest.mark.parametrize("requested", ["2099-01-01", "2026-07-28", "2024-10-07", "draft"])
def test_unknown_version_negotiates_latest_handshake_revision(requested):
    c = Client(LATEST)  # what the server answers is validated against 2025-11-25
    result = c.initialize(requested)
    assert result.get("protocolVersion") == LATEST
    # and the session then speaks 2025-11-25
    listing = c.result("prompts/list")
    assert any("icons" in p for p in listing.get("prompts", ())), listing
    assert not c.violations, _fmt(c.violations)
    assert not c.problems, _fmt(c.problems)


GARBAGE = [
    (b"this is not json", PARSE_ERROR),
    (b"[]", INVALID_REQUEST),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', INVALID_REQUEST),
    (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', INVALID_REQUEST),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', INVALID_REQUEST),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', INVALID_REQUEST),
    (b'"just a string"', INVALID_REQUEST),
    (b"42", INVALID_REQUEST),
    (b'{"jsonrpc":"2.0"}', INVALID_REQUEST),
    (b"\xff\xfe{}", PARSE_ERROR),
    (b'{"jsonrpc":"2.0","id":1,"method":"ping"', PARSE_ERROR),
    (b'{"jsonrpc":"2.0","id":1,"method":"ping","x":NaN}', PARSE_ERROR),
]


def _codes(replies):
    """[(id, error code or "result")] of a reply list (a batch array is flattened)."""
    flat = [m for r in replies for m in (r if isinstance(r, list) else [r])]
    return [(m.get("id", "missing") if isinstance(m, dict) else m,
             (m.get("error") or {}).get("code", "result") if isinstance(m, dict) else None)
            for m in flat]


@pytest.mark.parametrize("rev", REVS)
def test_garbage_lines_get_schema_shaped_null_id_errors(rev):
    c = Client(rev)
    for phase in ("before initialize", "after initialize"):
        if phase == "after initialize":
            c.initialize(rev)
            c.notify("notifications/initialized")
        for line, code in GARBAGE:
            replies = c.send(line)
            if _codes(replies) != [(None, code)] or not isinstance(replies[0], dict):
                c.problems.append("%s, %r: expected one error %d with id null, got %r"
                                  % (phase, line, code, replies))
        # an invalid request whose id is usable keeps its id
        replies = c.send(b'{"jsonrpc":"1.0","id":"v1","method":"ping"}')
        if _codes(replies) != [("v1", INVALID_REQUEST)]:
            c.problems.append("%s, jsonrpc 1.0: got %r" % (phase, replies))
        # and the session still works
        if c.result("ping") != {}:
            c.problems.append("%s: ping after garbage failed" % phase)
    # schema first: a malformed error object must not hide behind a code mismatch
    assert not c.violations, _fmt(c.violations)
    assert not c.extra_fields, _fmt(c.extra_fields)
    assert not c.problems, _fmt(c.problems)


def test_batches_on_2025_03_26():
    rev = "2025-03-26"
    c = Client(rev)
    c.initialize(rev)
    c.notify("notifications/initialized")
    # two requests: the array response is validated as a whole (JSONRPCBatchResponse)
    two = c.send([{"jsonrpc": "2.0", "id": 10, "method": "ping"},
                  {"jsonrpc": "2.0", "id": 11, "method": "prompts/list"}])
    # mixed: result, error, a cancellation of the first (so no reply for it),
    # an invalid item (null id), initialize
    mixed = c.send([{"jsonrpc": "2.0", "id": 12, "method": "prompts/get",
                     "params": {"name": "b_media"}},
                    {"jsonrpc": "2.0", "id": 13, "method": "prompts/get",
                     "params": {"name": "nope"}},
                    {"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 12}},
                    5,
                    {"jsonrpc": "2.0", "id": 14, "method": "initialize",
                     "params": {"protocolVersion": rev, "capabilities": {},
                                "clientInfo": {"name": "c", "version": "1"}}}])
    # a batch of notifications only gets no reply at all
    none = c.send([{"jsonrpc": "2.0", "method": "notifications/initialized"}])
    assert not c.violations, _fmt(c.violations)
    assert not c.extra_fields, _fmt(c.extra_fields)
    assert len(two) == 1 and isinstance(two[0], list), two
    assert sorted(_codes(two)) == [(10, "result"), (11, "result")], two
    assert len(mixed) == 1 and isinstance(mixed[0], list), mixed
    assert sorted(_codes(mixed), key=json.dumps) == sorted(
        [(13, INVALID_PARAMS), (None, INVALID_REQUEST), (14, INVALID_REQUEST)],
        key=json.dumps), mixed
    assert none == []


@pytest.mark.parametrize("rev", [r for r in REVS if r != "2025-03-26"])
def test_batches_refused_outside_2025_03_26(rev):
    c = Client(rev)
    c.initialize(rev)
    replies = c.send([{"jsonrpc": "2.0", "id": 10, "method": "ping"}])
    assert not c.violations, _fmt(c.violations)
    assert len(replies) == 1 and isinstance(replies[0], dict), replies
    assert _codes(replies) == [(None, INVALID_REQUEST)], replies


def test_sessions_of_every_revision_share_one_server_safely():
    """Per-revision caches (Prompt._listing) must not leak one revision's shape into
    another: interleaved sessions on one Server equal fresh-server sessions."""
    for order in (REVS, tuple(reversed(REVS))):
        server = Server(CONFIG)
        clients = [Client(rev, server) for rev in order]
        for cl in clients:
            cl.initialize(cl.rev)
        for round_ in range(2):
            for cl in clients:
                fresh = scripted_session(cl.rev)
                pages, cursor = [], None
                while True:
                    page = cl.result("prompts/list", {"cursor": cursor} if cursor else None)
                    pages.append(page)
                    cursor = page.get("nextCursor")
                    if not cursor:
                        break
                gets = {}
                for name in GOOD_NAMES:
                    params = {"name": name}
                    if name in GET_ARGS:
                        params["arguments"] = GET_ARGS[name]
                    gets[name] = cl.result("prompts/get", params)
                assert pages == fresh.pages, (order, cl.rev, round_)
                assert gets == fresh.gets, (order, cl.rev, round_)
        for cl in clients:
            assert not cl.violations, _fmt(cl.violations)
            assert not cl.problems, _fmt(cl.problems)


@pytest.mark.parametrize("rev", REVS)
def test_bad_initialize_params_and_early_requests(rev):
    c = Client(rev)
    c.error(INVALID_PARAMS, "initialize", {"capabilities": {}})  # no protocolVersion
    c.error(INVALID_PARAMS, "initialize", {"protocolVersion": 20250326})
    c.error(INVALID_PARAMS, "initialize", ["not", "an", "object"])
    c.error(INVALID_PARAMS, "prompts/get", {"name": "g_plain"})  # not initialized yet
    c.error(METHOD_NOT_FOUND, "resources/list")
    c.notify("notifications/initialized")  # too early: ignored, never answered
    assert c.initialize(rev).get("protocolVersion") == rev  # the session is still NEW
    assert not c.violations, _fmt(c.violations)
    assert not c.problems, _fmt(c.problems)


@pytest.mark.parametrize("rev", REVS)
def test_list_changed_notification_matches_schema(rev):
    c = Client(rev, Server(CONFIG, list_changed=True))
    assert c.session.prompts_changed() == b""  # nothing promised before initialize
    init = c.initialize(rev)
    assert init["capabilities"]["prompts"] == {"listChanged": True}
    out = c.session.prompts_changed()
    messages = [json.loads(line) for line in out.decode("ascii").splitlines()]
    assert [m.get("method") for m in messages] == ["notifications/prompts/list_changed"], out
    for msg in messages:
        assert sc.check_server_message(rev, msg) == [], msg
        assert undeclared_property_errors(rev, msg, {}) == [], msg
    assert not c.violations, _fmt(c.violations)


@pytest.mark.parametrize("rev", REVS)
def test_overlong_line_gets_a_null_id_error(rev):
    c = Client(rev, Server(CONFIG, limits={"max_line_bytes": 256}))
    c.initialize(rev)
    replies = c.send(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"'
                     + b"x" * 400 + b'"}}')
    assert not c.violations, _fmt(c.violations)
    assert _codes(replies) == [(None, INVALID_REQUEST)], replies
    assert c.result("ping") == {}


@pytest.mark.parametrize("rev", REVS)
def test_last_page_exactly_full_has_no_cursor(rev):
    c = Client(rev, Server(CONFIG, page_size=4))
    c.initialize(rev)
    first = c.result("prompts/list")
    second = c.result("prompts/list", {"cursor": first.get("nextCursor")})
    assert [len(first["prompts"]), len(second["prompts"])] == [4, 4]
    assert "nextCursor" in first and "nextCursor" not in second, second
    assert not c.violations, _fmt(c.violations)
    assert not c.problems, _fmt(c.problems)


def test_serving_never_mutates_the_config():
    """EXPECTED_* share objects with CONFIG: a server that edited them in place (say,
    deleting lastModified for an old client) would also edit the expectations."""
    for rev in REVS + tuple(reversed(REVS)):
        c = Client(rev)
        c.initialize(rev)
        c.result("prompts/list")
        for name in GOOD_NAMES:
            c.result("prompts/get", {"name": name, "arguments": GET_ARGS.get(name, {})})
        assert not c.problems, _fmt(c.problems)
    assert json.dumps(CONFIG, sort_keys=True, default=repr) == CONFIG_SNAPSHOT
    assert ANN_FULL["lastModified"] == STAMP and ANN_DATE_ONLY == {"lastModified": STAMP}


def _comparable(messages):
    """Messages with the per-process internal-error tag blanked out."""
    text = json.dumps(messages, sort_keys=True)
    return re.sub(r"[0-9a-f]{4}-[0-9]+", "TAG", text)


@pytest.mark.parametrize("rev", REVS)
def test_script_in_one_chunk_or_in_pieces_writes_the_same(rev):
    """Pipelined input (all lines in one chunk, or split at odd places) is answered
    exactly as line by line, and every message is still validated."""
    lines = scripted_session(rev).sent
    expected = _comparable(scripted_session(rev).written)
    stream = b"".join(line + b"\n" for line in lines)
    for piece in (len(stream), 7, 1):
        c = Client(rev)
        for line in lines:
            c._track(line)
        out = b"".join(c.session.receive_data(stream[i:i + piece])
                       for i in range(0, len(stream), piece))
        out += c.session.receive_data(b"")
        written = [json.loads(raw) for raw in out.split(b"\n")[:-1]]
        for msg in written:
            for err in server_message_errors(rev, msg, c.methods):
                c.violations.append("%s piece=%d: %s\n  %s" % (rev, piece, err, json.dumps(msg)))
        assert not c.violations, _fmt(c.violations)
        assert _comparable(written) == expected, piece


# ---------------------------------------------------------------- the helpers themselves
@pytest.mark.parametrize("rev", REVS)
def test_null_id_helper_checks_everything_but_the_id(rev):
    good = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    assert null_id_error_errors(rev, good) == []
    assert server_message_errors(rev, good, {}) == []
    # the null id itself is what the plain schema check refuses
    assert sc.check_server_message(rev, good)
    bad = [
        dict(good, jsonrpc="1.0"),
        dict(good, error={"code": "-32700", "message": "Parse error"}),
        dict(good, error={"code": -32700}),
        dict(good, error={"code": -32602, "message": "valid id could have been used"}),
        dict(good, result={}),
        {"jsonrpc": "2.0", "id": None},
    ]
    for msg in bad:
        assert server_message_errors(rev, msg, {}), msg
    # a response whose id answers nothing we sent is flagged
    assert server_message_errors(rev, {"jsonrpc": "2.0", "id": 99, "result": {}}, {})


@pytest.mark.parametrize("rev", REVS)
def test_closed_schema_sees_fields_a_revision_lacks(rev):
    methods = {"1": "prompts/list"}
    ok = {"jsonrpc": "2.0", "id": 1, "result": {"prompts": [{"name": "p"}]}}
    assert undeclared_property_errors(rev, ok, methods) == []
    extra = {"jsonrpc": "2.0", "id": 1, "result": {"prompts": [{"name": "p", "icons": []}]}}
    assert bool(undeclared_property_errors(rev, extra, methods)) == (rev < "2025-11-25")
    typo = {"jsonrpc": "2.0", "id": 1, "result": {"prompts": [{"name": "p", "titel": "x"}]}}
    assert undeclared_property_errors(rev, typo, methods)
