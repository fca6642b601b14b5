"""The methods we serve: one registry row each (handler, eras, params check).

A handler is ``handler(session, call, args)``: ``args`` is what the row's params check
made of the request's params (the check raises -32602 for params it cannot use), and
it returns the result object, a ``Deferred`` (a callable to run first), or None when
the reply comes later (a listen stream). It raises ``ProtocolError`` for an error
answer; the session turns that, and anything else, into the JSON-RPC error
(``Session._answer``). Methods are resolved (-32601) before their params are checked
(-32602). What a handler shapes for the client's revision, it asks of
``call.revision`` (``revisions``).
"""

from ..codec import escaped_size
from ..errors import InvalidParams, clip
from ..model import prompt as prompts
from .state import META_SERVER_INFO, META_SUBSCRIPTION, Deferred
from .jsonrpc import notification
from .revisions import STATELESS_VERSIONS, handshake


class Method:
    """One registry row: the handler, the eras that have the method, whether it is a
    probe (read as stateless on every connection, even without ``_meta``: so its missing
    keys are named), and its params check."""

    __slots__ = ("name", "handler", "handshake", "stateless", "probe", "check")

    def __init__(self, name, handler, handshake=True, stateless=True, probe=False, check=None):
        self.name, self.handler, self.handshake, self.stateless = name, handler, handshake, stateless
        self.probe, self.check = probe, check or (lambda params: None)


def param(params, key, what=None, kind=str):
    """``params[key]`` if it is a ``kind``: a string, or with ``dict`` an object; else -32602."""
    value = params.get(key)
    if type(value) is not kind:
        raise InvalidParams("Invalid params: %s must be %s" % (what or key, "a string" if kind is str else "an object"))
    return value


# --- what several results share ----------------------------------------------------------

def server_info(session, rev):
    config = session.server.config
    info = {"name": config.name, "version": config.version}
    if config.title is not None and rev.titles:
        info["title"] = config.title
    return info


def _capabilities(session, rev):
    # 2024-11-05..2025-11-25 prompts "Capabilities": servers that support prompts MUST
    # declare them; 2025-11-25 and 2026-07-28 logging "Capabilities": servers that emit
    # log messages MUST declare logging.
    caps = {"prompts": {"listChanged": session.conn.list_changed}, "logging": {}}
    if rev.completions_capability:
        caps["completions"] = {}  # 2024-11-05 has no such capability (but is answered)
    if session.server.config.tools:  # (prompts as tools: protocol/tools; the two never change)
        caps["tools"] = {"listChanged": False}
    return caps


def _cache_hints(session, result):
    # 2026-07-28 caching: servers MUST include ttlMs (>= 0) and cacheScope on cacheable
    # complete results; the same scope on every page.
    config = session.server.config
    result.update(ttlMs=config.ttl_ms, cacheScope=config.cache_scope)
    return result


def _instructed(session, result):
    """``result`` (initialize's, server/discover's) with the config's instructions, if any."""
    instructions = session.server.config.instructions
    if instructions is not None:
        result["instructions"] = instructions
    return result


def stateless_result(session, call, result):
    """2026-07-28 basic-overview "Result Responses": the result MUST have resultType;
    "General fields", ``_meta`` "Per-response protocol fields": servers SHOULD put serverInfo
    in every result's _meta."""
    result.setdefault("resultType", "complete")  # (protocol/ask's: "input_required")
    result.setdefault("_meta", {})[META_SERVER_INFO] = server_info(session, call.revision)
    return result


# --- handshake era ------------------------------------------------------------------------

def _initialize(session, call, requested):
    rev = call.revision = handshake(requested)  # the negotiated revision (Connection.succeeded)
    return _instructed(session, {"protocolVersion": rev.version, "capabilities": _capabilities(session, rev),
                                 "serverInfo": server_info(session, rev)})


# --- both eras -----------------------------------------------------------------------------

def list_result(session, call, key, items, cursor, listing):
    """The ``prompts/list`` (or ``tools/list``) result: the page of ``items`` (a
    ``PromptSet``) after ``cursor``, each as ``listing(item, revision)`` shows it."""
    config = session.server.config
    page, next_cursor = items.page(cursor, config.page_size, config.cache_scope if call.stateless else "",
                                   call.revision, listing)
    result = {key: page}
    if next_cursor is not None:
        result["nextCursor"] = next_cursor
    return _cache_hints(session, result) if call.stateless else result


def _prompts_list(session, call, cursor):
    return list_result(session, call, "prompts", session.server.config.prompts, cursor, prompts.listing)


def _prompt(session, name):
    p = session.server.config.prompts.by_name.get(name)
    if p is None:
        # 2025-11-25 and 2026-07-28 prompts "Error Handling": invalid prompt name -32602
        raise InvalidParams("Unknown prompt: %s" % clip(name))
    return p


def _retry_fields(params):
    """2026-07-28 mrtr "Error Handling": servers SHOULD validate that ``inputResponses``
    is a valid ``InputResponses`` object (each response an object), and the schema types
    ``requestState`` as a string: -32602 otherwise. Only a prompt that asks for missing
    arguments (``protocol/ask``) reads what they hold; tinymcp never sends a requestState."""
    responses = params.get("inputResponses", {})
    if type(responses) is not dict:
        raise InvalidParams("Invalid params: inputResponses must be an object")
    for key, response in responses.items():
        if type(response) is not dict:
            raise InvalidParams("Invalid params: inputResponses[%s] must be an object" % clip(key))
    if "requestState" in params and type(params["requestState"]) is not str:
        raise InvalidParams("Invalid params: requestState must be a string")


def prompts_get(session, call, args):
    name, arguments, params = args
    if call.stateless:
        _retry_fields(params)
    p, limits = _prompt(session, name), session.server.config.limits
    if call.stateless and p.get("ask_for_missing", session.server.config.ask):  # (opt-in: protocol/ask)
        from .ask import ask_or_merge
        arguments, asking = ask_or_merge(p, arguments, params, limits)
        if asking is not None:
            return asking
    values = prompts.values(p, arguments, limits)
    if "render" in p:
        return Deferred(call, lambda: prompts.call_render(p, values),
                        lambda messages: _get_result(call, p, messages, limits))
    return _get_result(call, p, prompts.render(p, values, limits), limits)


def _get_result(call, p, messages, limits):
    """The ``prompts/get`` result of ``messages`` as ``call.revision`` defines it, within
    ``max_render_bytes`` on the wire."""
    size = prompts.rendered_size(messages)
    if size * 12 > limits.max_render_bytes:  # (a character is at most 12 bytes escaped)
        size = prompts.rendered_size(messages, escaped_size)
        if size > limits.max_render_bytes:
            raise prompts.too_big(size, limits)
    rev = call.revision
    if not rev.content_as_is and any(m["content"]["type"] != "text" or len(m["content"]) != 2 for m in messages):
        messages = [{"role": m["role"], "content": prompts.content().shape(m["content"], rev)} for m in messages]
    result = {"messages": messages}
    if "description" in p:
        result["description"] = p["description"]
    if call.log_threshold is not None:
        call.log("debug", "prompts/get %s: %d message%s" % (
            clip(p["name"]), len(messages), "" if len(messages) == 1 else "s"))
    return result


def _complete_params(params):
    ref = param(params, "ref", kind=dict)
    kind = ref.get("type")
    if kind == "ref/resource":
        raise InvalidParams("Invalid params: tinymcp serves no resources, so ref/resource has no completions")
    if kind != "ref/prompt":
        raise InvalidParams("Invalid params: ref.type must be 'ref/prompt'")
    name = param(ref, "name", "ref.name")
    argument = params.get("argument")
    if type(argument) is not dict or type(argument.get("name")) is not str \
            or type(argument.get("value")) is not str:
        raise InvalidParams("Invalid params: argument must be an object with string name and value")
    return name, argument["name"], argument["value"], params.get("context")


def _context_arguments(ctx):
    """``context.arguments`` of a completion request (an object of strings), or None."""
    args = ctx.get("arguments") if type(ctx) is dict else None
    if ctx is not None and (type(ctx) is not dict or (args is not None and (
            type(args) is not dict or not all(type(v) is str for v in args.values())))):
        raise InvalidParams("Invalid params: context.arguments must be an object of strings")
    return args


def _complete(session, call, args):
    name, argument, value, ctx = args
    p = _prompt(session, name)
    context = _context_arguments(ctx) if call.revision.completion_context else None
    work, values = prompts.completion(p, argument, value, context)
    return prompts.completion_result(values) if work is None else Deferred(call, work, prompts.completion_result)


# --- stateless era (2026-07-28) ------------------------------------------------------------

def _discover(session, call, args):
    result = {"supportedVersions": list(STATELESS_VERSIONS),
              "capabilities": _capabilities(session, call.revision)}
    return _cache_hints(session, _instructed(session, result))


def _listen(session, call, wanted):
    honoured = session.conn.open_stream(call.rid, wanted)
    # 2026-07-28 subscriptions "Acknowledgment": MUST be the first message for this stream.
    call.note(notification("notifications/subscriptions/acknowledged", {
        "_meta": {META_SUBSCRIPTION: call.rid}, "notifications": honoured}))
    return None


#: method name -> its row. 2026-07-28 removed initialize, notifications/initialized, ping
#: and logging/setLevel, and added server/discover and subscriptions/listen.
REGISTRY = {m.name: m for m in (
    Method("initialize", _initialize, stateless=False, check=lambda params: param(params, "protocolVersion")),
    # 2025-11-25 ping "Behavior Requirements": MUST respond promptly with {}
    Method("ping", lambda session, call, args: {}, stateless=False),
    Method("logging/setLevel", lambda session, call, level: session.conn.set_level(level) or {}, stateless=False,
           check=lambda params: params.get("level")),
    Method("prompts/list", _prompts_list, check=lambda params: params.get("cursor")),
    Method("prompts/get", prompts_get,
           check=lambda params: (param(params, "name"), params.get("arguments"), params)),
    Method("completion/complete", _complete, check=_complete_params),
    Method("server/discover", _discover, handshake=False, probe=True),
    Method("subscriptions/listen", _listen, handshake=False,
           check=lambda params: param(params, "notifications", kind=dict)),
)}
