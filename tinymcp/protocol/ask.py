"""Asking for a prompt's missing arguments (2026-07-28 "Multi Round-Trip Requests"): opt-in
(``"ask_for_missing": true``, at the top of a config or on a prompt), loaded by the first
stateless ``prompts/get`` of a prompt that asks.

When a ``prompts/get`` lacks required arguments and the request's client capabilities
declare elicitation in form mode, the answer is an ``InputRequiredResult`` with one
``elicitation/create`` form whose schema holds the missing arguments; the client's retry
carries the user's answers in ``inputResponses``, merged over the arguments it gives,
and the prompt is rendered (still missing: asked again, mrtr "Error Handling"). No
``requestState`` is sent: the retry carries everything, so there is no state to protect
(mrtr "Server Requirements"). Otherwise, and in the handshake era, a missing argument
stays -32602.
"""

from ..errors import InvalidParams
from ..model.prompt import values
from .state import META_CAPABILITIES

#: the key of our one input request (mrtr "InputRequests": server-assigned; "Server Requirements
#: (Basic Workflow)": MUST be unique within the request)
KEY = "missing_arguments"


def ask_or_merge(p, arguments, params, limits):
    """``(arguments, None)``: the request's arguments with the user's answers merged, ready
    to render (or to be refused as ever); ``(arguments, result)``: the ``input_required``
    result to send instead."""
    if arguments is not None and type(arguments) is not dict:
        return arguments, None  # (refused, as ever, by prompt.values)
    merged = dict(arguments or {})
    answer = (params.get("inputResponses") or {}).get(KEY)  # (an object, if given: methods._retry_fields)
    declared = {a["name"]: a for a in p.get("arguments", ())}
    # mrtr "Error Handling": servers SHOULD validate what the client provides (an ElicitResult here), and
    # answer a malformed one with an error (it was taken for a decline, or asked again)
    if answer is not None and (answer.get("action") not in ("accept", "decline", "cancel")
                               or answer.get("content") is not None and type(answer["content"]) is not dict):
        raise InvalidParams("Invalid params: inputResponses[%s] must be an elicitation result: action 'accept', "
                            "'decline' or 'cancel', and content an object" % KEY)
    if answer is not None and answer["action"] != "accept":
        return merged, None  # (declined or cancelled: not asked again; accepted with no form: asked again)
    for name, value in ((answer or {}).get("content") or {}).items():
        if name in declared and type(value) is str and value and not merged.get(name):
            merged[name] = value  # (what the user typed; what the request gave wins)
    missing = [a for a in declared.values() if a.get("required") and not merged.get(a["name"])]
    # (a stateless request's _meta and its capabilities are objects: state.Connection.admit; tools/call gives {})
    elicit = ((params.get("_meta") or {}).get(META_CAPABILITIES) or {}).get("elicitation")
    # mrtr: MUST NOT send a request kind the client did not declare (an empty elicitation
    # object means form mode, as before modes were named)
    if not missing or type(elicit) is not dict or (elicit and "form" not in elicit):
        return merged, None
    # prompts "Implementation Considerations": servers SHOULD validate arguments: what is given is,
    # before anything is asked (one undeclared, not text, not a choice: -32602)
    values(p, merged, limits, required=False)
    properties = {}
    for a in missing:
        prop = properties[a["name"]] = {"type": "string", "title": a.get("title", a["name"])}
        for key, to in (("description", "description"), ("default", "default"), ("choices", "enum")):
            if key in a:
                prop[to] = a[key]
    return merged, {"resultType": "input_required", "inputRequests": {KEY: {
        "method": "elicitation/create", "params": {
            "mode": "form", "message": "Prompt %s needs %s" % (p["name"], ", ".join(
                a.get("title", a["name"]) for a in missing)),
            "requestedSchema": {"type": "object", "properties": properties,
                                "required": [a["name"] for a in missing]}}}}}
