"""Serving prompts: the prompt set and its pages, argument checks, rendering, completion.

Sans-I/O, and no protocol framing: the method handlers (``methods``) call these with
validated values and shape what they return for the client's revision.
"""

from .errors import CallbackFailed, ConfigError, InvalidParams, clip
from .jsonrpc import escaped_size
from .models import build_plain, content_module, fill_of, listings
from .validate import describe

__all__ = ["PromptSet", "EncodedCache", "encode_cursor", "decode_cursor", "check_arguments", "render",
           "rendered_size", "render_too_big", "completion", "capped", "MAX_COMPLETIONS"]

#: 2025-11-25 completion "Completion Results": at most 100 values per response (2026-07-28
#: schema: CompleteResult.completion.values maxItems 100).
MAX_COMPLETIONS = 100


class PromptSet:
    """Prompts by name, listed in their declared order (config order; for a Python
    caller, list order), with stable cursors.

    An entry is a ``Prompt``, or the plain dict of one that ``plain_prompt`` accepted at
    load (a config the loader owns: nobody else holds or changes the dicts). A plain one
    is listed straight from its dict and built when it is first got; at most
    ``BUILT_KEPT`` built ones are kept, so memory stays near the size of the config
    however many prompts are fetched.
    """

    __slots__ = ("by_name", "names", "_built", "_position", "_after")

    BUILT_KEPT = 1024
    #: the last prompts of pages served, remembered so that a walk page by page finds
    #: where the next page starts without indexing every name
    AFTER_KEPT = 256

    def __init__(self, prompts):
        self.by_name = prompts if type(prompts) is dict else {p.name: p for p in prompts}
        self.names = list(self.by_name)  # the declared order
        self._built = {}  # name -> the Prompt built from its plain dict, oldest first
        self._position = None  # name -> its index in names, made when a cursor needs it
        self._after = {}  # the last name of a page served -> where the next page starts

    def __len__(self):
        return len(self.names)

    def __eq__(self, other):
        """The same prompts, serving the same things (what a reload compares)."""
        if type(other) is not PromptSet or self.names != other.names:
            return False  # (other names, or the same in another order: listed otherwise)
        theirs = other.by_name
        for name, entry in self.by_name.items():
            other_entry = theirs[name]
            if type(entry) is dict and type(other_entry) is dict:
                if entry != other_entry:
                    return False
            elif self.get(name) != other.get(name):
                return False
        return True

    __hash__ = None

    def get(self, name):
        """The ``Prompt`` named ``name``, or None."""
        entry = self.by_name.get(name)
        if type(entry) is not dict:
            return entry
        built = self._built.get(name)
        if built is None:
            built = build_plain(entry)
            if len(self._built) >= self.BUILT_KEPT:
                del self._built[next(iter(self._built))]
            self._built[name] = built
        return built

    def page(self, cursor, size, scope, rev):
        """``(listings, next_cursor)``: the ``Prompt`` objects of one ``prompts/list``
        page as revision ``rev`` defines them; ``next_cursor`` is None on the last page.
        The listings may share dicts with the config and its built prompts: the caller
        encodes them and never changes them.

        A cursor names the last prompt of the previous page (by name, not offset), so
        the next page starts after that prompt wherever it now is: prompts added or
        removed elsewhere meanwhile cause neither duplicates nor skips of the others
        (pagination: cursors are opaque to the client and stable for the server). When
        that prompt itself is gone, the position is gone: -32602 "Invalid cursor", and the
        client starts over. ``scope`` is sealed into the cursor: one made under another
        scope is invalid.
        """
        if cursor is None:
            start = 0
        else:
            last = decode_cursor(cursor, scope)
            start = self._after.get(last)
            if start is None:
                position = self._position
                if position is None:
                    position = self._position = {name: i for i, name in enumerate(self.names)}
                start = position.get(last)
                if start is None:
                    raise InvalidParams("Invalid cursor")
                start += 1
        end = start + size
        names = self.names[start:end]
        listed = listings(map(self.by_name.__getitem__, names), rev)
        if end >= len(self.names):
            return listed, None
        after = self._after
        if len(after) >= self.AFTER_KEPT and names[-1] not in after:
            del after[next(iter(after))]
        after[names[-1]] = end
        return listed, encode_cursor(names[-1], scope)


class EncodedCache:
    """Encoded results by key, at most ``MAX_BYTES`` of them (the oldest go first), each
    kept from the second time it is made: a page asked for again is then sent without
    being listed and encoded again, and a client that walks the pages once has the
    server keep none of them (nor fault in their memory). Each config has its own, so a
    change starts it afresh."""

    __slots__ = ("_data", "_size", "_made")

    MAX_BYTES = 2 * 1024 * 1024
    #: the keys made once and not kept, remembered (the oldest forgotten past this many)
    MADE_KEPT = 1024

    def __init__(self):
        self._data = {}
        self._size = 0
        self._made = {}  # (an ordered set)

    def get(self, key):
        return self._data.get(key)

    def put(self, key, data):
        if len(data) > self.MAX_BYTES:
            return
        made = self._made
        if not made.pop(key, False):  # (made for the first time: remembered, not kept)
            if len(made) >= self.MADE_KEPT:
                del made[next(iter(made))]
            made[key] = True
            return
        cache = self._data
        old = cache.pop(key, None)
        if old is not None:
            self._size -= len(old)
        while cache and self._size + len(data) > self.MAX_BYTES:
            self._size -= len(cache.pop(next(iter(cache))))
        cache[key] = data
        self._size += len(data)


# Cursor = urlsafe base64 of (4-byte CRC of the scope and name, name). The CRC and a
# canonical re-encoding reject tampered or foreign cursors instead of silently restarting
# at 0. The scope (a stateless listing's cacheScope, "" in the handshake era) is in the
# CRC: 2026-07-28 caching "Interaction with Pagination": the same scope MUST apply to
# every page, so after a reload that changed it, an old listing's cursor is invalid and
# the client starts over (not a page 2 under another scope).
_CURSOR_SALT = b"tinymcp-cursor-1\0"
# RFC 4648 section 5 (base64url), by hand: the base64 module's import costs more than a
# prompts/list
_TO_URLSAFE = bytes.maketrans(b"+/", b"-_")
_FROM_URLSAFE = bytes.maketrans(b"-_", b"+/")


def encode_cursor(name, scope=""):
    import binascii  # (a shared library: loaded with the first page, not at start)
    raw = name.encode("utf-8")
    sealed = scope.encode("ascii") + b"\0" if scope else b""  # ("": the cursors made before scopes)
    tag = binascii.crc32(_CURSOR_SALT + sealed + raw).to_bytes(4, "big")
    return binascii.b2a_base64(tag + raw, newline=False).translate(_TO_URLSAFE).decode("ascii").rstrip("=")


def decode_cursor(cursor, scope=""):
    # 2025-11-25 pagination "Error Handling": invalid cursors SHOULD be -32602.
    bad = InvalidParams("Invalid cursor")
    if not isinstance(cursor, str) or not cursor:  # (its length is bounded by max_line_bytes)
        raise bad
    import binascii
    try:
        raw = binascii.a2b_base64(cursor.encode("ascii").translate(_FROM_URLSAFE)
                                  + b"=" * (-len(cursor) % 4))
        name = raw[4:].decode("utf-8")
    except (ValueError, binascii.Error):
        raise bad
    if len(raw) < 5 or encode_cursor(name, scope) != cursor:
        raise bad
    return name


def check_arguments(prompt, arguments, limits):
    """Validate ``prompts/get`` arguments against the prompt's declaration (-32602: 2025-11-25
    prompts "Error Handling", missing required arguments; "Implementation Considerations":
    servers SHOULD validate prompt arguments)."""
    if arguments is None:
        arguments = {}
    elif type(arguments) is not dict:
        raise InvalidParams("Invalid params: arguments must be an object of strings, got %s"
                            % describe(arguments))
    if len(arguments) > limits.max_arguments:
        raise InvalidParams("Invalid params: %d arguments exceed the limit of %d (max_arguments)"
                            % (len(arguments), limits.max_arguments))
    declared = prompt.by_arg
    size = 0
    for key, value in arguments.items():  # one pass for the common, valid case
        if type(value) is not str or key not in declared:
            _argument_problems(prompt, arguments)
        size += len(key) + len(value)
    for name in prompt.required:
        if not arguments.get(name):  # absent, or blank: a form's empty field is not a value
            _argument_problems(prompt, arguments)
    if size * 4 > limits.max_argument_bytes:  # cheap bound first: UTF-8 is at most 4 bytes a char
        size = sum(len(k.encode("utf-8", "surrogatepass")) + len(v.encode("utf-8", "surrogatepass"))
                   for k, v in arguments.items())
        if size > limits.max_argument_bytes:
            raise InvalidParams("Invalid params: arguments of %d bytes exceed the limit of %d "
                                "(max_argument_bytes)" % (size, limits.max_argument_bytes))
    fill = prompt.fill
    if fill is None:
        fill = prompt.fill = fill_of(prompt)
    placeholders, fixed = fill
    if fixed + placeholders * size > limits.max_render_bytes:  # (a value fills many placeholders)
        _check_render_size(prompt, arguments, limits)
    return arguments


def _check_render_size(prompt, arguments, limits):
    """Refuse, before any of it is made, a rendering of more characters than
    ``max_render_bytes`` (each is a byte on the wire at least): a short template that
    repeats a long value would otherwise be built whole first. Fewer are rendered, then
    measured exactly (``render_too_big``)."""
    values = argument_values(prompt, arguments)
    tpls = templates(prompt)
    if sum(tpl.size(values) for tpl in tpls) > limits.max_render_bytes:
        size = rendered_size(filled(prompt, [""] * len(tpls)), escaped_size) \
            + sum(tpl.size(values, escaped_size) for tpl in tpls)
        raise render_too_big(size, limits)


def render_too_big(size, limits):
    """The -32602 for a rendering of ``size`` bytes on the wire over ``max_render_bytes``."""
    return InvalidParams("Invalid params: the rendered prompt (%d bytes on the wire) exceeds the "
                         "limit of %d (max_render_bytes)" % (size, limits.max_render_bytes))


def _argument_problems(prompt, arguments):
    """Raise the -32602 that names every problem with ``arguments``."""
    declared = prompt.by_arg
    problems = []
    bad_types = [k for k, v in arguments.items() if not isinstance(v, str)]
    if bad_types:
        problems.append("argument values must be strings: %s" % _names(bad_types))
    unknown = [k for k in arguments if k not in declared]
    if unknown:
        problems.append("undeclared arguments: %s" % _names(unknown))
    missing = [n for n in prompt.required if n not in arguments]
    if missing:
        problems.append("missing required arguments: %s" % _names(missing))
    blank = [n for n in prompt.required if arguments.get(n) == ""]
    if blank:
        problems.append("required arguments left blank: %s" % _names(blank))
    raise InvalidParams("Invalid arguments for prompt %s: %s" % (clip(prompt.name), "; ".join(problems)))


def rendered_size(messages, measure=len):
    """Characters of text, data and URIs in rendered messages; with ``measure=escaped_size``,
    the bytes they take on the wire (for max_render_bytes)."""
    size = 0
    for msg in messages:
        block = msg["content"]
        if len(block) == 2 and "text" in block:  # {"type": "text", "text": ...}, the common case
            size += measure(block["text"])
            continue
        for key in ("text", "data", "uri"):
            value = block.get(key)
            if value is not None:
                size += measure(value)
        res = block.get("resource")
        if res is not None:
            size += measure(res.get("text") or res.get("blob") or "") + measure(res.get("uri", ""))
    return size


def _names(names, most=10):
    shown = ", ".join(clip(n, 40) for n in names[:most])
    return shown + (" and %d more" % (len(names) - most) if len(names) > most else "")


def render(prompt, arguments):
    """The prompt's messages with ``arguments`` (already checked) filled in.

    Optional arguments that were not given take their ``default``, or "".
    Raises ``CallbackFailed`` when a ``render`` callable fails, whatever it raises:
    ``SystemExit``, ``KeyboardInterrupt`` and ``GeneratorExit`` too, which fail this
    request and nothing else (docs/security.md).
    """
    values = argument_values(prompt, arguments)
    if prompt.render_fn is not None:
        return _rendered(prompt, values)
    return filled(prompt, [tpl.render(values) for tpl in templates(prompt)])


def argument_values(prompt, arguments):
    """What ``prompt``'s templates (or ``render`` callable) read: ``arguments`` (already
    checked) over the declared defaults."""
    return _with_defaults(prompt.defaults, arguments) if prompt.defaults else arguments


def templates(prompt):
    """The templates of ``prompt`` (one without a ``render`` callable), in the order
    ``filled`` takes their texts."""
    return [tpl for _, templated in prompt.messages for _, _, tpl in templated]


def filled(prompt, texts):
    """``prompt``'s messages with its templated fields set to ``texts``, in order."""
    texts = iter(texts)
    out = []
    for msg, templated in prompt.messages:
        if templated:
            block = dict(msg["content"])
            for key, sub, _ in templated:
                if sub is None:
                    block[key] = next(texts)
                else:
                    if block[key] is msg["content"][key]:
                        block[key] = dict(block[key])
                    block[key][sub] = next(texts)
            msg = {"role": msg["role"], "content": block}
        out.append(msg)
    return out


def _rendered(prompt, values):
    """The messages of ``prompt``'s ``render`` callable, held to a config's rules (at least
    one, each valid); ``CallbackFailed`` for whatever it raises (``SystemExit`` too: it
    fails this request, not the server) or for an invalid result, which it names."""
    try:
        result = prompt.render_fn(dict(values))
    except BaseException as exc:
        raise CallbackFailed("render callable of prompt %r failed" % prompt.name) from exc
    try:
        return content_module().messages_from_render(result)
    except ConfigError as exc:
        raise CallbackFailed("render callable of prompt %r returned an invalid result: %s" % (
            prompt.name, "; ".join("%s: %s" % problem for problem in exc.problems))) from exc
    except BaseException as exc:  # (raised by an odd object it returned)
        raise CallbackFailed("render callable of prompt %r returned an unusable result"
                             % prompt.name) from exc


def _with_defaults(defaults, arguments):
    """``arguments`` over the declared ``defaults``; an optional argument given blank ("",
    as host forms send a field left empty) takes its default too."""
    values = dict(defaults)
    for name, value in arguments.items():
        if value or name not in defaults:
            values[name] = value
    return values


def completion(prompt, name, value, context):
    """What answers ``completion/complete`` on one prompt argument: ``(work, None)``, a
    callable's run to do (``work()`` returns the values, checked), or ``(None, values)``.

    Sources, first found: the argument's ``complete(value, context)`` callable, the
    argument's ``completions`` list (filtered by prefix, case-insensitively, exact-case
    matches first, then in list order), or the prompt's ``complete(name, value,
    context)`` callable. Callables' lists are capped, not filtered. ``context`` is
    the client's ``context.arguments`` (2025-06-18 on) or None.
    """
    arg = prompt.by_arg.get(name)
    if arg is None:
        raise InvalidParams("Invalid params: prompt %s has no argument %s" % (clip(prompt.name), clip(name)))
    if arg.complete is not None:
        return (lambda: _called(prompt, arg.complete, value, context)), None
    if prompt.complete is not None and arg.completions is None:
        return (lambda: _called(prompt, prompt.complete, name, value, context)), None
    if arg.completions is not None:
        return None, _prefix_matches(arg.completions, value)
    return None, []


def _called(prompt, complete, *args):
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
        raise CallbackFailed("complete callable of prompt %r failed" % prompt.name) from exc
    return values


def capped(values):
    """``(values, total, has_more)``: at most MAX_COMPLETIONS values (2025-11-25 completion)."""
    total = len(values)
    return values[:MAX_COMPLETIONS], total, total > MAX_COMPLETIONS


def _nfc(text):
    """``text`` in Unicode normalization form C (composed: "e" + U+0301 becomes U+00E9);
    ASCII text, the common case, as it is."""
    if text.isascii():
        return text
    import unicodedata  # (only for non-ASCII text)
    return unicodedata.normalize("NFC", text)


def _prefix_matches(options, typed):
    """The ``options`` that start with ``typed``: exact-case matches first, then those
    that match case-insensitively, each in list order. Both sides are compared in NFC,
    so a composed and a decomposed "\u00e9" match (docs/decisions.md)."""
    if not typed:
        return list(options)
    typed = _nfc(typed)
    folded = typed.lower()
    exact = []
    other = []
    for value in options:
        text = _nfc(value)
        if text.startswith(typed):
            exact.append(value)
        elif text.lower().startswith(folded):
            other.append(value)
    return exact + other
