"""Models: prompts, arguments, messages and content blocks; validated from config, shaped for the wire.

Each model is a small slotted class with an explicit ``from_wire(obj, path, check)``
validator (docs/decisions.md: not ``dataclasses``, whose import pulls in ``inspect``
and costs a fifth of our cold-start budget). Validators record every problem in a
``Check`` with the path of the offending value, so one load lists every mistake.

``to_wire`` shaping follows the negotiated revision: fields and block types a revision
does not define are left out or converted, never sent raw to an older client.
"""

from .jsonrpc import encode
from .template import Template, parse_template

__all__ = [
    "LEGACY_VERSIONS", "MODERN_VERSIONS", "ALL_VERSIONS", "Check", "Prompt", "PromptArgument",
    "message_from_wire", "messages_from_render", "shape_content", "fast_prompt",
]

#: Handshake-era revisions, oldest first (2026-07-28 versioning "Terminology": legacy).
LEGACY_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: Stateless-era revisions (2026-07-28 versioning "Terminology").
MODERN_VERSIONS = ("2026-07-28",)
ALL_VERSIONS = LEGACY_VERSIONS + MODERN_VERSIONS

# Revision strings are ISO dates, so plain string comparison orders them.
V_2025_03_26 = "2025-03-26"  # AudioContent, ServerCapabilities.completions, progress message
V_2025_06_18 = "2025-06-18"  # title, _meta, ResourceLink, lastModified, completion context
V_2025_11_25 = "2025-11-25"  # icons on Prompt and ResourceLink

ROLES = ("user", "assistant")

#: RFC 5424 severities, lowest first (every revision's logging page, "Log Levels").
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

_EMPTY_TUPLE = ()
_EMPTY_DICT = {}  # shared: never written to (Prompt._defaults when no argument has one)


def shown(value):
    """A short rendering of a value where one of a few strings was expected."""
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "...")
    return describe(value)


def describe(value):
    """'a string', 'true', 'a list' ...: the JSON type of a value, for messages."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)):
        return "the number %r" % (value,) if len(repr(value)) <= 20 else "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    name = type(value).__name__
    return ("an %s" if name[0] in "aeiou" else "a %s") % name


class Check:
    """Collects ``(path, message)`` problems; typed getters return None on a mismatch."""

    __slots__ = ("problems",)

    def __init__(self):
        self.problems = []

    def fail(self, path, msg):
        self.problems.append((path, msg))

    def obj(self, value, path):
        if isinstance(value, dict):
            return value
        self.fail(path, "expected an object, got %s" % describe(value))
        return None

    def keys(self, obj, path, allowed):
        for key in obj:
            if key not in allowed:
                hint = _close_match(key, allowed)
                self.fail(_join(path, key), "unknown key" + (
                    " (did you mean %r?)" % hint if hint else ""))

    def unique_name(self, obj, path, seen, what):
        """Record ``obj["name"]`` in ``seen``, failing on a duplicate; done even when
        ``obj`` has other problems, so one run lists them all without follow-up errors."""
        name = obj.get("name") if isinstance(obj, dict) else None
        if isinstance(name, str):
            if name in seen:
                self.fail(path + ".name", "duplicate %s name %r" % (what, name))
            seen.add(name)

    def field(self, obj, key, path, kind, required=False):
        """``obj[key]`` if present and of ``kind`` ('string', 'boolean', 'integer',
        'number', 'list', 'object', 'callable'); else record a problem."""
        if key not in obj:
            if required:
                self.fail(path, "missing required key %r" % key)
            return None
        value = obj[key]
        if _KIND_TEST[kind](value):
            return value
        self.fail(_join(path, key), "expected %s, got %s" % (_KIND_NAME[kind], describe(value)))
        return None


_KIND_TEST = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: v is True or v is False,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "list": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "callable": callable,
}
_KIND_NAME = {
    "string": "a string", "boolean": "true or false", "integer": "an integer",
    "number": "a number", "list": "a list", "object": "an object", "callable": "a callable",
}


def _check_json(check, obj, key, path):
    """``obj[key]``, if present, must be an object that encodes as JSON (no NaN/Infinity,
    no Python-only values), or every reply that carries it would fail to encode."""
    value = check.field(obj, key, path, "object")
    if value is not None:
        try:
            encode(value)
        except (ValueError, TypeError, RecursionError) as exc:
            check.fail(_join(path, key), "expected JSON data: %s" % exc)


def _surrogate_at(text):
    """Index of the first lone surrogate in ``text`` (a JSON file can hold "\\ud800"), or -1."""
    if text.isascii():
        return -1
    try:
        text.encode("utf-8")
        return -1
    except UnicodeEncodeError as exc:
        return exc.start


def _identity(check, obj, path):
    """``(name, title, description)`` of a prompt or an argument: a non-empty name that
    is valid Unicode (cursors and clients encode names as UTF-8)."""
    name = check.field(obj, "name", path, "string", required=True)
    if name == "":
        check.fail(path + ".name", "expected a non-empty string")
    elif name is not None:
        at = _surrogate_at(name)
        if at >= 0:
            check.fail(path + ".name", "expected valid Unicode, got a lone surrogate at index %d" % at)
    return name, check.field(obj, "title", path, "string"), check.field(obj, "description", path, "string")


def _placeholder_path(mpath, raw, key, sub):
    """The path of the templated field ``(key, sub)`` of message ``raw`` at ``mpath``."""
    if isinstance(raw, dict) and "text" in raw:
        return mpath + ".text"
    if key == "resource":
        return "%s.content.resource.%s" % (mpath, sub)
    return "%s.content.%s" % (mpath, key)  # a text block's text, a resource link's uri


def _join(path, key):
    return "%s.%s" % (path, key) if path else key


def _close_match(key, allowed):
    import difflib  # only on the error path
    found = difflib.get_close_matches(str(key), list(allowed), n=1, cutoff=0.7)
    return found[0] if found else None


# --- content blocks ---------------------------------------------------------------

_BLOCK_KEYS = {
    "text": ("type", "text", "annotations", "_meta"),
    "image": ("type", "data", "mimeType", "annotations", "_meta"),
    "audio": ("type", "data", "mimeType", "annotations", "_meta"),
    "resource": ("type", "resource", "annotations", "_meta"),
    "resource_link": ("type", "uri", "name", "title", "description", "mimeType", "size",
                      "annotations", "icons", "_meta"),
}
_RESOURCE_KEYS = ("uri", "mimeType", "text", "blob", "_meta")


# type "/" subtype, RFC 6838 restricted-name characters, parameters allowed after ";"
_MIME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&^_.+-")


def _check_mime(check, obj, path, required):
    """``obj["mimeType"]``: a string shaped like a MIME type (every revision's prompts page:
    image, audio and embedded resource content MUST include a valid MIME type)."""
    value = check.field(obj, "mimeType", path, "string", required=required)
    if value is None:
        return
    kind, slash, subtype = value.split(";", 1)[0].rstrip(" ").partition("/")
    if not (slash and kind[:1].isalnum() and subtype[:1].isalnum() and _MIME_CHARS.issuperset(kind)
            and _MIME_CHARS.issuperset(subtype)):
        check.fail(path + ".mimeType", "expected a MIME type like 'image/png', got %s" % shown(value))


_B64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _check_base64(check, value, path):
    """Strict standard base64 (RFC 4648 section 4, padded), as the schema's ``byte`` format."""
    body = value.rstrip("=")
    if len(value) % 4 or len(value) - len(body) > 2 or not _B64_ALPHABET.issuperset(body):
        check.fail(path, "expected base64 data")


def _check_annotations(check, value, path):
    ann = check.obj(value, path)
    if ann is None:
        return
    check.keys(ann, path, ("audience", "priority", "lastModified"))
    audience = check.field(ann, "audience", path, "list")
    for i, role in enumerate(audience or ()):
        if role not in ROLES:
            check.fail("%s.audience[%d]" % (path, i), "expected 'user' or 'assistant', got %s"
                       % shown(role))
    priority = check.field(ann, "priority", path, "number")
    if priority is not None and not 0 <= priority <= 1:
        check.fail(path + ".priority", "expected a number from 0 to 1, got %r" % (priority,))
    check.field(ann, "lastModified", path, "string")


def _check_icons(check, value, path):
    if not isinstance(value, list):
        check.fail(path, "expected a list, got %s" % describe(value))
        return
    for i, icon in enumerate(value):
        ipath = "%s[%d]" % (path, i)
        icon = check.obj(icon, ipath)
        if icon is None:
            continue
        check.keys(icon, ipath, ("src", "mimeType", "sizes", "theme"))
        check.field(icon, "src", ipath, "string", required=True)
        check.field(icon, "mimeType", ipath, "string")
        sizes = check.field(icon, "sizes", ipath, "list")
        for j, size in enumerate(sizes or ()):
            if not isinstance(size, str):
                check.fail("%s.sizes[%d]" % (ipath, j), "expected a string, got %s" % describe(size))
        theme = icon.get("theme")
        if theme is not None and theme not in ("light", "dark"):
            check.fail(ipath + ".theme", "expected 'light' or 'dark', got %s" % shown(theme))


def _template(check, value, path, templated, fixes, key, sub):
    """Parse a templated string field: record ``(key, sub, Template)`` in ``templated``
    when it has placeholders, or ``(key, sub, text)`` in ``fixes`` when it only had
    ``{{``/``}}`` escapes to undo."""
    if templated is None:
        return
    try:
        tpl = parse_template(value)
    except ValueError as exc:
        check.fail(path, str(exc))
        return
    if isinstance(tpl, Template):
        templated.append((key, sub, tpl))
    elif tpl != value:
        fixes.append((key, sub, tpl))


def _with_fixes(block, fixes):
    """A copy of ``block`` with fixed field values (never the caller's dict changed)."""
    block = dict(block)
    for key, sub, value in fixes:
        if sub is None:
            block[key] = value
        else:
            block[key] = dict(block[key], **{sub: value})
    return block


def content_from_wire(check, obj, path, templated=None):
    """Validate one content block; returns its wire dict (templates left as typed).

    ``templated`` (a list) receives ``(key, subkey, Template)`` for fields with
    placeholders: text, resource text and uri, resource_link uri. ``None`` means the
    block is final output (from a ``render`` callable) and is not templated.
    """
    block = check.obj(obj, path)
    if block is None:
        return None
    kind = block.get("type")
    if type(kind) is not str or kind not in _BLOCK_KEYS:
        check.fail(_join(path, "type"), "expected one of %s, got %s" % (
            ", ".join(repr(k) for k in _BLOCK_KEYS), shown(kind)))
        return None
    before = len(check.problems)
    fixes = []
    check.keys(block, path, _BLOCK_KEYS[kind])
    if kind == "text":
        text = check.field(block, "text", path, "string", required=True)
        if text is not None:
            _template(check, text, path + ".text", templated, fixes, "text", None)
    elif kind in ("image", "audio"):
        data = check.field(block, "data", path, "string", required=True)
        if data is not None:
            _check_base64(check, data, path + ".data")
        _check_mime(check, block, path, True)
    elif kind == "resource":
        rpath = path + ".resource"
        res = check.field(block, "resource", path, "object", required=True)
        if res is not None:
            check.keys(res, rpath, _RESOURCE_KEYS)
            uri = check.field(res, "uri", rpath, "string", required=True)
            if uri is not None:
                _template(check, uri, rpath + ".uri", templated, fixes, "resource", "uri")
            _check_mime(check, res, rpath, False)  # (absent: a default is put in below)
            _check_json(check, res, "_meta", rpath)
            if ("text" in res) == ("blob" in res):
                check.fail(rpath, "expected exactly one of 'text' or 'blob'")
            elif "text" in res:
                text = check.field(res, "text", rpath, "string")
                if text is not None:
                    _template(check, text, rpath + ".text", templated, fixes, "resource", "text")
            else:
                blob = check.field(res, "blob", rpath, "string")
                if blob is not None:
                    _check_base64(check, blob, rpath + ".blob")
    else:  # resource_link
        uri = check.field(block, "uri", path, "string", required=True)
        if uri is not None:
            _template(check, uri, path + ".uri", templated, fixes, "uri", None)
        check.field(block, "name", path, "string", required=True)
        for key in ("title", "description", "mimeType"):
            check.field(block, key, path, "string")
        size = check.field(block, "size", path, "integer")
        if size is not None and size < 0:
            check.fail(path + ".size", "expected a size of 0 or more, got %d" % size)
        if "icons" in block:
            _check_icons(check, block["icons"], path + ".icons")
    if "annotations" in block:
        _check_annotations(check, block["annotations"], path + ".annotations")
    _check_json(check, block, "_meta", path)
    if len(check.problems) != before:
        return None
    if kind == "resource" and "mimeType" not in block["resource"]:
        # prompts "Embedded Resources": MUST include the appropriate MIME type; left out,
        # it is the generic one for the content (docs/decisions.md)
        res = block["resource"]
        block = dict(block, resource=dict(res, mimeType="text/plain" if "text" in res
                                          else "application/octet-stream"))
    return _with_fixes(block, fixes) if fixes else block


def message_from_wire(check, obj, path, templated=None):
    """``{role, text}`` or ``{role, content: {...block...}}``; returns the wire message."""
    msg = check.obj(obj, path)
    if msg is None:
        return None
    before = len(check.problems)
    check.keys(msg, path, ("role", "text", "content"))
    role = msg.get("role")
    if role not in ROLES:
        check.fail(_join(path, "role") if "role" in msg else path,
                   "expected 'user' or 'assistant', got %s" % shown(role)
                   if "role" in msg else "missing required key 'role'")
    if ("text" in msg) == ("content" in msg):
        check.fail(path, "expected exactly one of 'text' or 'content'")
        return None
    if "text" in msg:
        text = check.field(msg, "text", path, "string")
        if text is None:
            return None
        fixes = []
        _template(check, text, path + ".text", templated, fixes, "text", None)
        block = {"type": "text", "text": fixes[0][2] if fixes else text}
    else:
        block = content_from_wire(check, msg["content"], path + ".content", templated)
    if block is None or len(check.problems) != before:
        return None
    return {"role": role, "content": block}


def messages_from_render(result, path="render()"):
    """Validate what a ``render`` callable returned: a str, or a list of messages."""
    if isinstance(result, str):
        return [{"role": "user", "content": {"type": "text", "text": result}}]
    check = Check()
    out = []
    if not isinstance(result, list):
        check.fail(path, "expected a string or a list of messages, got %s" % describe(result))
    else:
        for i, item in enumerate(result):
            out.append(message_from_wire(check, item, "%s[%d]" % (path, i)))
    if check.problems:
        from .errors import ConfigError
        raise ConfigError(check.problems)
    return out


# --- shaping for older revisions ---------------------------------------------------

def _link_as_text(block):
    title = block.get("title")
    bits = ["%s (%s)" % (title, block["name"]) if title else block["name"], "<%s>" % block["uri"]]
    if block.get("mimeType"):
        bits.append("(%s)" % block["mimeType"])
    if block.get("size") is not None:
        bits.append("%d bytes" % block["size"])
    text = "[resource link] " + " ".join(bits)
    if block.get("description"):
        text += ": " + block["description"]
    return text


def _as_text(block):
    """The block's information as plain text (the text itself for a text block)."""
    kind = block["type"]
    if kind == "text":
        return block["text"]
    if kind == "resource_link":
        return _link_as_text(block)
    if kind == "resource":
        res = block["resource"]
        head = "[resource <%s>%s" % (res["uri"], " (%s)" % res["mimeType"] if res.get("mimeType") else "")
        return head + "]\n" + res["text"] if "text" in res else head + ", base64] " + res["blob"]
    return "[%s %s, base64] %s" % (kind, block["mimeType"], block["data"])  # image, audio


def shape_content(block, version):
    """The block as ``version`` defines it (called only for versions before 2025-11-25).

    2025-11-25 prompts "Prompt Messages" lists the content kinds; what an older revision
    does not know is never sent raw. Audio before 2025-03-26, resource_link before
    2025-06-18, and before 2025-06-18 any block dated by ``annotations.lastModified``
    become text blocks that carry the same information (the date as a last line);
    ``_meta`` and ``icons`` are dropped where the revision has no such field
    (docs/decisions.md).
    """
    kind = block["type"]
    if (kind == "audio" and version < V_2025_03_26) or (kind == "resource_link" and version < V_2025_06_18):
        block = {"type": "text", "text": _as_text(block), "annotations": block.get("annotations")}
    if version < V_2025_06_18:
        ann = block.get("annotations")
        if ann and "lastModified" in ann:
            block = {"type": "text", "text": "%s\n[last modified %s]" % (_as_text(block), ann["lastModified"]),
                     "annotations": {k: v for k, v in ann.items() if k != "lastModified"} or None}
        block = {k: v for k, v in block.items() if k != "_meta" and v is not None}
        res = block.get("resource")
        if res and "_meta" in res:
            block["resource"] = {k: v for k, v in res.items() if k != "_meta"}
    elif kind == "resource_link" and "icons" in block:
        block = {k: v for k, v in block.items() if k != "icons"}
    return block


def needs_shaping(block):
    """True when ``shape_content`` could change the block for some older revision."""
    return (block["type"] in ("audio", "resource_link") or "_meta" in block
            or "annotations" in block or "_meta" in block.get("resource", ()))


# --- prompts ---------------------------------------------------------------------

class PromptArgument:
    """One declared argument of a prompt."""

    __slots__ = ("name", "title", "description", "required", "default", "completions", "complete")

    KEYS = ("name", "title", "description", "required", "default", "completions", "complete")

    def __init__(self, name, title=None, description=None, required=False, default=None,
                 completions=None, complete=None):
        self.name = name
        self.title = title
        self.description = description
        self.required = required
        self.default = default
        #: suggested values for completion/complete (a list of strings), or None
        self.completions = completions
        #: ``complete(value, context_arguments) -> list of str`` (Python configs), or None
        self.complete = complete

    @classmethod
    def from_wire(cls, check, obj, path):
        arg = check.obj(obj, path)
        if arg is None:
            return None
        before = len(check.problems)
        check.keys(arg, path, cls.KEYS)
        name, title, description = _identity(check, arg, path)
        required = check.field(arg, "required", path, "boolean")
        default = check.field(arg, "default", path, "string")
        if required and default is not None:
            check.fail(path + ".default", "a required argument takes no default")
        completions = check.field(arg, "completions", path, "list")
        for i, value in enumerate(completions or ()):
            if not isinstance(value, str):
                check.fail("%s.completions[%d]" % (path, i), "expected a string, got %s" % describe(value))
        complete = check.field(arg, "complete", path, "callable")
        if completions is not None and complete is not None:
            check.fail(path, "expected at most one of 'completions' or 'complete'")
        if len(check.problems) != before:
            return None
        return cls(name, title, description, bool(required), default, completions, complete)

    def to_wire(self, version):
        out = {"name": self.name}
        if self.title is not None and version >= V_2025_06_18:
            out["title"] = self.title
        if self.description is not None:
            out["description"] = self.description
        if self.required:
            out["required"] = True
        return out


class Prompt:
    """A prompt: metadata, arguments, and either message templates or a ``render`` callable."""

    __slots__ = ("name", "title", "description", "icons", "meta", "arguments", "messages",
                 "render_fn", "complete", "_by_arg", "_required", "_defaults", "_listing")

    KEYS = ("name", "title", "description", "icons", "_meta", "arguments", "messages", "render",
            "complete")

    def __init__(self, name, title=None, description=None, icons=None, meta=None, arguments=(),
                 messages=None, render_fn=None, complete=None):
        self.name = name
        self.title = title
        self.description = description
        self.icons = icons
        self.meta = meta
        self.arguments = arguments = list(arguments)
        #: list of (wire message, [(key, subkey, Template)]) when template-based
        self.messages = messages
        self.render_fn = render_fn
        #: ``complete(argument_name, value, context_arguments) -> list of str``, or None
        self.complete = complete
        # one loop, and shared empties for the common case: a 10,000-prompt load is
        # dominated by object creation (measured -15% for this __init__)
        by_arg = {}
        required = _EMPTY_TUPLE
        defaults = _EMPTY_DICT
        for a in arguments:
            by_arg[a.name] = a
            if a.required:
                required = required + (a.name,)
            elif a.default is not None:
                if defaults is _EMPTY_DICT:
                    defaults = {}
                defaults[a.name] = a.default
        self._by_arg = by_arg
        self._required = required
        self._defaults = defaults
        self._listing = None  # revision shape -> listing dict, made on first prompts/list

    @classmethod
    def from_wire(cls, check, obj, path):
        """The full validator (load_config tries ``fast_prompt`` first)."""
        p = check.obj(obj, path)
        if p is None:
            return None
        before = len(check.problems)
        check.keys(p, path, cls.KEYS)
        name, title, description = _identity(check, p, path)
        _check_json(check, p, "_meta", path)
        meta = p.get("_meta")
        icons = p.get("icons")
        if icons is not None:
            _check_icons(check, icons, path + ".icons")
        arguments = []
        raw_args = check.field(p, "arguments", path, "list") or ()
        seen = set()
        for i, raw in enumerate(raw_args):
            apath = "%s.arguments[%d]" % (path, i)
            check.unique_name(raw, apath, seen, "argument")
            arg = PromptArgument.from_wire(check, raw, apath)
            if arg is not None:
                arguments.append(arg)
        render_fn = check.field(p, "render", path, "callable")
        complete = check.field(p, "complete", path, "callable")
        messages = None
        if ("messages" in p) == ("render" in p):
            check.fail(path, "expected exactly one of 'messages' or 'render'")
        if "messages" in p:  # checked even next to 'render', so one run lists every problem
            raw_msgs = check.field(p, "messages", path, "list")
            if raw_msgs is not None:
                if not raw_msgs:
                    check.fail(path + ".messages", "expected at least one message")
                messages = []
                for i, raw in enumerate(raw_msgs):
                    mpath = "%s.messages[%d]" % (path, i)
                    templated = []
                    msg = message_from_wire(check, raw, mpath, templated)
                    for key, sub, tpl in templated:
                        for ref in tpl.names:
                            if ref not in seen:
                                check.fail(_placeholder_path(mpath, raw, key, sub),
                                           "placeholder {%s} names no declared argument%s" % (
                                               ref, " (write {{ and }} for literal braces)"
                                               if any(c in ref for c in "\":, ") else ""))
                    messages.append((msg, templated))
        if len(check.problems) != before:
            return None
        return cls(name, title, description, icons, meta, arguments, messages, render_fn, complete)

    def listing(self, version):
        """The ``Prompt`` object of ``prompts/list`` as ``version`` defines it (cached)."""
        shape = V_2025_11_25 if version >= V_2025_11_25 else V_2025_06_18 if version >= V_2025_06_18 else "old"
        if self._listing is None:
            self._listing = {}
        out = self._listing.get(shape)
        if out is None:
            out = {"name": self.name}
            if shape != "old":
                if self.title is not None:
                    out["title"] = self.title
            if self.description is not None:
                out["description"] = self.description
            if self.arguments:
                out["arguments"] = [a.to_wire(version) for a in self.arguments]
            if shape == V_2025_11_25 and self.icons:
                out["icons"] = self.icons
            if shape != "old" and self.meta is not None:
                out["_meta"] = self.meta
            self._listing[shape] = out
        return out


_FAST_PROMPT_KEYS = frozenset(("name", "title", "description", "arguments", "messages"))
_FAST_ARG_KEYS = frozenset(("name", "title", "description", "required", "default"))
_STR_OR_NONE = (str, type(None))


def fast_prompt(p):
    """The common prompt shape (text messages, plain arguments) validated with direct
    checks: a ``Prompt``, or None for anything else or anything wrong, which the full
    validator then examines and reports. About 4x cheaper than the full validator."""
    if type(p) is not dict or not _FAST_PROMPT_KEYS.issuperset(p):
        return None
    name = p.get("name")
    title = p.get("title")
    description = p.get("description")
    if type(name) is not str or not name or type(title) not in _STR_OR_NONE \
            or type(description) not in _STR_OR_NONE or (not name.isascii() and _surrogate_at(name) >= 0):
        return None
    raw_args = p.get("arguments", ())
    if type(raw_args) is not list and raw_args != ():
        return None
    arguments = []
    names = set()
    for a in raw_args:
        if type(a) is not dict or not _FAST_ARG_KEYS.issuperset(a):
            return None
        arg_name = a.get("name")
        arg_title = a.get("title")
        arg_description = a.get("description")
        required = a.get("required", False)
        default = a.get("default")
        if type(arg_name) is not str or not arg_name or arg_name in names \
                or (not arg_name.isascii() and _surrogate_at(arg_name) >= 0) \
                or type(arg_title) not in _STR_OR_NONE or type(arg_description) not in _STR_OR_NONE \
                or type(default) not in _STR_OR_NONE or type(required) is not bool \
                or (required and default is not None):
            return None
        names.add(arg_name)
        arguments.append(PromptArgument(arg_name, arg_title, arg_description, required, default))
    raw_msgs = p.get("messages")
    if type(raw_msgs) is not list or not raw_msgs:
        return None
    messages = []
    for m in raw_msgs:
        if type(m) is not dict or len(m) != 2:
            return None
        role = m.get("role")
        text = m.get("text")
        if type(text) is not str or (role != "user" and role != "assistant"):
            return None
        try:
            tpl = parse_template(text)
        except ValueError:
            return None
        templated = []
        if type(tpl) is Template:
            if not names.issuperset(tpl.names):
                return None
            templated.append(("text", None, tpl))
        else:
            text = tpl  # {{ and }} undone
        messages.append(({"role": role, "content": {"type": "text", "text": text}}, templated))
    return Prompt(name, title, description, None, None, arguments, messages)
