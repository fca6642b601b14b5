"""The methods we serve: one registry row each (handler, eras, params check).

A handler is ``handler(session, call, args)``: ``args`` is what the row's params check
made of the request's params (the check raises -32602 for params it cannot use), and
it returns the result object, or None when the reply comes later (a listen stream). It
raises ``ProtocolError`` for an error answer; the session turns that, and anything
else, into the JSON-RPC error (``Session._serve``). Methods are resolved (-32601)
before their params are checked (-32602). What a handler shapes for the client's
revision, it asks of ``call.revision`` (``revisions``).
"""

from .call import Deferred
from .errors import InvalidParams, clip
from .jsonrpc import Encoded, dumps, escaped_size, notification, quote
from .models import content_module
from .prompts import (argument_values, capped, check_arguments, completion, filled, render,
                      render_too_big, rendered_size, templates)
from .revisions import STATELESS_VERSIONS, handshake
from .state import META_SERVER_INFO, META_SUBSCRIPTION

__all__ = ["Method", "REGISTRY", "server_info", "stateless_result"]


class Method:
    """One registry row: the handler, the eras that have the method, whether it is a
    probe (read as stateless on every connection, even without ``_meta``: so its missing
    keys are named), and its params check."""

    __slots__ = ("name", "handler", "handshake", "stateless", "probe", "check")

    def __init__(self, name, handler, handshake=True, stateless=True, probe=False, check=None):
        self.name = name
        self.handler = handler
        self.handshake = handshake
        self.stateless = stateless
        self.probe = probe
        self.check = check or _no_params


def _no_params(params):
    return None


def _string(params, key, what=None):
    value = params.get(key)
    if type(value) is not str:
        raise InvalidParams("Invalid params: %s must be a string" % (what or key))
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
    return caps


def _cache_hints(session, result):
    # 2026-07-28 caching: servers MUST include ttlMs (>= 0) and cacheScope on cacheable
    # complete results; the same scope on every page.
    config = session.server.config
    result["ttlMs"] = config.ttl_ms
    result["cacheScope"] = config.cache_scope


def stateless_result(session, call, result):
    """2026-07-28 basic-overview "Result Responses": the result MUST have resultType;
    servers SHOULD put serverInfo in every result's _meta."""
    result["resultType"] = "complete"
    result.setdefault("_meta", {})[META_SERVER_INFO] = server_info(session, call.revision)
    return result


# --- handshake era ------------------------------------------------------------------------

def _initialize_params(params):
    return _string(params, "protocolVersion")


def _initialize(session, call, requested):
    rev = call.revision = handshake(requested)  # the negotiated revision (Connection.succeeded)
    config = session.server.config
    result = {"protocolVersion": rev.version, "capabilities": _capabilities(session, rev),
              "serverInfo": server_info(session, rev)}
    if config.instructions is not None:
        result["instructions"] = config.instructions
    return result


def _ping(session, call, args):
    return {}  # 2025-11-25 ping "Behavior Requirements": MUST respond promptly with {}


def _set_level(session, call, level):
    session.conn.set_level(level)
    return {}


# --- both eras -----------------------------------------------------------------------------

def _list_params(params):
    return params.get("cursor")


def _prompts_list(session, call, cursor):
    """A page, kept encoded per config, cursor and revision from its second request
    (``ServerConfig.pages``): the same request gets the same bytes until the config
    changes."""
    config = session.server.config
    key = (cursor, call.revision.version, call.stateless)
    if type(cursor) is not str and cursor is not None:
        key = None  # (an invalid cursor, refused below; never a key)
    data = config.pages.get(key) if key is not None else None
    if data is not None:
        return Encoded(data)
    listings, next_cursor = config.prompts.page(cursor, config.page_size,
                                                config.cache_scope if call.stateless else "",
                                                call.revision)
    result = {"prompts": listings}
    if next_cursor is not None:
        result["nextCursor"] = next_cursor
    if call.stateless:
        _cache_hints(session, result)
        stateless_result(session, call, result)
    data = dumps(result).encode("ascii")
    config.pages.put(key, data)
    return Encoded(data)


def _prompt(session, name):
    prompt = session.server.config.prompts.get(name)
    if prompt is None:
        # 2025-11-25 and 2026-07-28 prompts "Error Handling": invalid prompt name -32602
        raise InvalidParams("Unknown prompt: %s" % clip(name))
    return prompt


def _get_params(params):
    name = params.get("name")
    if type(name) is not str:
        raise InvalidParams("Invalid params: name must be a string")
    return name, params.get("arguments"), params


def _retry_fields(params):
    """2026-07-28 mrtr "Error Handling": servers SHOULD validate that ``inputResponses``
    is a valid ``InputResponses`` object (each response an object), and the schema types
    ``requestState`` as a string: -32602 otherwise. What they hold is ignored: no prompt
    of ours ever answers ``input_required``, so no retry carries anything we asked for."""
    if "inputResponses" in params:
        responses = params["inputResponses"]
        if type(responses) is not dict:
            raise InvalidParams("Invalid params: inputResponses must be an object")
        for key, response in responses.items():
            if type(response) is not dict:
                raise InvalidParams("Invalid params: inputResponses[%s] must be an object" % clip(key))
    if "requestState" in params and type(params["requestState"]) is not str:
        raise InvalidParams("Invalid params: requestState must be a string")


def _prompts_get(session, call, args):
    name, arguments, params = args
    if call.stateless:
        _retry_fields(params)
    prompt = _prompt(session, name)
    limits = session.server.limits
    arguments = check_arguments(prompt, arguments, limits)
    if prompt.render_fn is not None:
        return Deferred(call, lambda: render(prompt, arguments),
                        lambda messages: _get_result(call, prompt, messages, limits))
    if call.log_threshold is None:
        data = _framed(prompt, call.revision, arguments, limits)
        if data is not None:
            if call.stateless:  # (what stateless_result adds comes after the result's keys)
                data = data[:-1] + b"," + dumps(stateless_result(session, call, {}))[1:].encode("ascii")
            return Encoded(data)
    return _get_result(call, prompt, render(prompt, arguments), limits)


def _get_result(call, prompt, messages, limits):
    size = rendered_size(messages)
    if size * 12 > limits.max_render_bytes:  # (a character is at most 12 bytes escaped)
        size = rendered_size(messages, escaped_size)
        if size > limits.max_render_bytes:
            raise render_too_big(size, limits)
    result = _shaped(call.revision, prompt, messages)
    if call.log_threshold is not None:
        call.log("debug", "prompts/get %s: %d message%s" % (
            clip(prompt.name), len(messages), "" if len(messages) == 1 else "s"))
    return result


def needs_shaping(block):
    """True when ``content.shape_content`` could change the block for some revision (here,
    so that text prompts are served to every revision without importing ``content``)."""
    return (block["type"] in ("audio", "resource_link") or "_meta" in block
            or "annotations" in block or "_meta" in block.get("resource", ()))


def _shaped(rev, prompt, messages):
    """The ``prompts/get`` result of ``messages`` as revision ``rev`` defines it."""
    if not rev.content_as_is:
        messages = [m if not needs_shaping(m["content"]) else
                    {"role": m["role"], "content": content_module().shape_content(m["content"], rev)}
                    for m in messages]
    result = {"messages": messages}
    if prompt.description is not None:
        result["description"] = prompt.description
    return result


def _framed(prompt, rev, arguments, limits):
    """The encoded ``prompts/get`` result of template prompt ``prompt`` for ``arguments``
    (checked): its frame (``_frame``) with each template's text quoted into its gap; byte
    for byte what ``_get_result`` would encode (the frame made at the prompt's first get
    under ``rev``). None where there is no frame, and where the cheap bound on
    ``max_render_bytes`` does not hold (``_get_result`` then decides)."""
    frames = prompt.get_frames
    if frames is None:
        frames = prompt.get_frames = {}
    frame = frames.get(rev)
    if frame is None:
        frame = frames[rev] = _frame(prompt, rev)
    if frame is False:
        return None
    head, gaps, size = frame
    values = argument_values(prompt, arguments)
    out = [head]
    for tpl, part in gaps:
        text = tpl.render(values)
        size += len(text)
        out.append(quote(text))
        out.append(part)
    if size * 12 > limits.max_render_bytes:
        return None
    return "".join(out).encode("ascii")


#: what stands in for template ``i``'s text while a frame is made (``_GAP % i``; the
#: first ones made once), and its head and tail as ``quote`` writes them
_GAP_HEAD, _GAP_TAIL = "\ue000tinymcp gap ", "\ue001"
_GAP = _GAP_HEAD + "%d" + _GAP_TAIL
_MARKS = tuple(_GAP % i for i in range(8))
_GAP_QUOTED = "\\ue000tinymcp gap ", "\\ue001"


def _frame(prompt, rev):
    """``(head, ((template, part), ...), size)``: the encoded result ``_shaped`` makes of
    ``prompt`` for ``rev``, cut where each templated field's value stands whole (the gaps
    in the order they come, each with its template and the part after it), and the
    characters ``rendered_size`` counts outside those values. False where it cannot be
    cut so: a value made part of a text (a block ``rev`` turns into text), a fixed text
    that reads as a gap, a result that does not encode.

    Each value's stand-in found once, whole (a JSON string of its own), and no other,
    quoting any text into its gap gives what encoding it does: a JSON string encodes alone,
    and ``_shaped`` decides nothing by a templated value (what it reads of one it puts into
    a longer text, which leaves no frame). tests/test_methods.py holds the two ways byte
    for byte on generated prompts."""
    tpls = templates(prompt)
    marks = _MARKS[:len(tpls)] if len(tpls) <= len(_MARKS) else [_GAP % i for i in range(len(tpls))]
    try:
        messages = filled(prompt, marks)
        data = _encoded_result(rev, prompt, messages)
        head, tail = _GAP_QUOTED
        pieces, order, at = [], [], 0
        start = data.find(head)
        while start >= 0:  # (one pass: each gap found after the one before)
            end = data.find(tail, start)
            order.append(int(data[start + len(head):end]))
            if data[start - 1] != '"' or data[end + len(tail)] != '"':
                return False  # (part of a longer text)
            pieces.append(data[at:start - 1])
            at = end + len(tail) + 1
            start = data.find(head, at)
        pieces.append(data[at:])
        if sorted(order) != list(range(len(tpls))):
            return False
    except Exception:  # (a result that does not encode: the general path says so)
        return False
    return (pieces[0], tuple(zip([tpls[i] for i in order], pieces[1:])),
            rendered_size(messages) - sum(map(len, marks)))


def _encoded_result(rev, prompt, messages):
    return dumps(_shaped(rev, prompt, messages))


def _complete_params(params):
    ref = params.get("ref")
    if type(ref) is not dict:
        raise InvalidParams("Invalid params: ref must be an object")
    kind = ref.get("type")
    if kind == "ref/resource":
        raise InvalidParams("Invalid params: tinymcp serves no resources, so ref/resource "
                            "has no completions")
    if kind != "ref/prompt":
        raise InvalidParams("Invalid params: ref.type must be 'ref/prompt'")
    name = _string(ref, "name", "ref.name")
    argument = params.get("argument")
    if type(argument) is not dict or type(argument.get("name")) is not str \
            or type(argument.get("value")) is not str:
        raise InvalidParams("Invalid params: argument must be an object with string name and value")
    return name, argument["name"], argument["value"], params.get("context")


def _context_arguments(ctx):
    """``context.arguments`` of a completion request (an object of strings), or None."""
    if ctx is None:
        return None
    args = ctx.get("arguments") if type(ctx) is dict else None
    if type(ctx) is not dict or (args is not None and (
            type(args) is not dict or not all(type(v) is str for v in args.values()))):
        raise InvalidParams("Invalid params: context.arguments must be an object of strings")
    return args


def _complete(session, call, args):
    name, argument, value, ctx = args
    prompt = _prompt(session, name)
    context = _context_arguments(ctx) if call.revision.completion_context else None
    work, values = completion(prompt, argument, value, context)
    if work is None:
        return _completion_result(values)
    return Deferred(call, work, _completion_result)


def _completion_result(values):
    values, total, more = capped(values)
    return {"completion": {"values": values, "total": total, "hasMore": more}}


# --- stateless era (2026-07-28) ------------------------------------------------------------

def _discover(session, call, args):
    config = session.server.config
    result = {"supportedVersions": list(STATELESS_VERSIONS),
              "capabilities": _capabilities(session, call.revision)}
    if config.instructions is not None:
        result["instructions"] = config.instructions
    _cache_hints(session, result)
    return result


def _listen_params(params):
    wanted = params.get("notifications")
    if type(wanted) is not dict:
        raise InvalidParams("Invalid params: notifications must be an object")
    return wanted


def _listen(session, call, wanted):
    honoured = session.conn.open_stream(call.rid, wanted)
    # 2026-07-28 subscriptions "Acknowledgment": MUST be the first message for this stream.
    call.note(notification("notifications/subscriptions/acknowledged", {
        "_meta": {META_SUBSCRIPTION: call.rid}, "notifications": honoured}))
    return None


#: method name -> its row. 2026-07-28 removed initialize, notifications/initialized, ping
#: and logging/setLevel, and added server/discover and subscriptions/listen.
REGISTRY = {m.name: m for m in (
    Method("initialize", _initialize, stateless=False, check=_initialize_params),
    Method("ping", _ping, stateless=False),
    Method("logging/setLevel", _set_level, stateless=False, check=lambda params: params.get("level")),
    Method("prompts/list", _prompts_list, check=_list_params),
    Method("prompts/get", _prompts_get, check=_get_params),
    Method("completion/complete", _complete, check=_complete_params),
    Method("server/discover", _discover, handshake=False, probe=True),
    Method("subscriptions/listen", _listen, handshake=False, check=_listen_params),
)}
