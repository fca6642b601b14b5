"""Content blocks: validated from a config or a ``render`` result, filled in with argument
values, and shaped for the revision a client speaks. Imported by the first prompt that
has one (or ``_meta``, or icons): a config of text prompts is served without it.

A block is served from the validated dict itself: its templated fields (a text block's
text, a resource's text and uri, a resource link's uri) are filled in as each get is
answered (``fill_block``). Shaping asks the revision what it defines: fields and block
types it does not know are left out or converted, never sent raw to an older client.
"""

from .. import codec
from .check import ALNUM, LETTERS, ROLES, Check, describe, join, plain, shown
from .template import Template, check_template, fill, parse_template

_BLOCK_KEYS = {
    "text": ("type", "text", "annotations", "_meta"),
    **dict.fromkeys(("image", "audio"), ("type", "data", "mimeType", "annotations", "_meta")),
    "resource": ("type", "resource", "annotations", "_meta"),
    "resource_link": ("type", "uri", "name", "title", "description", "mimeType", "size",
                      "annotations", "icons", "_meta"),
}
_RESOURCE_KEYS = ("uri", "mimeType", "text", "blob", "_meta")
# type "/" subtype, RFC 6838 restricted-name characters, parameters allowed after ";"
_MIME_CHARS = ALNUM | frozenset("!#$&^_.+-")
_B64_ALPHABET = ALNUM | frozenset("+/")
_LABEL_CHARS = ALNUM | {"-"}
_NAME_CHARS = ALNUM | {"-", "_", "."}
#: the deepest a ``_meta`` nests: every reply that carries it is encoded within the recursion limit
#: (1000 on CPython and PyPy), with room for the stack that serves it (975 levels served on stdio, 978 failed)
MAX_META_DEPTH = 500


def _uri():
    from . import uri  # (a config without a uri field never loads it)
    return uri


# --- field checks ------------------------------------------------------------------------

def check_meta(check, obj, path):
    """``obj["_meta"]``, if present, must be an object that encodes as JSON (every reply
    that carries it would fail to encode otherwise) whose keys are valid ``_meta`` keys."""
    value = check.field(obj, "_meta", path, "object")
    if value is None:
        return
    level, depth = [value], 0  # (level by level: encoding it here, at load's shallow stack, is no proof)
    while level and (depth := depth + 1) <= MAX_META_DEPTH:
        # (each container once a level: a value held twice, or in a loop, doubled the next level's)
        level = list({id(v): v for x in level for v in (x.values() if isinstance(x, dict) else x)
                      if isinstance(v, (dict, list, tuple))}.values())
    if level:
        check.fail(join(path, "_meta"), "nested deeper than %d levels: flatten it" % MAX_META_DEPTH)
        return
    try:
        codec.dumps(value)
    except (ValueError, TypeError, RecursionError) as exc:
        check.fail(join(path, "_meta"), "expected JSON data: %s" % exc)
        return
    for key in value:
        if type(key) is not str:  # (a Python config's: JSON would make it a string)
            check.fail(join(path, "_meta"), "expected string keys, got %s" % describe(key))
        elif (problem := meta_key_problem(key)):
            check.fail(join(path, "_meta"), "%s is not a valid _meta key: %s" % (shown(key), problem))


def meta_key_problem(key):
    """What is wrong with ``key`` as a ``_meta`` key name, or "" (basic-overview "General
    fields", ``_meta`` "Key name format", 2025-06-18 on: an optional prefix of labels
    separated by dots, each of which MUST start with a letter and end with a letter or
    digit, then ``/``; a name that, unless empty, MUST begin and end with a letter or
    digit, with ``-``, ``_`` and ``.`` between)."""
    prefix, slash, name = key.rpartition("/")
    if slash and not all(label[:1] in LETTERS and label[-1:] in ALNUM and _LABEL_CHARS.issuperset(label)
                         for label in prefix.split(".")):
        return ("its prefix must be labels separated by dots, each beginning with a letter "
                "and ending with a letter or digit, only letters, digits and '-' between, "
                "then '/' (like com.example/)")
    if name and not (name[0] in ALNUM and name[-1] in ALNUM and _NAME_CHARS.issuperset(name)):
        return ("its name (after any prefix and '/') must begin and end with a letter or "
                "digit, only letters, digits, '-', '_' and '.' between")
    return ""


def _check_mime(check, obj, path, required):
    """``obj["mimeType"]``: a string shaped like a MIME type (the prompts page, "Data Types":
    image and audio content MUST include a valid MIME type (audio from 2025-03-26 on), an
    embedded resource MUST include "the appropriate MIME type")."""
    value = check.field(obj, "mimeType", path, "string", required=required)
    if value is None:
        return
    kind, slash, subtype = value.split(";", 1)[0].rstrip(" ").partition("/")
    if not (slash and kind[:1].isalnum() and subtype[:1].isalnum() and _MIME_CHARS.issuperset(kind)
            and _MIME_CHARS.issuperset(subtype)):
        check.fail(path + ".mimeType", "expected a MIME type like 'image/png', got %s" % shown(value))


def _check_base64(check, obj, key, path, required=False):
    """``obj[key]``: a string of strict standard base64 (RFC 4648 section 4, padded), as the
    schema's ``byte`` format."""
    value = check.field(obj, key, path, "string", required=required)
    if value is None:
        return
    body = value.rstrip("=")
    if len(value) % 4 or len(value) - len(body) > 2 or not _B64_ALPHABET.issuperset(body):
        check.fail(path + "." + key, "expected base64 data")


def _check_uri(check, value, path, parts):
    """Record why uri ``value`` (``parts``: a ``Template``'s, or ``[value]``) is not an
    absolute URI; that reason, or ""."""
    problem = _uri().uri_problem(parts)
    if problem:
        check.fail(path, "expected an absolute URI, got %s: %s" % (shown(value), problem))
    return problem


def _check_annotations(check, ann, path):
    if check.obj(ann, path) is None:
        return
    check.keys(ann, path, ("audience", "priority", "lastModified"))
    for i, role in enumerate(check.field(ann, "audience", path, "list") or ()):
        if role not in ROLES:
            check.fail("%s.audience[%d]" % (path, i), "expected 'user' or 'assistant', got %s" % shown(role))
    priority = check.field(ann, "priority", path, "number")
    if priority is not None and not 0 <= priority <= 1:
        check.fail(path + ".priority", "expected a number from 0 to 1, got %s" % describe(priority))
    check.field(ann, "lastModified", path, "string")


def check_icons(check, obj, path):
    """``obj["icons"]``, if present: a list of ``{src, mimeType?, sizes?, theme?}``."""
    for i, icon in enumerate(check.field(obj, "icons", path, "list") or ()):
        ipath = "%s[%d]" % (join(path, "icons"), i)
        if check.obj(icon, ipath) is None:
            continue
        check.keys(icon, ipath, ("src", "mimeType", "sizes", "theme"))
        src = check.field(icon, "src", ipath, "string", required=True)
        if src is not None:
            _check_uri(check, src, ipath + ".src", [src])
        check.field(icon, "mimeType", ipath, "string")
        check.strings(icon, "sizes", ipath)
        check.one_of(icon, "theme", ipath, ("light", "dark"))


# --- blocks --------------------------------------------------------------------------------

def _text_field(check, obj, key, path, declared, uri=False):
    """``obj[key]``, a required string; templated unless ``declared`` is None (the final
    output of a ``render`` callable); a ``uri`` held to URI syntax first."""
    value = check.field(obj, key, path, "string", required=True)
    if value is None:
        return
    fpath, kind = join(path, key), _uri().UriTemplate if uri else Template
    if uri:
        try:
            parsed = parse_template(value, kind) if declared is not None else value
        except ValueError:
            parsed = None  # (check_template says what is wrong with it)
        if parsed is not None and _check_uri(check, value, fpath, [parsed] if type(parsed) is str else parsed.parts):
            return
    if declared is not None:
        check_template(check, value, fpath, declared, kind)


def check_block(check, block, path, declared=None):
    """Record every problem of one content block; ``declared``: the argument names its
    templated fields may use (None: the block is final, never templated)."""
    if check.obj(block, path) is None:
        return
    kind = block.get("type")
    if type(kind) is not str or kind not in _BLOCK_KEYS:
        check.fail(join(path, "type"), "expected one of %s, got %s" % (
            ", ".join(repr(k) for k in _BLOCK_KEYS), shown(kind)))
        return
    check.keys(block, path, _BLOCK_KEYS[kind])
    if kind == "text":
        _text_field(check, block, "text", path, declared)
    elif kind in ("image", "audio"):
        _check_base64(check, block, "data", path, required=True)
        _check_mime(check, block, path, True)
    elif kind == "resource":
        _check_resource(check, block, path, declared)
    else:
        _text_field(check, block, "uri", path, declared, uri=True)
        check.field(block, "name", path, "string", required=True)
        for key in ("title", "description", "mimeType"):
            check.field(block, key, path, "string")
        check.bounded(block, "size", path, 0, 2 ** 53 - 1)  # (what every JSON reader holds exactly)
        check_icons(check, block, path)
    if "annotations" in block:
        _check_annotations(check, block["annotations"], path + ".annotations")
    check_meta(check, block, path)


def _check_resource(check, block, path, declared):
    rpath = path + ".resource"
    res = check.field(block, "resource", path, "object", required=True)
    if res is None:
        return
    check.keys(res, rpath, _RESOURCE_KEYS)
    _text_field(check, res, "uri", rpath, declared, uri=True)
    _check_mime(check, res, rpath, False)  # (absent: a default is put in, see fill_block)
    check_meta(check, res, rpath)
    if ("text" in res) == ("blob" in res):
        check.fail(rpath, "expected exactly one of 'text' or 'blob'")
    elif "text" in res:
        _text_field(check, res, "text", rpath, declared)
    else:
        _check_base64(check, res, "blob", rpath)


def fill_block(block, values):
    """A configured block (valid) with its templated fields rendered with ``values`` (each
    uri value percent-encoded), and an embedded resource's default MIME type put in (prompts
    "Embedded Resources": MUST include the appropriate MIME type; docs/decisions.md)."""
    kind = block["type"]
    if kind == "text":
        return dict(block, text=fill(block["text"], values))
    if kind == "resource_link":
        return dict(block, uri=fill(block["uri"], values, _uri().UriTemplate))
    if kind != "resource":
        return block
    res = dict(block["resource"], uri=fill(block["resource"]["uri"], values, _uri().UriTemplate))
    if "text" in res:
        res["text"] = fill(res["text"], values)
    return with_mime_type(dict(block, resource=res))


def with_mime_type(block):
    """An embedded resource block with its default MIME type when it gives none."""
    res = block["resource"]
    return block if "mimeType" in res else dict(block, resource=dict(
        res, mimeType="text/plain" if "text" in res else "application/octet-stream"))


def templates(block):
    """``[(text, kind)]`` of a configured block's templated fields, for measuring what
    filling it in can make."""
    kind = block["type"]
    if kind == "text":
        return [(block["text"], Template)]
    if kind == "resource_link":
        return [(block["uri"], _uri().UriTemplate)]
    if kind == "resource":
        res = block["resource"]
        return [(res["uri"], _uri().UriTemplate)] + ([(res["text"], Template)] if "text" in res else [])
    return []


def rendered_messages(result, path="render()"):
    """What a ``render`` callable returned, as wire messages: a str, or a list (any
    sequence) of messages, at least one, each held to a config's rules (never templated).
    Returns ``(messages, problems)``."""
    result = plain(result)
    if type(result) is str:
        return [{"role": "user", "content": {"type": "text", "text": result}}], []
    check, out = Check(), []
    if type(result) is not list:
        check.fail(path, "expected a string or a list of messages, got %s" % describe(result))
    elif not result:
        check.fail(path, "expected at least one message")
    for i, msg in enumerate(result if type(result) is list else ()):
        check_message(check, msg, "%s[%d]" % (path, i), None)
        if not check.problems:
            block = msg["content"] if "content" in msg else {"type": "text", "text": msg["text"]}
            out.append({"role": msg["role"], "content": with_mime_type(block) if block["type"] == "resource"
                        else block})
    return out, check.problems


def check_message(check, msg, path, declared):
    """Record the problems of ``{role, text}`` or ``{role, content: {...block...}}``."""
    if check.obj(msg, path) is None:
        return
    check.keys(msg, path, ("role", "text", "content"))
    if "role" not in msg:
        check.fail(path, "missing required key 'role'")
    check.one_of(msg, "role", path, ROLES)
    if ("text" in msg) == ("content" in msg):
        check.fail(path, "expected exactly one of 'text' or 'content'")
    elif "text" in msg:
        text = check.field(msg, "text", path, "string")
        if text is not None and declared is not None and ("{" in text or "}" in text):
            check_template(check, text, path + ".text", declared)
    else:
        check_block(check, msg["content"], path + ".content", declared)


# --- shaping for older revisions ---------------------------------------------------------

def as_text(block):
    """The block's information as plain text (the text itself for a text block)."""
    kind = block["type"]
    if kind == "text":
        return block["text"]
    if kind == "resource_link":
        title = block.get("title")
        bits = ["%s (%s)" % (title, block["name"]) if title else block["name"], "<%s>" % block["uri"]]
        if block.get("mimeType"):
            bits.append("(%s)" % block["mimeType"])
        if block.get("size") is not None:
            bits.append("%d bytes" % block["size"])
        text = "[resource link] " + " ".join(bits)
        return text + ": " + block["description"] if block.get("description") else text
    if kind == "resource":
        res = block["resource"]
        head = "[resource <%s>%s" % (res["uri"], " (%s)" % res["mimeType"] if res.get("mimeType") else "")
        return head + "]\n" + res["text"] if "text" in res else head + ", base64] " + res["blob"]
    return "[%s %s, base64] %s" % (kind, block["mimeType"], block["data"])  # image, audio


def _text_block(text, annotations):
    return {"type": "text", "text": text} if annotations is None else {
        "type": "text", "text": text, "annotations": annotations}


def shape(block, rev):
    """The block as revision ``rev`` defines it.

    2025-11-25 prompts "Data Types" (PromptMessage) and the schema's ContentBlock list the
    content kinds; what an older revision does not know is never sent raw. Audio without
    ``rev.audio``, resource links without ``rev.resource_link``, and any block dated by
    ``annotations.lastModified`` without ``rev.last_modified`` become text blocks that
    carry the same information (the date as a last line); ``_meta`` and ``icons`` are
    dropped where the revision has no such field (docs/decisions.md).
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
    return {k: v for k, v in block.items() if k != "icons"} if not rev.icons and "icons" in block else block
