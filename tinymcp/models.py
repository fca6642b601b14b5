"""Prompts and their arguments: validated from a config, shaped for the wire.

Each model is a small slotted class with an explicit ``from_wire(check, obj, path)``
validator (docs/decisions.md: not ``dataclasses``, whose import pulls in ``inspect``).
``from_wire`` is the one validator; ``plain_prompt`` only accepts, at a fraction of the
cost, the common shapes that ``from_wire`` accepts too (``build_plain`` then makes them),
and leaves everything else to it (tests/test_models.py and tests/test_config.py compare
the two on generated prompts and configs). Models compare equal when they serve the same
thing, which is how a reload tells whether the prompts changed.
"""

from .jsonrpc import encode
from .template import Template, names_within, parse_template
from .validate import surrogate_at

__all__ = ["Prompt", "PromptArgument", "plain_prompt", "build_plain", "listings", "fill_of",
           "content_module"]

_EMPTY_TUPLE = ()
_EMPTY_DICT = {}  # shared: never written to (Prompt._defaults when no argument has one)


_content = None


def content_module():
    """The ``content`` module, imported when first needed: by a prompt not of the common
    shape (``from_wire``), a ``render`` callable's result, a get of a block that the
    client's revision reshapes. A config of plain text prompts is served without it, to
    every revision."""
    global _content
    if _content is None:
        from . import content as _content
    return _content


def _identity(check, obj, path):
    """``(name, title, description)`` of a prompt or an argument: a non-empty name that
    is valid Unicode (cursors and clients encode names as UTF-8)."""
    name = check.field(obj, "name", path, "string", required=True)
    if name == "":
        check.fail(path + ".name", "expected a non-empty string")
    elif name is not None:
        at = surrogate_at(name)
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

    def _key(self):
        return (self.name, self.title, self.description, self.required, self.default,
                self.completions, self.complete)

    def __eq__(self, other):
        return type(other) is PromptArgument and self._key() == other._key()

    __hash__ = None

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
        completions = check.strings(arg, "completions", path)
        complete = check.field(arg, "complete", path, "callable")
        if completions is not None and complete is not None:
            check.fail(path, "expected at most one of 'completions' or 'complete'")
        if len(check.problems) != before:
            return None
        return cls(name, title, description, bool(required), default, completions, complete)

    def to_wire(self, rev):
        out = {"name": self.name}
        if self.title is not None and rev.titles:
            out["title"] = self.title
        if self.description is not None:
            out["description"] = self.description
        if self.required:
            out["required"] = True
        return out


class Prompt:
    """A prompt: metadata, arguments, and either message templates or a ``render`` callable."""

    __slots__ = ("name", "title", "description", "icons", "meta", "arguments", "messages",
                 "render_fn", "complete", "by_arg", "required", "defaults", "_listing", "get_frames",
                 "fill")

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
        # one loop, and shared empties for the common case (a big config is mostly
        # prompts with few arguments)
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
        #: argument name -> PromptArgument
        self.by_arg = by_arg
        #: names of the required arguments, in declared order
        self.required = required
        #: optional argument name -> its default
        self.defaults = defaults
        self._listing = None  # revision shape -> listing dict, made on first prompts/list
        #: ``fill_of(self)``, made at the first get (``prompts.check_arguments``), not at load
        self.fill = None
        #: revision -> its encoded prompts/get result with gaps for the texts (``methods``,
        #: made at the first get under it), False where there is none
        self.get_frames = None

    def _key(self):
        """What the prompt serves, compared strictly: JSON data by its encoding (so 1,
        1.0 and true differ, and key order counts), templates by their parts."""
        messages = self.messages
        return (self.name, self.title, self.description, encode(self.icons), encode(self.meta),
                [a._key() for a in self.arguments], self.render_fn, self.complete,
                None if messages is None else encode([m for m, _ in messages]),
                None if messages is None else [[(k, s, t.parts) for k, s, t in templated]
                                               for _, templated in messages])

    def __eq__(self, other):
        """The same prompt, serving the same things (what a reload compares)."""
        if type(other) is not Prompt:
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None

    @classmethod
    def from_wire(cls, check, obj, path):
        """The one validator of a prompt: a ``Prompt``, or None with every problem
        recorded in ``check``."""
        p = check.obj(obj, path)
        if p is None:
            return None
        before = len(check.problems)
        check.keys(p, path, cls.KEYS)
        name, title, description = _identity(check, p, path)
        blocks = content_module()
        blocks.check_meta(check, p, path)
        icons = blocks.check_icons(check, p, path)
        arguments = []
        seen = set()
        for i, raw in enumerate(check.field(p, "arguments", path, "list") or ()):
            apath = "%s.arguments[%d]" % (path, i)
            check.unique_name(raw, apath, seen, "argument")
            arg = PromptArgument.from_wire(check, raw, apath)
            if arg is not None:
                arguments.append(arg)
        render_fn = check.field(p, "render", path, "callable")
        complete = check.field(p, "complete", path, "callable")
        if ("messages" in p) == ("render" in p):
            check.fail(path, "expected exactly one of 'messages' or 'render'")
        # checked even next to 'render', so one run lists every problem
        messages = _messages(check, p, path, seen) if "messages" in p else None
        if len(check.problems) != before:
            return None
        return cls(name, title, description, icons, p.get("_meta"), arguments, messages,
                   render_fn, complete)

    def listing(self, rev):
        """The ``Prompt`` object of ``prompts/list`` as revision ``rev`` defines it (cached
        per listing shape)."""
        if self._listing is None:
            self._listing = {}
        out = self._listing.get(rev.shape)
        if out is None:
            out = {"name": self.name}
            if rev.titles and self.title is not None:
                out["title"] = self.title
            if self.description is not None:
                out["description"] = self.description
            if self.arguments:
                out["arguments"] = [a.to_wire(rev) for a in self.arguments]
            if rev.icons and self.icons:
                out["icons"] = self.icons
            if rev.meta and self.meta is not None:
                out["_meta"] = self.meta
            self._listing[rev.shape] = out
        return out


def _messages(check, p, path, declared):
    """The validated ``messages`` of prompt ``p``: ``[(wire message, templated)]``, every
    placeholder naming a ``declared`` argument."""
    raw_msgs = check.field(p, "messages", path, "list")
    if raw_msgs is None:
        return None
    if not raw_msgs:
        check.fail(path + ".messages", "expected at least one message")
    messages = []
    message_from_wire = content_module().message_from_wire
    for i, raw in enumerate(raw_msgs):
        mpath = "%s.messages[%d]" % (path, i)
        templated = []
        msg = message_from_wire(check, raw, mpath, templated)
        for key, sub, tpl in templated:
            for ref in tpl.names:
                if ref not in declared:
                    check.fail(_placeholder_path(mpath, raw, key, sub),
                               "placeholder {%s} names no declared argument%s" % (
                                   ref, " (write {{ and }} for literal braces)"
                                   if any(c in ref for c in "\":, ") else ""))
        messages.append((msg, templated))
    return messages


def fill_of(prompt):
    """``(placeholders, fixed)`` of ``prompt``'s templates: rendered, their texts hold at
    most ``fixed + placeholders * n`` characters when each argument value holds at most
    n (``fixed``: their literal characters plus the placeholders times the longest
    default; a placeholder counted as many times as a value's character can grow in
    it, ``Template.growth``); ``(0, 0)`` for a ``render`` callable's prompt."""
    placeholders = literal = 0
    for _, templated in prompt.messages or ():
        for _, _, tpl in templated:
            parts = tpl.parts
            placeholders += len(parts) // 2 * tpl.growth
            literal += sum(map(len, parts[0::2]))
    defaults = prompt.defaults
    longest = max(map(len, defaults.values())) if defaults else 0
    return placeholders, literal + placeholders * longest


# --- the fast path -----------------------------------------------------------------------

_FAST_PROMPT_KEYS = frozenset(("name", "title", "description", "arguments", "messages"))
#: (``listings`` lists an argument's dict as it is unless it holds a default, ``"required":
#: false`` or an unlisted title: a key added here must keep it from that too)
_FAST_ARG_KEYS = frozenset(("name", "title", "description", "required", "default"))


def plain_prompt(p):
    """True when ``p`` has the common shape (text messages, plain arguments) and
    ``Prompt.from_wire`` accepts it, checked directly and making nothing; else None, and
    ``from_wire`` then examines it and reports. One function: at 10,000 prompts, calls
    between helpers were a measurable share of the load."""
    if type(p) is not dict or not _FAST_PROMPT_KEYS.issuperset(p):
        return None
    get = p.get  # (a name, and a title and description absent or strings: never null)
    name = get("name")
    if type(name) is not str or not name or type(get("title", "")) is not str \
            or type(get("description", "")) is not str \
            or (not name.isascii() and surrogate_at(name) >= 0):
        return None
    raw = get("arguments", _EMPTY_TUPLE)
    if type(raw) is not list and type(raw) is not tuple:
        return None  # (another sequence: the full validator)
    names = set()
    for a in raw:  # each a plain argument (no completions), its name new
        if type(a) is not dict or not _FAST_ARG_KEYS.issuperset(a):
            return None
        arg_get = a.get
        arg = arg_get("name")
        required = arg_get("required", False)
        if type(arg) is not str or not arg or arg in names or type(required) is not bool \
                or type(arg_get("default", "")) is not str or (required and "default" in a) \
                or type(arg_get("title", "")) is not str \
                or type(arg_get("description", "")) is not str \
                or (not arg.isascii() and surrogate_at(arg) >= 0):
            return None
        names.add(arg)
    raw = get("messages")
    if (type(raw) is not list and type(raw) is not tuple) or not raw:
        return None
    for m in raw:  # each {role, text}, its placeholders among the names
        if type(m) is not dict or len(m) != 2:
            return None
        role = m.get("role")
        text = m.get("text")
        if type(text) is not str or (role != "user" and role != "assistant"):
            return None
        if "{" not in text and "}" not in text or names_within(text, names):
            continue
        try:
            tpl = parse_template(text)
        except ValueError:
            return None
        if type(tpl) is Template and not names.issuperset(tpl.names):
            return None
    return True


def build_plain(p):
    """The ``Prompt`` that ``Prompt.from_wire`` makes of ``p``, a prompt ``plain_prompt``
    accepted (so nothing is checked again)."""
    arguments = [PromptArgument(a["name"], a.get("title"), a.get("description"),
                                a.get("required", False), a.get("default"))
                 for a in p.get("arguments", _EMPTY_TUPLE)]
    messages = []
    for m in p["messages"]:
        tpl = parse_template(m["text"])
        templated = [("text", None, tpl)] if type(tpl) is Template else []
        text = m["text"] if templated else tpl  # (without placeholders: {{ and }} undone)
        messages.append(({"role": m["role"], "content": {"type": "text", "text": text}}, templated))
    return Prompt(p["name"], p.get("title"), p.get("description"), None, None, arguments, messages)


def listings(entries, rev):
    """``Prompt.listing(rev)`` of each of ``entries``, a ``Prompt`` or the dict of a prompt
    ``plain_prompt`` accepts (kept unbuilt: see ``prompts.PromptSet``), which is listed
    straight from its dict. One call a page: a call a prompt was 6 to 10% of listing one."""
    titles = rev.titles
    out = []
    for p in entries:
        if type(p) is not dict:
            out.append(p.listing(rev))
            continue
        item = {"name": p["name"]}
        if titles and "title" in p:
            item["title"] = p["title"]
        if "description" in p:
            item["description"] = p["description"]
        raw_args = p.get("arguments")
        if raw_args:
            args = []
            for a in raw_args:
                # An argument's dict that holds only what its listing would (no default, no
                # "required": false, a title only where the revision lists titles) is listed
                # as it is: a page is encoded at once and never changed.
                if "default" not in a and a.get("required", True) is True and (titles or "title" not in a):
                    args.append(a)
                    continue
                arg = {"name": a["name"]}
                if titles and "title" in a:
                    arg["title"] = a["title"]
                if "description" in a:
                    arg["description"] = a["description"]
                if a.get("required"):
                    arg["required"] = True
                args.append(arg)
            item["arguments"] = args
        out.append(item)
    return out
