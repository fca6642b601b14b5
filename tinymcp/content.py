"""Content blocks and messages: validated from a config or a ``render`` result, shaped
for the revision a client speaks.

Validation records every problem in a ``Check``; templated fields (text, a resource's
text and uri, a resource link's uri) are parsed once, at load, into ``Template``
objects. Shaping asks the revision table (``revisions``) what the client's revision
defines: fields and block types it does not know are left out or converted, never sent
raw to an older client.
"""

from .errors import ConfigError
from .jsonrpc import encode
from .template import Template, parse_template
from .validate import ALNUM, LETTERS, Check, describe, is_list, join, shown

__all__ = ["ROLES", "content_from_wire", "message_from_wire", "messages_from_render",
           "shape_content", "as_text", "check_meta", "check_icons"]

ROLES = ("user", "assistant")

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
_MIME_CHARS = ALNUM | frozenset("!#$&^_.+-")
_B64_ALPHABET = ALNUM | frozenset("+/")


# --- field checks ----------------------------------------------------------------------

def check_meta(check, obj, path):
    """``obj["_meta"]``, if present, must be an object that encodes as JSON (no NaN or
    Infinity, no Python-only values: every reply that carries it would fail to encode)
    whose keys are valid ``_meta`` key names (``meta_key_problem``)."""
    value = check.field(obj, "_meta", path, "object")
    if value is None:
        return
    try:
        encode(value)
    except (ValueError, TypeError, RecursionError) as exc:
        check.fail(join(path, "_meta"), "expected JSON data: %s" % exc)
        return
    for key in value:
        if type(key) is not str:  # (a Python config's: JSON would make it a string, unchecked)
            check.fail(join(path, "_meta"), "expected string keys, got %s" % describe(key))
            continue
        problem = meta_key_problem(key)
        if problem:
            check.fail(join(path, "_meta"), "%s is not a valid _meta key: %s" % (shown(key), problem))


_LABEL_CHARS = ALNUM | {"-"}
_NAME_CHARS = ALNUM | {"-", "_", "."}


def meta_key_problem(key):
    """What is wrong with ``key`` as a ``_meta`` key name, or "" (basic-overview "General
    fields", ``_meta`` "Key name format", 2025-06-18 on: an optional prefix of labels
    separated by dots, each of which MUST start with a letter and end with a letter or
    digit, then ``/``; a name that, unless empty, MUST begin and end with a letter or
    digit, with ``-``, ``_`` and ``.`` between)."""
    prefix, slash, name = key.rpartition("/")
    if slash:
        for label in prefix.split("."):
            if not (label[:1] in LETTERS and label[-1:] in ALNUM and _LABEL_CHARS.issuperset(label)):
                return ("its prefix must be labels separated by dots, each beginning with a letter "
                        "and ending with a letter or digit, only letters, digits and '-' between, "
                        "then '/' (like com.example/)")
    if name and not (name[0] in ALNUM and name[-1] in ALNUM and _NAME_CHARS.issuperset(name)):
        return ("its name (after any prefix and '/') must begin and end with a letter or "
                "digit, only letters, digits, '-', '_' and '.' between")
    return ""


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


def _check_base64(check, value, path):
    """Strict standard base64 (RFC 4648 section 4, padded), as the schema's ``byte`` format."""
    body = value.rstrip("=")
    if len(value) % 4 or len(value) - len(body) > 2 or not _B64_ALPHABET.issuperset(body):
        check.fail(path, "expected base64 data")


_uri_module = None


def _uri():
    """The ``uri`` module, imported by the first uri field met (a config may have none)."""
    global _uri_module
    if _uri_module is None:
        from . import uri as _uri_module
    return _uri_module


def _uri_failed(check, value, path, parts):
    """Record why uri ``value`` (parsed into ``parts``, see ``uri.uri_problem``) is not
    an absolute URI; True if it is not."""
    problem = _uri().uri_problem(parts)
    if problem:
        check.fail(path, "expected an absolute URI, got %s: %s" % (shown(value), problem))
    return bool(problem)


def _check_annotations(check, value, path):
    """Check a block's ``annotations``; returns its ``audience`` as a list (or None)."""
    ann = check.obj(value, path)
    if ann is None:
        return None
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
    return audience


def check_icons(check, obj, path):
    """``obj["icons"]``, if present: a list of ``{src, mimeType?, sizes?, theme?}``.
    Returns the icons with lists where other sequences were given (the same object when
    every one was a list), or None."""
    value = out = check.field(obj, "icons", path, "list")
    path = join(path, "icons")
    for i, icon in enumerate(value or ()):
        ipath = "%s[%d]" % (path, i)
        icon = check.obj(icon, ipath)
        if icon is None:
            continue
        check.keys(icon, ipath, ("src", "mimeType", "sizes", "theme"))
        src = check.field(icon, "src", ipath, "string", required=True)
        if src is not None:
            _uri_failed(check, src, ipath + ".src", [src])
        check.field(icon, "mimeType", ipath, "string")
        sizes = check.strings(icon, "sizes", ipath)
        if sizes is not None and sizes is not icon["sizes"]:  # (a tuple: sent as a list)
            if out is obj["icons"]:
                out = list(out)
            out[i] = dict(icon, sizes=sizes)
        check.one_of(icon, "theme", ipath, ("light", "dark"))
    return out


class _Fields:
    """The templated fields of one block being validated: ``templated`` receives
    ``(key, subkey, Template)`` for fields with placeholders (None: the block is final
    output of a ``render`` callable, never templated), ``fixes`` the ``(key, subkey,
    text)`` of fields that only had ``{{``/``}}`` escapes to undo."""

    __slots__ = ("check", "templated", "fixes")

    def __init__(self, check, templated):
        self.check = check
        self.templated = templated
        self.fixes = []

    def template(self, value, path, key, sub=None, uri=False):
        """Parse field ``value`` as a template (a ``render`` result's is final: never
        parsed); a ``uri`` is held to URI syntax too (``uri.uri_problem``)."""
        tpl = value
        if self.templated is not None:
            try:
                tpl = parse_template(value)
            except ValueError as exc:
                self.check.fail(path, str(exc))
                return
        if uri:
            # prompts "Embedded Resources" (every revision): MUST include a valid resource
            # URI; the schema gives a resource link's uri format "uri" too
            if _uri_failed(self.check, value, path, tpl.parts if isinstance(tpl, Template) else [tpl]):
                return
            if isinstance(tpl, Template):
                tpl = _uri().UriTemplate(tpl.parts)
        if isinstance(tpl, Template):
            self.templated.append((key, sub, tpl))
        elif tpl != value:
            self.fixes.append((key, sub, tpl))

    def replace(self, block, key, sub, value):
        """Send ``value`` for ``block[key]`` (``[sub]``) when it is another object: a
        sequence given as something other than a list goes out as a list."""
        given = block.get(key) if sub is None else block[key].get(sub)
        if value is not None and value is not given:
            self.fixes.append((key, sub, value))

    def applied(self, block):
        """A copy of ``block`` with the fixed values (the caller's dict never changes)."""
        if not self.fixes:
            return block
        block = dict(block)
        for key, sub, value in self.fixes:
            if sub is None:
                block[key] = value
            else:
                block[key] = dict(block[key], **{sub: value})
        return block


# --- content blocks, one function per kind --------------------------------------------

def _text(check, block, path, fields):
    text = check.field(block, "text", path, "string", required=True)
    if text is not None:
        fields.template(text, path + ".text", "text")


def _binary(check, block, path, fields):  # image, audio
    data = check.field(block, "data", path, "string", required=True)
    if data is not None:
        _check_base64(check, data, path + ".data")
    _check_mime(check, block, path, True)


def _resource(check, block, path, fields):
    rpath = path + ".resource"
    res = check.field(block, "resource", path, "object", required=True)
    if res is None:
        return
    check.keys(res, rpath, _RESOURCE_KEYS)
    uri = check.field(res, "uri", rpath, "string", required=True)
    if uri is not None:
        fields.template(uri, rpath + ".uri", "resource", "uri", uri=True)
    _check_mime(check, res, rpath, False)  # (absent: a default is put in, see below)
    check_meta(check, res, rpath)
    if ("text" in res) == ("blob" in res):
        check.fail(rpath, "expected exactly one of 'text' or 'blob'")
    elif "text" in res:
        text = check.field(res, "text", rpath, "string")
        if text is not None:
            fields.template(text, rpath + ".text", "resource", "text")
    else:
        blob = check.field(res, "blob", rpath, "string")
        if blob is not None:
            _check_base64(check, blob, rpath + ".blob")


def _resource_link(check, block, path, fields):
    uri = check.field(block, "uri", path, "string", required=True)
    if uri is not None:
        fields.template(uri, path + ".uri", "uri", uri=True)
    check.field(block, "name", path, "string", required=True)
    for key in ("title", "description", "mimeType"):
        check.field(block, key, path, "string")
    size = check.field(block, "size", path, "integer")
    if size is not None and size < 0:
        check.fail(path + ".size", "expected a size of 0 or more, got %d" % size)
    fields.replace(block, "icons", None, check_icons(check, block, path))


_KINDS = {"text": _text, "image": _binary, "audio": _binary, "resource": _resource,
          "resource_link": _resource_link}


def content_from_wire(check, obj, path, templated=None):
    """Validate one content block; returns its wire dict (templates left as typed), or
    None when it has problems (recorded in ``check``).

    ``templated`` (a list) receives ``(key, subkey, Template)`` for fields with
    placeholders. ``None`` means the block is final output (from a ``render`` callable).
    """
    block = check.obj(obj, path)
    if block is None:
        return None
    kind = block.get("type")
    if type(kind) is not str or kind not in _BLOCK_KEYS:
        check.fail(join(path, "type"), "expected one of %s, got %s" % (
            ", ".join(repr(k) for k in _BLOCK_KEYS), shown(kind)))
        return None
    before = len(check.problems)
    check.keys(block, path, _BLOCK_KEYS[kind])
    fields = _Fields(check, templated)
    _KINDS[kind](check, block, path, fields)
    if "annotations" in block:
        audience = _check_annotations(check, block["annotations"], path + ".annotations")
        if audience is not None:
            fields.replace(block, "annotations", "audience", audience)
    check_meta(check, block, path)
    if len(check.problems) != before:
        return None
    if kind == "resource" and "mimeType" not in block["resource"]:
        # prompts "Embedded Resources": MUST include the appropriate MIME type; left out,
        # it is the generic one for the content (docs/decisions.md)
        res = block["resource"]
        block = dict(block, resource=dict(res, mimeType="text/plain" if "text" in res
                                          else "application/octet-stream"))
    return fields.applied(block)


def message_from_wire(check, obj, path, templated=None):
    """``{role, text}`` or ``{role, content: {...block...}}``; returns the wire message."""
    msg = check.obj(obj, path)
    if msg is None:
        return None
    before = len(check.problems)
    check.keys(msg, path, ("role", "text", "content"))
    role = msg.get("role")
    if role not in ROLES:
        check.fail(join(path, "role") if "role" in msg else path,
                   "expected 'user' or 'assistant', got %s" % shown(role)
                   if "role" in msg else "missing required key 'role'")
    if ("text" in msg) == ("content" in msg):
        check.fail(path, "expected exactly one of 'text' or 'content'")
        return None
    if "text" in msg:
        text = check.field(msg, "text", path, "string")
        if text is None:
            return None
        fields = _Fields(check, templated)
        fields.template(text, path + ".text", "text")
        block = fields.applied({"type": "text", "text": text})
    else:
        block = content_from_wire(check, msg["content"], path + ".content", templated)
    if block is None or len(check.problems) != before:
        return None
    return {"role": role, "content": block}


def messages_from_render(result, path="render()"):
    """Validate what a ``render`` callable returned: a str, or a list (any sequence) of
    messages, at least one, each as a config's (only never templated)."""
    if isinstance(result, str):
        return [{"role": "user", "content": {"type": "text", "text": result}}]
    check = Check()
    out = []
    if not is_list(result):
        check.fail(path, "expected a string or a list of messages, got %s" % describe(result))
    elif not result:
        check.fail(path, "expected at least one message")  # (as a config's messages)
    else:
        for i, item in enumerate(result):
            out.append(message_from_wire(check, item, "%s[%d]" % (path, i)))
    if check.problems:
        raise ConfigError(check.problems)
    return out


# --- shaping for older revisions ---------------------------------------------------------

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


def as_text(block):
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


def _text_block(text, annotations):
    block = {"type": "text", "text": text}
    if annotations is not None:
        block["annotations"] = annotations
    return block


def shape_content(block, rev):
    """The block as revision ``rev`` defines it (called when ``rev.content_as_is`` is false
    and ``methods.needs_shaping(block)``).

    2025-11-25 prompts "Prompt Messages" lists the content kinds; what an older revision
    does not know is never sent raw. Audio without ``rev.audio``, resource links without
    ``rev.resource_link``, and any block dated by ``annotations.lastModified`` without
    ``rev.last_modified`` become text blocks that carry the same information (the date
    as a last line); ``_meta`` and ``icons`` are dropped where the revision has no such
    field (docs/decisions.md).
    """
    kind = block["type"]
    if (kind == "audio" and not rev.audio) or (kind == "resource_link" and not rev.resource_link):
        block = _text_block(as_text(block), block.get("annotations"))
    ann = block.get("annotations")
    if not rev.last_modified and ann and "lastModified" in ann:
        block = _text_block("%s\n[last modified %s]" % (as_text(block), ann["lastModified"]),
                            {k: v for k, v in ann.items() if k != "lastModified"} or None)
    if not rev.meta:
        if "_meta" in block:
            block = {k: v for k, v in block.items() if k != "_meta"}
        res = block.get("resource")
        if res and "_meta" in res:
            block = dict(block, resource={k: v for k, v in res.items() if k != "_meta"})
    if not rev.icons and "icons" in block:
        block = {k: v for k, v in block.items() if k != "icons"}
    return block
