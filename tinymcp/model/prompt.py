"""A prompt is served from its validated config dict: this module checks one (``check``,
the one validator) and does what a client asks of it (list, get, complete).

Nothing is built from a prompt at load, and nothing is kept from one get to the next: a
get reads the dict, fills its templates in and shapes the messages, so a prompt's first
get costs what every later one does, and memory stays the config's. The dict is the
caller's only for a config parsed from JSON that nobody else holds (see ``config``).
"""

from ..codec import escaped_size
from ..errors import CallbackFailed, InvalidParams, clip, clip_names
from .check import ROLES, describe, surrogate_at
from .template import Template, check_template, fill, names_within, parse_template

#: a prompt's keys and an argument's (their order: for messages only)
PROMPT_KEYS = ("name", "title", "description", "icons", "_meta", "arguments", "messages", "render",
               "ask_for_missing", "complete")
ARGUMENT_KEYS = ("name", "title", "description", "required", "default", "completions", "complete", "choices", "append")
_PROMPT_KEYS, _ARGUMENT_KEYS = frozenset(PROMPT_KEYS), frozenset(ARGUMENT_KEYS)
_PLAIN_PROMPT_KEYS = frozenset(("name", "title", "description", "arguments", "messages"))
_PLAIN_ARGUMENT_KEYS = frozenset(("name", "title", "description", "required", "default"))


def content():
    """The ``content`` module, imported by the first prompt with a content block, ``_meta``
    or icons (or a ``render`` callable's result): a config of text prompts is served
    without it."""
    from . import content
    return content


#: 2025-11-25 completion "Completion Results": at most 100 values per response (2026-07-28
#: schema: CompleteResult.completion.values maxItems 100)
MAX_COMPLETIONS = 100


def check(problems, p, path):
    """Record every problem of prompt ``p`` at ``path`` in ``problems`` (a ``Check``);
    True when it has none.

    Speed: a config of 10,000 prompts is checked at every start, so each part of the
    common shape (the prompt's own fields, a plain argument, a text message) is accepted
    by one line of cheap tests, and its full checks run only when that line fails. Paths
    are written only then.
    """
    if type(p) is not dict:
        problems.fail(path, "expected an object, got %s" % describe(p))
        return False
    before = len(problems.problems)
    name = p.get("name")
    if not (_PLAIN_PROMPT_KEYS.issuperset(p) and type(name) is str and name and name.isprintable()
            and type(p.get("title", "")) is str and type(p.get("description", "")) is str):
        if not _PROMPT_KEYS.issuperset(p):
            problems.keys(p, path, PROMPT_KEYS)
        _check_name(problems, p, path)
        for key in ("title", "description"):
            problems.field(p, key, path, "string")
        if "_meta" in p:
            content().check_meta(problems, p, path)
        if "icons" in p:
            content().check_icons(problems, p, path)
        for key in ("render", "complete"):
            problems.field(p, key, path, "callable")
        problems.field(p, "ask_for_missing", path, "boolean")
    declared = _check_arguments(problems, p, path) if "arguments" in p else ()
    if ("messages" in p) == ("render" in p):
        problems.fail(path, "expected exactly one of 'messages' or 'render'")
    if "messages" in p:  # (checked even beside 'render': one run lists every problem)
        # (not a list: field records it and gives None)
        messages = p["messages"] if type(p["messages"]) is list else problems.field(p, "messages", path, "list")
        if messages == []:
            problems.fail(path + ".messages", "expected at least one message")
        for i, msg in enumerate(messages or ()):
            if type(msg) is dict and len(msg) == 2 and msg.get("role") in ROLES and type(msg.get("text")) is str:
                text = msg["text"]
                if ("{" in text or "}" in text) and not names_within(text, declared):
                    check_template(problems, text, "%s.messages[%d].text" % (path, i), declared)
            else:
                content().check_message(problems, msg, "%s.messages[%d]" % (path, i), declared)
    return len(problems.problems) == before


def _check_name(problems, obj, path):
    """A non-empty name that is valid Unicode (cursors and clients encode names as UTF-8)
    and printable: no control character (newline, tab, ESC, DEL), no format character
    (U+202E and the other bidirectional overrides, which show a name as another), no
    separator but the space (``str.isprintable``: no ``unicodedata`` needed)."""
    name = obj.get("name")
    if type(name) is str and name and name.isprintable():
        return
    name = problems.field(obj, "name", path, "string", required=True)
    if name == "":
        problems.fail(path + ".name", "expected a non-empty string")
    elif name is not None and surrogate_at(name) >= 0:
        problems.fail(path + ".name", "expected valid Unicode, got a lone surrogate at index %d (a lone \\ud800 "
                      "to \\udfff escape, or a file's name not in UTF-8)" % surrogate_at(name))
    elif name is not None:
        at = next(i for i, c in enumerate(name) if not c.isprintable())
        problems.fail(path + ".name", "expected a printable name, got %s at index %d (control, "
                      "format and bidirectional characters are refused)" % (ascii(name[at]), at))


def _check_arguments(problems, p, path):
    """The names of ``p``'s arguments, each argument checked."""
    declared = set()
    # (not a list: field records it and gives None)
    arguments = p["arguments"] if type(p["arguments"]) is list else problems.field(p, "arguments", path, "list")
    for i, a in enumerate(arguments or ()):
        name = a.get("name") if type(a) is dict else None
        if type(name) is str and _PLAIN_ARGUMENT_KEYS.issuperset(a) and name and name.isprintable() \
                and name not in declared and type(a.get("title", "")) is str \
                and type(a.get("description", "")) is str and type(a.get("default", "")) is str \
                and (a.get("required") is True and "default" not in a or a.get("required", False) is False):
            declared.add(name)
            continue
        apath = "%s.arguments[%d]" % (path, i)
        if problems.obj(a, apath) is None:
            continue
        if not _ARGUMENT_KEYS.issuperset(a):
            problems.keys(a, apath, ARGUMENT_KEYS)
        if type(name) is str and name in declared:
            problems.fail(apath + ".name", "duplicate argument name %r" % name)
        _check_name(problems, a, apath)
        if type(name) is str:
            declared.add(name)
        for key in ("title", "description", "default", "append"):
            problems.field(a, key, apath, "string")
        required = a.get("required", False)
        if required is not True and required is not False:
            problems.field(a, "required", apath, "boolean")
        elif required and "default" in a:
            problems.fail(apath + ".default", "a required argument takes no default")
        if problems.strings(a, "completions", apath) is not None and "complete" in a:
            problems.fail(apath, "expected at most one of 'completions' or 'complete'")
        choices = problems.strings(a, "choices", apath)
        if choices is not None:  # (a closed list: completion offers it, a value must be in it)
            if not choices:
                problems.fail(apath + ".choices", "expected at least one choice")
            elif "completions" in a or "complete" in a:
                problems.fail(apath, "expected at most one of 'choices', 'completions' or 'complete'")
            elif type(a.get("default")) is str and a["default"] not in choices:
                problems.fail(apath + ".default", "expected one of the choices, got %s" % clip(a["default"]))
        problems.field(a, "complete", apath, "callable")
    return declared


# --- prompts/list ----------------------------------------------------------------------------

def listing(p, rev):
    """The ``Prompt`` object of ``prompts/list`` as revision ``rev`` defines it (made for
    each page: a page is encoded at once, and the dicts it shares are never changed)."""
    titles = rev.titles
    out = {"name": p["name"]}
    if titles and "title" in p:
        out["title"] = p["title"]
    if "description" in p:
        out["description"] = p["description"]
    if "arguments" in p and p["arguments"]:
        out["arguments"] = args = []
        for a in p["arguments"]:
            arg = {"name": a["name"]}
            if titles and "title" in a:
                arg["title"] = a["title"]
            if "description" in a:
                arg["description"] = a["description"]
            if a.get("required"):
                arg["required"] = True
            args.append(arg)
    if rev.icons and "icons" in p:
        out["icons"] = p["icons"]
    if rev.meta and "_meta" in p:
        out["_meta"] = p["_meta"]
    return out


# --- prompts/get -----------------------------------------------------------------------------

def values(p, arguments, limits, required=True):
    """The values ``p``'s templates (or ``render`` callable) read: ``arguments`` checked
    against its declaration (-32602: 2025-11-25 prompts "Error Handling", missing required
    arguments, unless not ``required``: ``protocol/ask`` asks for them; "Implementation
    Considerations": servers SHOULD validate prompt arguments)
    and the bounds in force, over its defaults (a blank optional value takes its default:
    a form's empty field is not a value)."""
    if arguments is None:
        arguments = {}
    elif type(arguments) is not dict:
        raise InvalidParams("Invalid params: arguments must be an object of strings, got %s"
                            % describe(arguments))
    if len(arguments) > limits.max_arguments:
        raise InvalidParams("Invalid params: %d arguments exceed the limit of %d (max_arguments)"
                            % (len(arguments), limits.max_arguments))
    out, size, given = {}, 0, 0
    for a in p.get("arguments", ()):
        name = a["name"]
        value = arguments.get(name)
        if value is not None:
            given += 1
            if type(value) is not str:
                _argument_problems(p, arguments)
            size += len(name) + len(value)
        if value:
            out[name] = value
            if "choices" in a and value not in a["choices"]:
                raise InvalidParams("Invalid arguments for prompt %s: %s must be one of: %s" % (
                    clip(p["name"]), clip(name, 40), clip_names(a["choices"])))
        elif a.get("required") and required:
            _argument_problems(p, arguments)
        elif "default" in a:
            out[name] = a["default"]
        elif value is not None:
            out[name] = value
    if given != len(arguments):  # (an undeclared one, or one given null)
        _argument_problems(p, arguments)
    if size * 4 > limits.max_argument_bytes:  # (cheap bound first: UTF-8 is at most 4 bytes a char)
        size = sum(len(k.encode("utf-8", "surrogatepass")) + len(v.encode("utf-8", "surrogatepass"))
                   for k, v in arguments.items())
        if size > limits.max_argument_bytes:
            raise InvalidParams("Invalid params: arguments of %d bytes exceed the limit of %d "
                                "(max_argument_bytes)" % (size, limits.max_argument_bytes))
    return out


def _argument_problems(p, arguments):
    """Raise the -32602 that names every problem with ``arguments``."""
    declared = {a["name"]: a for a in p.get("arguments", ())}
    required = [n for n, a in declared.items() if a.get("required")]
    undeclared = [k for k in arguments if k not in declared]
    found = [("argument values must be strings", [k for k, v in arguments.items() if type(v) is not str]),
             ("missing required arguments", [n for n in required if n not in arguments]),
             ("required arguments left blank", [n for n in required if arguments.get(n) == ""]),
             ("undeclared arguments", undeclared)]  # (last: what it takes follows it)
    raise InvalidParams("Invalid arguments for prompt %s: %s%s" % (clip(p["name"]), "; ".join(
        "%s: %s" % (what, clip_names(names)) for what, names in found if names), " (it takes %s)" % (
        clip_names(list(declared)) if declared else "no arguments") if undeclared else ""))


def render(p, values, limits):
    """``p``'s configured messages with ``values`` filled in. A short template that repeats
    a long value past ``max_render_bytes`` is measured before anything is made, and
    refused (what is made is measured by the caller: ``rendered_size``)."""
    messages, total, bound, out = p["messages"], sum(map(len, values.values())), 0, []
    for m in messages:  # (a text message: the common case, one bound for each)
        text = m.get("text")
        bound += len(text) + text.count("{") * total if text is not None else sum(
            len(t) + t.count("{") * total * kind.growth for t, kind in _templates(m))
        if bound > limits.max_render_bytes:  # (measured whole once, before the message that may pass it is made)
            if _measure(messages, values, len) > limits.max_render_bytes:
                raise too_big(_measure(messages, values, escaped_size), limits)
            bound = float("-inf")
        out.append({"role": m["role"], "content": {"type": "text", "text": fill(text, values)}
                    if text is not None else content().fill_block(m["content"], values)})
    for a in p.get("arguments", ()):  # (a host's way: "ARGUMENTS: <what was typed>" after the text)
        if "append" in a and values.get(a["name"]):
            text = a["append"] + values[a["name"]]
            if out[-1]["content"]["type"] == "text":
                out[-1]["content"]["text"] += text
            else:
                out.append({"role": "user", "content": {"type": "text", "text": text.lstrip()}})
    return out


def _measure(messages, values, measure):
    """``rendered_size(render(...), measure)``, without rendering."""
    size = 0
    for msg in messages:
        for text, kind in _templates(msg):
            parsed = parse_template(text, kind)
            size += measure(parsed) if type(parsed) is str else parsed.size(values, measure)
        block = msg.get("content", {})
        size += sum(measure(value) for value in (block.get("data"), block.get("resource", {}).get("blob")) if value)
    return size


def _templates(msg):
    return [(msg["text"], Template)] if "text" in msg else content().templates(msg["content"])


def too_big(size, limits):
    """The -32602 for a rendering of ``size`` bytes on the wire over ``max_render_bytes``."""
    return InvalidParams("Invalid params: the rendered prompt (%d bytes on the wire) exceeds the "
                         "limit of %d (max_render_bytes)" % (size, limits.max_render_bytes))


def call_render(p, values):
    """The messages of ``p``'s ``render`` callable, held to a config's rules (at least one,
    each valid); ``CallbackFailed`` for whatever it raises (``SystemExit`` too: it fails
    this request, not the server: docs/security.md) or for an invalid result, which it
    names."""
    try:
        result = p["render"](dict(values))
    except BaseException as exc:
        raise CallbackFailed("render callable of prompt %r failed" % p["name"]) from exc
    try:
        messages, problems = content().rendered_messages(result)
    except BaseException as exc:  # (raised by an odd object it returned)
        raise CallbackFailed("render callable of prompt %r returned an unusable result" % p["name"]) from exc
    if problems:
        raise CallbackFailed("render callable of prompt %r returned an invalid result: %s" % (
            p["name"], "; ".join("%s: %s" % problem for problem in problems)))
    return messages


def rendered_size(messages, measure=len):
    """Characters of text, data and URIs in rendered messages; with ``measure=escaped_size``,
    the bytes they take on the wire (for max_render_bytes)."""
    size = 0
    for msg in messages:
        block = msg["content"]
        if len(block) == 2 and "text" in block:  # ({"type": "text", "text": ...}: the common case)
            size += measure(block["text"])
            continue
        for key in ("text", "data", "uri"):
            if key in block:
                size += measure(block[key])
        res = block.get("resource")
        if res is not None:
            size += measure(res.get("text") or res.get("blob") or "") + measure(res.get("uri", ""))
    return size


# --- completion/complete ------------------------------------------------------------------

def completion(p, name, value, context):
    """What answers ``completion/complete`` on one prompt argument: ``(work, None)``, a
    callable's run to do (``work()`` returns the values, checked), or ``(None, values)``.

    Sources, first found: the argument's ``complete(value, context)`` callable, the
    argument's ``completions`` or ``choices`` list (filtered by prefix, case-insensitively, exact-case
    matches first, then in list order), or the prompt's ``complete(name, value,
    context)`` callable. Callables' lists are capped, not filtered. ``context`` is
    the client's ``context.arguments`` (2025-06-18 on) or None.
    """
    arg = next((a for a in p.get("arguments", ()) if a["name"] == name), None)
    if arg is None:
        raise InvalidParams("Invalid params: prompt %s has no argument %s" % (clip(p["name"]), clip(name)))
    if "complete" in arg:
        return (lambda: _called(p, arg["complete"], value, context)), None
    if "completions" in arg or "choices" in arg:
        return None, _prefix_matches(arg["completions"] if "completions" in arg else arg["choices"], value)
    if "complete" in p:
        return (lambda: _called(p, p["complete"], name, value, context)), None
    return None, []


def _called(p, complete, *args):
    """The values a ``complete`` callable gives, checked; ``CallbackFailed`` otherwise
    (for a ``BaseException`` too, as for ``render``)."""
    try:
        values = complete(*args)
        if isinstance(values, (str, bytes)):
            raise TypeError("complete() must return a list of strings, not one string")
        values = list(values)
        if not all(isinstance(v, str) for v in values):
            raise TypeError("complete() must return strings")
    except BaseException as exc:  # (a callable's SystemExit ends no server)
        raise CallbackFailed("complete callable of prompt %r failed" % p["name"]) from exc
    return values


def completion_result(values):
    """The ``completion/complete`` result: at most ``MAX_COMPLETIONS`` values."""
    return {"completion": {"values": values[:MAX_COMPLETIONS], "total": len(values),
                           "hasMore": len(values) > MAX_COMPLETIONS}}


def _nfc(text):
    """``text`` in Unicode normalization form C (composed: "e" + U+0301 becomes U+00E9);
    ASCII text, the common case, as it is."""
    if text.isascii():
        return text
    try:
        import unicodedata  # (only for non-ASCII text)
    except ImportError:  # (a split install without it: compared as given, docs/decisions.md)
        return text
    return unicodedata.normalize("NFC", text)


def _prefix_matches(options, typed):
    """The ``options`` that start with ``typed``: exact-case matches first, then those
    that match case-insensitively, each in list order. Both sides are compared in NFC,
    so a composed and a decomposed "\u00e9" match (docs/decisions.md)."""
    if not typed:
        return list(options)
    typed = _nfc(typed)
    folded = typed.lower()
    exact, other = [], []
    for value in options:
        text = _nfc(value)
        if text.startswith(typed):
            exact.append(value)
        elif text.lower().startswith(folded):
            other.append(value)
    return exact + other
