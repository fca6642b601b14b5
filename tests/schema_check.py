"""Tiny JSON-Schema-subset validator for the MCP spec schemas (test helper).

Standard library only, CPython 3.8+.  Supports the keywords used by the five MCP
schemas (draft-07 ``definitions`` / 2020-12 ``$defs``): see SUPPORTED_KEYWORDS; a test
asserts that no schema uses a keyword outside SUPPORTED_ | ANNOTATION_KEYWORDS.

Semantic decisions (documented because they are subtle):
* ``$ref`` is a local JSON pointer ("#/definitions/X", "#/$defs/X", any "#/a/b").
  Sibling keywords next to ``$ref`` are also applied (2020-12 behaviour; in these
  schemas the only siblings are ``description`` annotations, so draft-07 agrees).
* ``integer`` accepts Python ``int`` and integral ``float`` (1.0), as JSON Schema
  defines it; ``number`` accepts int/float.  ``bool`` is never a number/integer.
* ``enum``/``const`` compare with JSON equality: ``True`` != ``1``, ``1`` == ``1.0``.
* ``additionalProperties`` only looks at ``properties``/``patternProperties`` of the
  *same* schema object (not at siblings reached through allOf/$ref).
* ``format: "uri"`` is asserted (RFC 3986: a scheme, then only URI characters and
  %-escapes): the prompts page's "valid resource URI" MUST. Other formats, ``description``,
  ``title`` ... are annotations and are ignored.
* A ``type`` mismatch stops further checks at that node (avoids noise).
"""
import json
import os
import re
import runpy
from functools import lru_cache
from pathlib import Path

# the revisions and the cache folder as scripts/fetch-spec has them (one place to bump)
_FETCH_SPEC = runpy.run_path(str(Path(__file__).resolve().parents[1] / "scripts" / "fetch-spec"))
REVISIONS = _FETCH_SPEC["REVISIONS"]
#: where scripts/fetch-spec puts the schemas (a cache outside the repo), tried last
FETCHED = Path(_FETCH_SPEC["cache_dir"]())


def _spec_dir():
    """$TINYMCP_SPEC_DIR, else ../shared/spec beside the clone, else the fetched cache."""
    if os.environ.get("TINYMCP_SPEC_DIR"):
        return Path(os.environ["TINYMCP_SPEC_DIR"])
    shared = Path(__file__).resolve().parents[1].parent / "shared" / "spec"
    return shared if shared.is_dir() or not FETCHED.is_dir() else FETCHED


SPEC_DIR = _spec_dir()


def missing_revisions(revisions=REVISIONS):
    """The ``revisions`` whose schema.json is not in SPEC_DIR."""
    return [rev for rev in revisions if not (SPEC_DIR / rev / "schema.json").is_file()]


def skip_reason(revisions=REVISIONS):
    """Why the schema tests skip: which revisions are missing, and the command that gets them."""
    return ("MCP spec schemas missing for %s under %s: run scripts/fetch-spec (or put the spec at "
            "../shared/spec beside the clone, or set TINYMCP_SPEC_DIR)"
            % (", ".join(missing_revisions(revisions)), SPEC_DIR))

SUPPORTED_KEYWORDS = frozenset((
    "$ref", "type", "enum", "const", "anyOf", "oneOf", "allOf", "properties",
    "required", "additionalProperties", "patternProperties", "items",
    "minItems", "maxItems", "minimum", "maximum"))
ANNOTATION_KEYWORDS = frozenset((
    "$schema", "$id", "$comment", "definitions", "$defs", "description", "title",
    "format", "default", "examples", "deprecated", "readOnly", "writeOnly"))

_JSON_TYPES = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool))
    or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9._~:/?#\[\]@!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*\Z")


# ----------------------------------------------------------------- schema access
@lru_cache(maxsize=None)
def load_schema(rev):
    """The parsed schema.json of revision ``rev`` (cached; do not mutate)."""
    with open(str(SPEC_DIR / rev / "schema.json"), encoding="utf-8") as f:
        return json.load(f)


def _defs(root):
    return root.get("$defs") or root.get("definitions") or {}


def definition_names(rev):
    return sorted(_defs(load_schema(rev)))


def _resolve(ref, root):
    if not ref.startswith("#"):
        raise ValueError("only local $ref supported: %r" % ref)
    node = root
    for part in ref[1:].split("/")[1:]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


# ----------------------------------------------------------------- core checker
def _type_name(v):
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _JSON_TYPES[name](v):
            return name
    return type(v).__name__


def _json_eq(a, b):
    """JSON equality: bools are not numbers, 1 == 1.0, containers compared deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_eq(a[k], b[k]) for k in a)
    num = (int, float)
    if isinstance(a, num) and isinstance(b, num):
        return a == b
    return type(a) is type(b) and a == b


def _j(v):  # display a value in an error message (tolerates non-JSON values)
    return json.dumps(v, default=repr)


def _key_path(path, key):
    return "%s.%s" % (path, key) if _IDENT.match(key) else "%s[%s]" % (path, json.dumps(key))


def _check(inst, schema, root, path):
    """Return the list of error strings for ``inst`` against ``schema``."""
    if schema is True or schema == {}:
        return []
    if schema is False:
        return ["%s: no value is allowed here" % path]
    errs = []
    if "$ref" in schema:
        errs += _check(inst, _resolve(schema["$ref"], root), root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_JSON_TYPES[t](inst) for t in types):
            return errs + ["%s: expected %s, got %s" % (path, " or ".join(types), _type_name(inst))]
    if "enum" in schema and not any(_json_eq(inst, e) for e in schema["enum"]):
        errs.append("%s: %s is not one of %s" % (path, _j(inst), _j(schema["enum"])))
    if schema.get("format") == "uri" and isinstance(inst, str) and not _URI.match(inst):
        errs.append("%s: %s is not an absolute URI" % (path, _j(inst)))
    if "const" in schema and not _json_eq(inst, schema["const"]):
        errs.append("%s: expected const %s, got %s" % (path, _j(schema["const"]), _j(inst)))
    for sub in schema.get("allOf", ()):
        errs += _check(inst, sub, root, path)
    for kw in ("anyOf", "oneOf"):
        if kw in schema:
            errs += _check_alternatives(kw, inst, schema[kw], root, path)
    if _JSON_TYPES["number"](inst):
        if "minimum" in schema and inst < schema["minimum"]:
            errs.append("%s: %s is less than minimum %s" % (path, inst, schema["minimum"]))
        if "maximum" in schema and inst > schema["maximum"]:
            errs.append("%s: %s is greater than maximum %s" % (path, inst, schema["maximum"]))
    elif isinstance(inst, list):
        if "minItems" in schema and len(inst) < schema["minItems"]:
            errs.append("%s: fewer than %d items" % (path, schema["minItems"]))
        if "maxItems" in schema and len(inst) > schema["maxItems"]:
            errs.append("%s: more than %d items (%d)" % (path, schema["maxItems"], len(inst)))
        if isinstance(schema.get("items"), (dict, bool)):  # tuple-form items unused by MCP
            for i, item in enumerate(inst):
                errs += _check(item, schema["items"], root, "%s[%d]" % (path, i))
    elif isinstance(inst, dict):
        errs += _check_object(inst, schema, root, path)
    return errs


def _check_object(inst, schema, root, path):
    errs = ["%s: missing required property %r" % (path, k)
            for k in schema.get("required", ()) if k not in inst]
    props = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    for key, value in inst.items():
        kpath = _key_path(path, key)
        if key in props:
            errs += _check(value, props[key], root, kpath)
        matched = [p for p in patterns if re.search(p, key)]
        for p in matched:
            errs += _check(value, patterns[p], root, kpath)
        # additionalProperties: only keys unknown to *this* object's properties
        # and patternProperties (never siblings reached via allOf/$ref).
        if key not in props and not matched and "additionalProperties" in schema:
            extra = schema["additionalProperties"]
            if extra is False:
                errs.append("%s: additional property %r is not allowed" % (path, key))
            else:
                errs += _check(value, extra, root, kpath)
    return errs


def _check_alternatives(kw, inst, branches, root, path):
    results = [_check(inst, b, root, path) for b in branches]
    passing = [i for i, r in enumerate(results) if not r]
    if kw == "oneOf" and len(passing) > 1:
        return ["%s: matches %d oneOf branches %s, expected exactly one" % (path, len(passing), passing)]
    if passing:
        return []
    # Nothing matched: report a summary plus the "closest" branch = fewest errors
    # (for discriminated unions like ContentBlock that is the branch whose `type`
    # const matched, since the others also fail const + their own required keys).
    best = min(range(len(results)), key=lambda i: len(results[i]))
    ref = branches[best].get("$ref", "") if isinstance(branches[best], dict) else ""
    label = ref.rsplit("/", 1)[-1] or "#%d" % best
    return ["%s: matches none of the %d %s branches; closest is %s:" % (path, len(branches), kw, label)] \
        + results[best]


# ----------------------------------------------------------------- public API
def validate_against(instance, schema, root=None, path="$"):
    """Errors for ``instance`` against ``schema``; ``root`` resolves $ref (default: schema)."""
    return _check(instance, schema, schema if root is None else root, path)


def validate(instance, rev, defname, path="$"):
    """Errors for ``instance`` against definition ``defname`` of revision ``rev``."""
    root = load_schema(rev)
    if defname not in _defs(root):
        return ["%s: no definition %r in %s" % (path, defname, rev)]
    return _check(instance, _defs(root)[defname], root, path)


@lru_cache(maxsize=None)
def _method_defs(rev):
    """{method: definition name} for every definition whose `method` has a const.

    2026-07-28 quirk: ``ClientNotification`` is itself a copy of CancelledNotification,
    so the Client*/Server* union names are skipped."""
    out = {}
    for name, d in sorted(_defs(load_schema(rev)).items()):
        const = (d.get("properties", {}).get("method") or {}).get("const")
        if const is not None and not name.startswith(("Client", "Server")):
            out.setdefault(const, name)
    return out


def _union_members(rev, union):
    d = _defs(load_schema(rev)).get(union) or {}
    return {b.get("$ref", "").rsplit("/", 1)[-1] for b in d.get("anyOf", ())}


def _pick(rev, *names):
    defs = _defs(load_schema(rev))
    return next((n for n in names if n in defs), None)


# The schemas do not link requests to results; this is the naming convention.
_RESULT_FOR = {
    "initialize": ("InitializeResult",),
    "ping": ("EmptyResult", "Result"),
    "logging/setLevel": ("EmptyResult", "Result"),
    "prompts/list": ("ListPromptsResult",),
    "prompts/get": ("GetPromptResult",),
    "completion/complete": ("CompleteResult",),
    "server/discover": ("DiscoverResult",),
    "subscriptions/listen": ("SubscriptionsListenResult",),
}


def result_definition(rev, method):
    """Name of the result definition for a request ``method`` in ``rev`` (or None)."""
    request = _method_defs(rev).get(method)
    if request is None or not request.endswith("Request"):
        return None
    return _pick(rev, *(_RESULT_FOR.get(method, ()) + (request[:-7] + "Result",)))


def check_server_message(rev, msg, request_method=None):
    """Errors for one message (or a 2025-03-26 batch) written by a server."""
    if isinstance(msg, list):
        if _pick(rev, "JSONRPCBatchResponse") is None:
            return ["$: JSON-RPC batches are not allowed in %s" % rev]
        if not msg:
            return ["$: empty batch response"]
        errs = []
        for i, item in enumerate(msg):
            m = request_method[i] if isinstance(request_method, (list, tuple)) else request_method
            errs += ["$[%d]%s" % (i, e[1:]) for e in check_server_message(rev, item, m)]
        return errs
    if not isinstance(msg, dict):
        return ["$: expected object, got %s" % _type_name(msg)]
    if "method" in msg:  # notification (no id) or server->client request (id)
        kind = "Request" if "id" in msg else "Notification"
        errs = validate(msg, rev, "JSONRPC" + kind)
        method = msg["method"] if isinstance(msg["method"], str) else None
        specific = _method_defs(rev).get(method)
        allowed = _union_members(rev, "Server" + kind)  # empty: no ServerRequest (2026)
        if not allowed:
            errs.append("$: servers send no %ss in %s" % (kind.lower(), rev))
        elif specific is not None and specific.endswith(kind):
            if specific not in allowed:
                errs.append("$.method: %r is not a server %s in %s" % (method, kind.lower(), rev))
            errs += validate(msg, rev, specific)
        return errs
    if "error" in msg:
        errs = validate(msg, rev, _pick(rev, "JSONRPCError", "JSONRPCErrorResponse"))
        return errs + (["$: has both 'result' and 'error'"] if "result" in msg else [])
    if "result" not in msg:
        return ["$: neither a notification, a request, a result nor an error response"]
    errs = validate(msg, rev, _pick(rev, "JSONRPCResultResponse", "JSONRPCResponse"))
    result = msg["result"]
    # Beyond the schema (which only says "string"): 2026-07-28 basic-overview defines
    # exactly two resultType values and says any other value MUST be treated as invalid.
    if _pick(rev, "ResultType") and isinstance(result, dict) and "resultType" in result \
            and result["resultType"] not in ("complete", "input_required"):
        errs.append("$.result.resultType: %s is not 'complete' or 'input_required'"
                    % _j(result["resultType"]))
    if request_method is not None:  # (envelope and result both check Result: dedupe)
        if isinstance(result, dict) and result.get("resultType") == "input_required" \
                and _pick(rev, "InputRequiredResult"):
            name = "InputRequiredResult"  # 2026-07-28 multi round-trip interim result
        else:
            name = result_definition(rev, request_method)
        if name is None:
            errs.append("$.result: no result type for method %r in %s" % (request_method, rev))
        else:
            errs += validate(result, rev, name, path="$.result")
    return list(dict.fromkeys(errs))
