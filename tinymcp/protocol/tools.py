"""Prompts as tools, for clients that call only tools (Codex, Copilot CLI, most agent
frameworks): opt-in (``"prompts_as_tools": true``, ``--prompts-as-tools``), loaded by the
first ``tools/*`` request of a server that offers them.

Two tools, with the names, input schemas and result shapes of FastMCP 4.2's
``PromptsAsTools`` (an agent that knows one server knows the other): ``list_prompts``
(no arguments) returns the prompts as JSON text, ``get_prompt`` (``name``, ``arguments``)
the rendered messages as JSON text; from 2025-06-18 each also as ``structuredContent``
``{"result": text}`` under the ``outputSchema`` that says so. A prompt that is unknown, or
arguments it refuses, give a tool result with ``isError: true`` and the message
``prompts/get`` gives (tools "Error Handling": tool execution errors are results). The
prompts stay in ``prompts/list``.
"""

from ..codec import dumps, escaped_size
from ..errors import InvalidParams, clip
from ..model.config import PromptSet
from ..model.prompt import too_big
from .methods import Method, list_result, param, prompts_get
from .state import Deferred

_OUTPUT = {"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"]}
#: the two tools, by name (paged as ``prompts/list`` pages: a cursor names the last one sent)
_TOOLS = PromptSet({t["name"]: t for t in (
    {"name": "list_prompts", "title": "List Prompts",
     "description": "List all available prompts.\n\nReturns JSON with prompt metadata including name, "
                    "description,\nand optional arguments.",
     "inputSchema": {"type": "object", "additionalProperties": False, "properties": {}}},
    {"name": "get_prompt", "title": "Get Prompt",
     "description": "Get a prompt by name with optional arguments.\n\nReturns the rendered prompt as "
                    "JSON with a messages array.\nArguments should be provided as a dict mapping "
                    "argument names\nto values.",
     "inputSchema": {"type": "object", "additionalProperties": False, "required": ["name"], "properties": {
         "name": {"type": "string", "description": "The name of the prompt to get"},
         "arguments": {"anyOf": [{"type": "object", "additionalProperties": True}, {"type": "null"}],
                       "default": None, "description": "Optional arguments for the prompt"}}}},
)})


def _listing(tool, rev):
    """A tool as ``tools/list`` shows it (title and outputSchema came with 2025-06-18, with titles)."""
    return dict(tool, outputSchema=_OUTPUT) if rev.titles else {k: v for k, v in tool.items() if k != "title"}


def _call_params(params):
    name, arguments = param(params, "name"), params.get("arguments")
    if arguments is not None and type(arguments) is not dict:
        raise InvalidParams("Invalid params: arguments must be an object")
    if name not in ("list_prompts", "get_prompt"):  # (tools "Error Handling": unknown tool)
        raise InvalidParams("Unknown tool: %s" % clip(name))
    return name, arguments or {}


def _tools_call(session, call, args):
    name, arguments = args
    limits = session.server.config.limits
    if name == "list_prompts":
        listed = [{"name": p["name"], "description": p.get("description"), "arguments": [
            {"name": a["name"], "description": a.get("description"), "required": bool(a.get("required"))}
            for a in p.get("arguments", ())]} for p in session.server.config.prompts.by_name.values()]
        return _result(call, dumps(listed), limits=limits)
    prompt = arguments.get("name")
    if type(prompt) is not str:
        return _result(call, "Invalid arguments: name must be a string", error=True)
    return _messages(call, limits, lambda: prompts_get(session, call, (prompt, arguments.get("arguments"), {})))


def _messages(call, limits, get):
    """The tool result of ``get()``, prompts/get's result (a ``Deferred``'s once its callable has run)."""
    try:
        got = get()
    except InvalidParams as exc:  # (unknown prompt, refused arguments, messages too big: as prompts/get says it)
        return _result(call, exc.message, error=True)
    if type(got) is Deferred:  # (a render callable runs first)
        return Deferred(call, got.work, lambda value: _messages(call, limits, lambda: got.finish(value)))
    return _result(call, dumps({"messages": [
        {"role": m["role"], "content": m["content"]["text"] if m["content"]["type"] == "text" else m["content"]}
        for m in got["messages"]]}), limits=limits)


def _result(call, text, error=False, limits=None):
    """A tool result of ``text``; with ``limits``, one whose text (escaped again, and sent
    twice from 2025-06-18) would take more than ``max_render_bytes`` is an error result."""
    if limits is not None and len(text) * 24 > limits.max_render_bytes:  # (12 bytes a character, twice)
        size = 2 * escaped_size(text)
        if size > limits.max_render_bytes:
            text, error = too_big(size, limits).message, True
    result = {"content": [{"type": "text", "text": text}]}
    if error:
        result["isError"] = True
    elif call.revision.titles:  # (2025-06-18 on: what the outputSchema promises)
        result["structuredContent"] = {"result": text}
    return result


#: method name -> its row (see ``methods.REGISTRY``)
TOOLS = {m.name: m for m in (
    Method("tools/list", lambda session, call, cursor: list_result(session, call, "tools", _TOOLS, cursor, _listing),
           check=lambda params: params.get("cursor")),
    Method("tools/call", _tools_call, check=_call_params),
)}
