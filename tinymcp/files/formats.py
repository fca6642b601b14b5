"""Prompt files: one prompt per file, in the formats people already write, turned into
the config dict every other prompt goes through (the one validator then checks it).

Sans-I/O: ``promptdirs`` finds and reads the files; ``parse(relpath, text)`` turns one
file's text into a ``PromptFile``: the prompt's dict, the line of each of its fields
(so a validator problem is reported at its line) and the problems found here.

Formats, by file name and then front matter (README, "Prompt files", says the same):

- ``*.toml``: a Gemini CLI command: ``prompt`` (required), ``description``; ``{{args}}``
  is the optional argument ``args``.
- ``*.prompt.md``: a VS Code prompt file: ``${input:x}`` and ``${input:x:placeholder}``
  are the required argument ``x`` (described by the placeholder text).
- other ``*.md``: MCP Markdown (front matter ``name``, ``title``, ``description``,
  ``icons``, ``arguments``; ``{{arg}}`` placeholders; ``<!-- role: assistant -->``
  lines start messages) unless it reads as a Claude Code or Codex command: front matter
  with a key those hosts use (``argument-hint``, ``allowed-tools``, ``model``...) or a
  body using ``$ARGUMENTS``, ``$0`` or ``$1`` (not an amount: ``$10``, ``$1.50``), and
  none of ``title``, ``icons`` or MCP ``arguments`` (a list of objects). In a command,
  ``$ARGUMENTS`` is the optional argument ``arguments``; ``$1``, ``$10`` (the digits no
  word character follows: ``$2b`` is text) are optional positional arguments, counted
  from ``$0`` when the file uses ``$0`` or ``$ARGUMENTS[N]`` (Claude Code's numbering)
  and from ``$1`` otherwise, named from ``argument-hint`` where it names them; ``$name``
  of Claude Code's ``arguments:`` list (letters, digits, ``_`` and ``-``: the longest
  name that fits) is the optional argument ``name``. In a ``.codex/prompts`` folder, as
  Codex reads them: one digit (``$10`` is ``$1`` then ``0``), and ``$UPPER_CASE`` names
  are required arguments, its ``$N`` and ``$ARGUMENTS`` then text (elsewhere the names an
  ``argument-hint`` gives, ``ENV=<env>``, where no ``$ARGUMENTS`` or ``$N`` is used). In
  an OpenCode folder, as OpenCode reads them: all the digits, whatever follows, from ``$1``
  (``$0`` is text, ``$ARGUMENTS[1]`` is ``$ARGUMENTS`` then ``[1]``). ``\\$`` and ``$$`` keep
  a dollar literal (in Codex and OpenCode, a backslash is text).

Everything else in a body is literal text: shell (``!cmd``, ``!{cmd}``) and file
(``@path``, ``@{path}``) inclusions are never run or read, and values are inserted
verbatim, never expanded again (the config's template rule).
"""

import re

from ..errors import cut, line_column
from ..model.check import ALNUM, LETTERS, ROLES, close_match, describe
from ..model.prompt import ARGUMENT_KEYS
from .yamlish import YamlError, skip, load as load_yaml

#: front matter of MCP Markdown (each argument takes the config's argument keys)
MCP_KEYS = ("name", "title", "description", "icons", "arguments")
#: keys Claude Code, Codex and VS Code read that mean nothing to an MCP prompt: ignored,
#: and in a plain ``.md`` they say it is a command file
HOST_KEYS = frozenset((
    "argument-hint", "argument_hint", "allowed-tools", "model", "disable-model-invocation",
    "when_to_use", "user-invocable", "disallowed-tools", "effort", "context", "agent", "background",
    "hooks", "shell", "metadata", "license", "compatibility", "paths", "tools", "mode", "applyTo",
    "handoffs", "target", "infer", "agents", "excludeAgent", "advancedOptions", "mcp-servers", "subtask"))
_MARKER_OPEN, _MARKER_CLOSE = "<!--", "-->"
_FENCES = ("```", "~~~")
_CLOSING = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.M)  # (a front matter's closing line)
_DASHES = re.compile(r"^-{3,}[ \t]*$", re.M)  # (a line of dashes: a front matter meant, opened by more)
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")
_UPPER_NAME = _UPPER | _DIGITS | {"_"}  # (what may follow the first capital of Codex's $NAME)
_WORD = ALNUM | {"_"}
_BARE_KEY = _WORD | {"-"}  # (TOML's bare keys)
_QUOTED = frozenset("{}[]*&#!|>%@`")  # (what makes Claude Code quote a value YAML refused)
#: the longest front-matter path (``arguments[0].description``) a problem is placed by
MAX_PATH = 200
_LOGIC = frozenset("#/^>!&")  # (what opens a Handlebars or Mustache tag that is no placeholder)
_SKILL_NAME = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")  # (what an Agent Skill's name holds)


class PromptFile:
    """One file read: ``prompt`` (a config dict, or None when ``problems`` leave nothing to
    serve), ``lines`` (field path such as ``arguments[0].required`` -> line, ``""`` -> the
    file's first line; ``located()`` gives them all, with the front matter's, whose
    ``front_lines`` are the YAML reader's: made into text only when a problem needs them),
    ``problems`` (``(line, column or None, path, message)``), ``format`` (``mcp``,
    ``command``, ``opencode``, ``codex``, ``skill``, ``vscode`` or ``gemini``), ``fields`` (when there
    is no ``prompt``, the fields read besides its messages, for their own problems to be
    found too: all at once; None when not even those could be read) and ``warnings``
    (``(line, message)``: what was ignored)."""

    __slots__ = ("prompt", "lines", "front_lines", "problems", "format", "fields", "warnings")

    def __init__(self, fmt):
        self.prompt, self.lines, self.problems, self.format = None, {"": 1}, [], fmt
        self.fields, self.front_lines, self.warnings = None, {}, []

    def located(self):
        if self.front_lines:  # (once: a file may have a problem on each of its lines)
            # (a path longer than MAX_PATH is never named: a 100 KB key over 20,000 items
            # made 2 GB of paths; a problem under it is placed at the nearest shorter one)
            lines = {_dotted(path): line for path, line in self.front_lines.items()
                     if sum(len(str(part)) + 2 for part in path) <= MAX_PATH}
            self.lines, self.front_lines = {**lines, **self.lines}, {}  # (a path in both: self.lines wins)
        return self.lines

    def fail(self, line, column, path, message):
        """Record a problem: a file tells its first ``MOST_PROBLEMS``, then that more
        follow (50,000 empty message markers made as many log lines)."""
        if len(self.problems) <= MOST_PROBLEMS:
            self.problems.append((line, column, path, message) if len(self.problems) < MOST_PROBLEMS else (
                line, column, "", "more problems may follow: a file's first %d are told" % MOST_PROBLEMS))


def prompt_name(relpath, name=None, sep=":"):
    """The served name of the file at ``relpath`` ('/'-separated, under its folder):
    its subfolders, then ``name`` or its stem, joined with ``sep`` (``git/commit.md`` ->
    ``git:commit``, Claude Code's and Gemini CLI's own spelling; OpenCode's is ``git/commit``)."""
    parts = relpath.split("/")
    stem = parts[-1]
    suffix = next((s for s in (".prompt.md", ".md", ".toml") if stem.lower().endswith(s)), "")  # (.prompt.md first)
    return sep.join(parts[:-1] + [stem[:len(stem) - len(suffix)] if name is None else name])


def _named(relpath, front):
    """The served name: from the file's path, with the front matter's ``name`` for its stem
    when it has one; a ``name`` that is no non-empty string (null, a number, "") stands as
    written, for the validator to say what is wrong with it."""
    name = front.get("name")  # (None when it has none: prompt_name then takes the stem)
    return prompt_name(relpath, name) if "name" not in front or isinstance(name, str) and name else name


def parse(relpath, text, host=None):
    """The ``PromptFile`` of ``text``, the content of the file at ``relpath``; ``host``:
    the kind of host folder it is in (``files.folders.HOSTS``): in a ``command`` or
    ``codex`` one, a ``.md`` is a command whatever it holds (with Codex's placeholders)."""
    if text.startswith("\ufeff"):
        text = text[1:]  # (a byte order mark says nothing more)
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # (a text without one is returned as it is)
    lower = relpath.lower()
    if lower.endswith(".toml"):
        return _gemini(relpath, text, host)
    # (in a Codex prompts folder, every .md is a Codex prompt: a SKILL.md or an x.prompt.md too)
    result = PromptFile("codex" if host == "codex" else "skill" if relpath.rsplit("/", 1)[-1] == "SKILL.md"
                        else "vscode" if lower.endswith(".prompt.md") else "mcp")
    front, body_line, body = _codex_front(text) if host == "codex" else _front_matter(result, text)
    if front is None:
        return result
    if result.format == "mcp" and (host in ("command", "opencode", "plain") or _is_command(front, body)):
        result.format = "opencode" if host == "opencode" else "command"
    # (Codex names a prompt by its file's stem: x.prompt.md is x.prompt; it reads no subfolder)
    read = {"mcp": _mcp, "vscode": _vscode, "skill": _skill, "codex": lambda *args: _command(*args, relpath[:-3], host)
            }.get(result.format, lambda *args: _command(*args, host=host))
    read(result, relpath, front, body_line, body)
    return result


# --- front matter --------------------------------------------------------------------------

def _front_matter(result, text):
    """``(mapping, first body line, body)``; ``(None, ...)`` after a problem. The closing line
    is looked for by ``_CLOSING``: the body is never split into lines (skills hold megabytes)."""
    newline = text.find("\n")  # (the first line alone is copied, not the rest)
    # (trailing blanks allowed, as on a closing line)
    first = (text if newline < 0 else text[:newline]).rstrip(" \t")
    if first != "---":
        if first.startswith("----") and not first.strip("-") and newline > 0 and _DASHES.search(text, newline + 1):
            result.warnings.append((1, "%r opens no front matter, as hosts read it (write '---')" % cut(first, 20)))
        return {}, 1, text
    closing = _CLOSING.search(text, newline + 1) if newline >= 0 else None
    if closing is None:
        result.fail(1, None, "", "front matter opened by '---' is never closed (end it with a line '---')")
        return None, 0, ""
    try:
        value, result.front_lines = _load_front(result, text[newline + 1:closing.start()])
    except YamlError as exc:
        result.fail(exc.line, exc.column, "", "front matter: %s" % exc.message)
        return None, 0, ""
    if isinstance(value, list):  # (else a mapping, or None for no content)
        result.fail(2, None, "", "front matter: expected 'key: value' lines, got a list")
        return None, 0, ""
    return value or {}, text.count("\n", 0, closing.start()) + 2, text[closing.end() + 1:]


def _codex_front(text):
    """``(front matter, first body line, body)`` as Codex reads a prompt's: no YAML, but each
    line between '---' lines split at its first ':' (``description: Fix: the test``), its
    key lowercased and one pair of quotes taken off its value; only the description and the
    argument hint count, and a front matter never closed is text."""
    lines = text.split("\n")
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0) if lines[0].strip() == "---" else 0
    front = {}
    for line in lines[1:end]:
        key, colon, value = line.strip().partition(":")
        key, value = key.strip().lower(), value.strip()
        if colon and key in ("description", "argument-hint", "argument_hint"):  # (a '#' line: no such key)
            quoted = len(value) > 1 and value[0] == value[-1] and value[0] in "\"'"
            front[key.replace("_", "-")] = value[1:-1] if quoted else value  # (the last given counts)
    return front, end + 2 if end else 1, "\n".join(lines[end + 1:]) if end else text


def _load_front(result, text):
    """``load_yaml`` of front matter, read as Claude Code reads it (its frontmatterParser's
    ``quoteProblematicValues``; agentskills.io's guidance for clients says the same): where
    YAML refuses it, it is read again with each unquoted top-level value holding ': ' or
    one of ``_QUOTED`` quoted (``description: Use when: x``, ``allowed-tools: *``,
    ``argument-hint: [pr] [priority]``), each line YAML would read otherwise told (not the
    hint: Claude Code's own examples write it so); the first error stands when that too is
    refused."""
    try:
        return load_yaml(text, 2)
    except YamlError as exc:
        rows, told = text.split("\n"), []
        for i, row in enumerate(rows):
            key, value = row.partition(":")[0], row.partition(":")[2].strip()
            if key and _BARE_KEY.issuperset(key) and row[len(key) + 1:][:1] in " \t" and value and not (
                    len(value) > 1 and value[0] == value[-1] and value[0] in "'\"") and (
                    ": " in value or not _QUOTED.isdisjoint(value)):
                rows[i] = '%s: "%s"' % (key, value.replace("\\", "\\\\").replace('"', '\\"'))
                # (told where YAML would read it otherwise: a value holding ': ', or a list, a comment...)
                if key not in ("argument-hint", "argument_hint") and (
                        ": " in value or " #" in value or value[0] in _QUOTED):
                    told.append((i + 2, "read as quoted text, as Claude Code reads front matter that YAML refuses%s"
                                 % (" (%s)" % exc.message if exc.line == i + 2 else "")))  # (its error, if here)
        try:
            value = load_yaml("\n".join(rows), 2)
        except YamlError:
            raise exc from None
        result.warnings += told[:MOST_PROBLEMS]
        return value


def _dotted(path):
    return "".join("[%d]" % part if isinstance(part, int) else "." * (i > 0) + part for i, part in enumerate(path))


def _is_command(front, body):
    """A plain ``.md`` that reads as a Claude Code or Codex command (see the module doc)."""
    arguments = front.get("arguments")
    mcp_arguments = isinstance(arguments, list) and any(isinstance(a, dict) for a in arguments)
    # (an MCP key or argument list says MCP Markdown; else a host's key, a list of names or a position, a command)
    return not ("title" in front or "icons" in front or mcp_arguments) and (
        any(key in HOST_KEYS for key in front) or isinstance(arguments, (str, list))
        or _positional(body, first_only=True))


def _positional(body, first_only=False):
    """True when ``body`` uses ``$ARGUMENTS`` or a position ``$0``..``$9``; with
    ``first_only`` (what makes a plain ``.md`` a command), only a first position, ``$0`` or
    ``$1``, that is not in an amount such as ``$10``, ``$1.50`` or ``$1,000`` (a body with
    only ``$5`` in it names a price)."""
    return re.search(r"\$(?:ARGUMENTS|[01](?![0-9]|[.,][0-9]))" if first_only else r"\$(?:ARGUMENTS|[0-9])",
                     body) is not None


# --- MCP Markdown --------------------------------------------------------------------------

def _known(result, mapping, keys, path=()):
    """``mapping`` with ``keys`` and near misses of them (a mistake, which the validator
    tells) only: another tool's key (``tags``; an argument's ``type``) is ignored, the first
    MOST_PROBLEMS told, then that more follow (each asked for a near miss: 100,000 took 2 s)."""
    out = {}
    for key, value in mapping.items():
        if key in keys or len(result.warnings) < MOST_PROBLEMS and close_match(key, keys):
            out[key] = value
        elif len(result.warnings) <= MOST_PROBLEMS:
            result.warnings.append((result.front_lines.get(path + (key,), 1), "%s: unknown key, ignored" % cut(
                _dotted(path + (key,)), 80) if len(result.warnings) < MOST_PROBLEMS else "more unknown keys from "
                "here on, ignored and not listed"))
    return out


def _mcp(result, relpath, front, body_line, body):
    if "messages" in front:
        result.fail(result.front_lines.get(("messages",), 1), None, "messages",
                    "write the messages in the body, after the front matter")
    # (a host's key is nothing to an MCP prompt)
    prompt = _known(result, {k: v for k, v in front.items() if k not in HOST_KEYS and k != "messages"}, MCP_KEYS)
    prompt["name"] = _named(relpath, prompt)
    listed = prompt.get("arguments") if isinstance(prompt.get("arguments"), list) else ()
    if listed:
        listed = prompt["arguments"] = [_known(result, a, ARGUMENT_KEYS, ("arguments", i)) if isinstance(a, dict)
                                        else a for i, a in enumerate(listed)]
    # (the names its arguments declare, which its placeholders may use; by their place, those an `append` does not)
    declared = {arg["name"]: i for i, arg in enumerate(listed)
                if isinstance(arg, dict) and isinstance(arg.get("name"), str)}
    messages, used = [], {name for name, i in declared.items() if "append" in listed[i]}
    for index, (role, line, text) in enumerate(_segments(result, body, body_line)):
        result.lines["messages[%d]" % index] = result.lines["messages[%d].text" % index] = line
        messages.append({"role": role, "text": _mcp_template(result, text, line, declared, used)})
    _unused(result, declared, used, "{{%s}}")
    _finish(result, prompt, messages, body_line)


def _unused(result, declared, used, spelled):
    """Warn of each argument of ``declared`` (name -> its place under ``arguments``) that
    the text never uses (``used``): what a client gives for it would go nowhere."""
    result.warnings += [(result.front_lines.get(("arguments", i), result.front_lines.get(("arguments",), 1)),
                         "argument %r is declared, but the text never uses %s" % (name, spelled % name))
                        for name, i in (declared.items() if not result.problems else ()) if name not in used]


def _segments(result, body, first_line):
    """``(role, line, text)`` of each message: a ``<!-- role: user -->`` or ``<!-- role:
    assistant -->`` line starts one; text before the first marker is a user message. Within
    a fenced code block a marker is text (a file that shows how to write one)."""
    out, role, start, lines, explicit = [], "user", first_line, [], False
    marked = _MARKER_OPEN in body  # (no marker: the whole body is one user message, never split)
    fence = None  # (character, length) of the fence the lines are in
    for number, line in enumerate(body.split("\n") if marked else (), first_line):
        was, fence = fence, _fenced(line, fence)
        # (a fence's lines, from its opening to its closing, are text)
        marker = _marker(line) if fence is None and was is None else None
        if marker is None:
            lines.append(line)
            continue
        if marker not in ROLES:
            result.fail(number, None, "", "unknown role %r in a message marker: write "
                        "<!-- role: user --> or <!-- role: assistant -->" % marker)
        _segment(result, out, role, start, "\n".join(lines), explicit)
        role, start, lines, explicit = marker, number, [], True
    _segment(result, out, role, start, "\n".join(lines) if marked else body, explicit)
    return out


def _fenced(line, fence):
    """The fence open after ``line``, given ``fence`` open before it (CommonMark: up to
    three spaces, then three or more backticks or tildes, an opening backtick fence's info
    without a backtick; a closing fence of the same character, at least as long, with
    nothing after it). None when no fence is open after it."""
    text = line.lstrip(" ")
    if len(line) - len(text) > 3 or text[:3] not in _FENCES:  # (indented more than three spaces: no fence)
        return fence
    char = text[0]
    length = len(text) - len(text.lstrip(char))
    info = text[length:]
    if fence is None:
        return None if char == "`" and "`" in info else (char, length)
    return None if char == fence[0] and length >= fence[1] and not info.strip(" \t\r") else fence


class _Fences:
    """Whether a position of ``text`` is in a fenced code block (``_fenced``), asked of
    positions in increasing order: each line is read once, and only up to the last asked."""

    def __init__(self, text):
        self.text, self.read, self.line_end, self.fence = text, 0, -1, None

    def inside(self, at):
        if at > self.line_end:  # (the fence state at the start of its line, once a line)
            line = self.text.rfind("\n", 0, at) + 1
            for row in self.text[self.read:line].split("\n")[:-1]:
                self.fence = _fenced(row, self.fence)
            self.read, self.line_end = line, self.text.find("\n", at) % (len(self.text) + 1)
        return self.fence is not None


def _marker(line):
    text = line.strip()
    if not (text.startswith(_MARKER_OPEN) and text.endswith(_MARKER_CLOSE)):
        return None
    key, colon, role = text[len(_MARKER_OPEN):-len(_MARKER_CLOSE)].partition(":")  # (each part stripped below)
    return role.strip() if colon and key.strip() == "role" else None


def _trimmed(text, start):
    """``text`` without its leading and trailing blank lines, and the number of its first
    line kept (``start``: the number of its first line, and still that when none is kept)."""
    end = len(text.rstrip())  # (where its trailing blanks start; 0: it is all blank)
    if not end:
        return "", start
    begin = text.rfind("\n", 0, len(text) - len(text.lstrip())) + 1
    stop = text.find("\n", end)
    return text[begin:stop if stop >= 0 else len(text)], start + text.count("\n", 0, begin)


def _segment(result, out, role, start, text, explicit):
    text, first = _trimmed(text, start)
    if text:
        out.append((role, first + (1 if explicit else 0), text))
    elif explicit:
        result.fail(start, None, "", "an empty %s message: write its text below the marker, "
                    "or remove the marker" % role)


def _mcp_template(result, text, first_line, declared, used):
    """The config template of MCP Markdown ``text``: ``{{ arg }}`` becomes ``{arg}``,
    ``\\{{`` a literal ``{{``, and every other brace a literal one. A placeholder is on one
    line; a problem is reported at its line and column, but in a fenced code block, where a
    ``{{`` that is no declared argument is code (Vue's ``{{ msg }}``, JSX's ``{{ a: 1 }}``,
    GitHub Actions' ``${{ x.y }}``) kept as text, the first told as a warning."""
    pieces, at, closing, fences, told = [], 0, -2, _Fences(text), False
    while True:
        opening = text.find("{{", at)
        if opening < 0:
            pieces.append(_literal(text[at:]))
            return "".join(pieces)
        escaped = opening > 0 and text[opening - 1] == "\\"
        pieces.append(_literal(text[at:opening - escaped]))
        if closing != -1 and closing < opening + 2:  # (else the '}}' found last is still the next: linear in all)
            closing = text.find("}}", opening + 2)
        # (none with a brace in it: a '{' found first, no text is copied twice, nor hashed)
        name = text[opening + 2:closing].strip() if closing >= 0 and text.find("{", opening + 2, closing) < 0 else ""
        code = not escaped and name not in declared and fences.inside(opening)
        if code and not told:  # (code: the first told alone, the rest of it is alike)
            told = True
            result.warnings.append((first_line + line_column(text, opening)[0] - 1, "'{{' naming no declared "
                                    "argument in a fenced code block is code: kept as text"))
        if escaped or code:
            pieces.append("{{{{")  # (a literal '{{')
            at = opening + 2
            continue
        if not name or "{" in name or "}" in name or "\n" in name:
            if _template_problem(result, text, opening, first_line, "'{{' opens no placeholder: "
                                 "write {{name}}, or \\{{ for literal braces"):
                return ""
            at = text.find("\n", opening) % (len(text) + 1)  # (the rest of its line is taken as it is; -1: the end)
            pieces.append(_literal(text[opening:at]))
            continue
        # (a helper, a filter or a field, {{upper x}}, {{x | default(1)}}, {{.x}}: no name to declare)
        if name[:1] in _LOGIC or name.partition(" ")[0] == "else" or (  # ({{else}}, {{else if x}}: not {{elsewhere}})
                name not in declared and not _BARE_KEY.issuperset(name)):
            _template_problem(result, text, opening, first_line, "{{%s}}: template logic "
                              "(Handlebars, Mustache, Jinja or Go template code) is not run here; "
                              "write \\{{ to keep it as text" % name)
            return ""  # (one problem a file: the rest of it is the same logic)
        near = close_match(name, declared) if name not in declared else None  # (only where it is a problem)
        if name not in declared and _template_problem(
                result, text, opening, first_line, "placeholder {{%s}} names no declared argument (%s)" % (name, (
                    "did you mean {{%s}}?" % near) if near else "declare it under 'arguments:', or write \\{{ for "
                                                                "literal braces")):
            return ""
        pieces.append("{%s}" % name)
        used.add(name)
        at = closing + 2


#: the problems a file tells at most (``PromptFile.fail``): a template problem is placed by
#: counting lines from the text's start (200,000 bad placeholders took 30 s to load)
MOST_PROBLEMS = 20


def _template_problem(result, text, at, first_line, message):
    """Report a problem at ``text[at]``; True once the file has told all it tells: its
    templates are read no further."""
    line, column = line_column(text, at)  # (past them, once a template: it is then read no further)
    result.fail(first_line + line - 1, column, "", message)  # (fail() records it only while the file tells more)
    return len(result.problems) > MOST_PROBLEMS


def _literal(text):
    return text.replace("{", "{{").replace("}", "}}") if "{" in text or "}" in text else text


def _single(result, prompt, text, body_line):
    """Finish a host format's prompt: one user message of ``text`` (its outer blank lines
    trimmed, as in MCP Markdown)."""
    text, first = _trimmed(text, body_line)
    if result.format != "gemini":  # (a TOML string's lines are not the file's)
        body_line = result.lines["messages[0]"] = result.lines["messages[0].text"] = first
    _finish(result, prompt, [{"role": "user", "text": text}] if text else [], body_line)


def _finish(result, prompt, messages, body_line):
    if not messages:
        result.fail(body_line, None, "prompt" if result.format == "gemini" else "",
                    "empty: write the command's text" if result.format == "gemini"
                    else "no prompt text: write it after the front matter")
    if result.problems:
        result.fields = prompt
    else:
        prompt["messages"], result.prompt = messages, prompt


# --- Claude Code and Codex commands -----------------------------------------------------

def _command(result, relpath, front, body_line, body, name=None, host=None):
    prompt = {"name": name or prompt_name(relpath, sep="/" if host == "opencode" else ":")}
    # (as Claude Code's coerceDescriptionToString reads it: 42 is "42", a list or "" none; trimmed: a
    # `|` block's ends with a newline)
    description = front.get("description")
    description = str(description).lower() if type(description) in (bool, int, float) else \
        description.strip() if isinstance(description, str) else ""
    if not description:  # Claude Code: "Default: uses the first line from the prompt"
        description = body.lstrip().partition("\n")[0].strip()
        heading = description.lstrip("#")
        description = heading.strip() if heading[:1] == " " else description  # (a heading: its text, as shown)
    if description:
        prompt["description"] = description
    hint = front.get("argument-hint", front.get("argument_hint"))
    hint = "[%s]" % ", ".join(map(str, hint)) if isinstance(hint, list) else hint  # ([pr]: YAML's list)
    named = front.get("arguments") if host not in ("opencode", "plain") else None  # (OpenCode reads no names)
    if isinstance(named, str):  # (names apart by spaces or commas)
        named = named.replace(",", " ").split()
    named = [n for n in named if isinstance(n, str)] if isinstance(named, list) else []
    hinted = {w.lstrip("[<(").partition("=")[0] for w in hint.split() if "=" in w} if isinstance(hint, str) else ()
    written = {}  # (each placeholder as it is written, $2 or $ARGUMENTS[2], by its place in the
    # pieces; unfilled, it stays so)
    # (Cursor and Windsurf fill no placeholder: their files are read as written, what is typed after them)
    pieces = [body] if host == "plain" else _dollar_pieces(body, named, host, hinted, written)
    prompt["arguments"], names = _command_arguments(pieces, body, hint, named, written, host)
    _unused(result, {n: i for i, n in enumerate(named) if _BARE_KEY.issuperset(n)}, set(names.values()), "$%s")
    _single(result, prompt, "".join(
        "{%s}" % names[p] if p in names else _literal(written.get(i, p)) for i, p in enumerate(pieces)), body_line)


# --- Agent Skills ----------------------------------------------------------------------------

def _skill(result, relpath, front, body_line, body):
    """A folder's ``SKILL.md`` (agentskills.io's format; Claude Code, Codex, VS Code read
    it): one prompt named after the skill, its arguments as a Claude Code command's. Read
    as leniently as the format's guidance for clients says, with a warning: a name that
    breaks its rules (``Writing Hookify Rules``) is served as its folder's name, as Claude
    Code names a skill (as written where no folder names it); one only unlike its folder's,
    as written."""
    folders = relpath.split("/")[:-1]
    name, line = front.get("name"), result.front_lines.get(("name",), 1)
    if not isinstance(name, str) or not name:
        if not folders:
            result.fail(line, None, "name", "a skill needs a name")
            return
        name = folders[-1]
    if len(name) > 64 or not _SKILL_NAME.issuperset(name) or "--" in "-%s-" % name:  # (a hyphen first, last, twice)
        name, given = folders[-1] if folders else name, name
        result.warnings.append((line, "name: %r breaks the Agent Skills rules (at most 64 lowercase letters, digits "
                                      "and single hyphens): served as %r" % (given, name)))
    elif folders and name != folders[-1]:
        result.warnings.append((line, "name: %r is not its folder's name %r: served as %r" % (name, folders[-1], name)))
    # (without a description, its body's first line, as Claude Code shows it: issue 39 asks
    # for that, where agentskills.io's guidance would leave it out; its folder's parents
    # namespace it, as hosts namespace a plugin's skills)
    _command(result, relpath, front, body_line, body, ":".join(folders[:-1] + [name]))


def _dollar_pieces(body, named, host, hinted, written):
    """``body`` as literal strings and placeholders ``(kind, key)``: ``('all', None)``,
    ``('index', position)``, ``('name', name)`` or Codex's ``('upper', NAME)``: any in a
    Codex prompt (``host``), else those the argument hint names (``hinted``: ``ENV=<env>``).
    Positions as Claude Code reads them: ``$`` and digits that no word character follows
    (``$10``; ``$2b`` is text); Codex reads one digit (``$10`` is ``$1``, then 0), OpenCode
    all the digits, whatever follows (``$2b`` is ``$2``, then b), from ``$1``. ``written``
    (a dict) gets each placeholder's text as written there, by its index in the result."""
    # (Codex reads a body with a $NAME by name alone, its $N and $ARGUMENTS then text, as its
    # expand_custom_prompt does; elsewhere hinted names, only where no $ARGUMENTS, $N or named
    # argument is used; Codex's $NAME: capitals, digits, '_', not $ARGUMENTS, not after a '$')
    upper = (any(_upper(body, m.start(), True) for m in re.finditer(r"(?<!\$)\$", body)) if host == "codex"
             else None if named or _positional(body) else frozenset(hinted))
    named = (frozenset(named), frozenset(map(len, named)), max(map(len, named), default=0))
    out, at, start = [], 0, 0
    while True:
        at = body.find("$", at)
        if at < 0:
            out.append(body[start:])
            return out
        found = _placeholder(body, at, named, host, upper)
        # (\$1: a literal $1, \$1.50 and \$50 too, amounts we keep as text; a doubled backslash escapes
        # nothing, as Claude Code reads it; in Codex and OpenCode, a backslash is text)
        if at and body[at - 1] == "\\" and body[at - 2:at] != "\\\\" and (found or body[at + 1:at + 2] in _DIGITS) \
                and host not in ("codex", "opencode"):
            out.append(body[start:at - 1])
            start, at = at, at + (found[0] if found else 1)
        elif body.startswith("$$", at):  # kept as written, and no placeholder after it
            at += 2
        elif found is None:
            at += 1
        else:
            out += [body[start:at], found[1:]]
            written[len(out) - 1] = body[at:at + found[0]]
            start = at = at + found[0]


def _placeholder(body, at, named, host, upper):
    """``(length, kind, key)`` of the placeholder at ``body[at]`` (a '$'), or None."""
    if host == "codex" and upper:  # (Codex by name: its ``$ARGUMENTS`` and ``$1`` are text, so is ``$$$X``)
        return _upper(body, at, True) if body[at - 1:at] != "$" else None
    if body.startswith("ARGUMENTS", at + 1):
        end = skip(body, at + 11, _DIGITS) if host != "opencode" else 0  # (OpenCode: $ARGUMENTS, then [N])
        if body.startswith("[", at + 10) and at + 11 < end <= at + 15 and body.startswith("]", end):
            return end + 1 - at, "index", int(body[at + 11:end])  # $ARGUMENTS[0]: Claude Code's first
        return 10, "all", None
    if body[at + 1:at + 2] in _DIGITS:  # (ASCII: "$²" is text)
        # (Codex reads one digit, $1 to $9, OpenCode all the digits, each whatever follows them; $0
        # is text, as in Codex, where OpenCode fills it with "undefined"; past 4 digits, no position:
        # text, as an amount)
        end = at + 2 if host == "codex" else skip(body, at + 1, _DIGITS)
        loose = host in ("codex", "opencode")
        text = end > at + 5 or (not int(body[at + 1:end]) if loose else body[end:end + 1] in _WORD or (
            body[end:end + 1] in ".," and body[end + 1:end + 2] in _DIGITS))  # ($0.01, $1,500: amounts)
        return None if text else (end - at, "index", int(body[at + 1:end]))
    names, lengths, longest = named
    if names:  # the longest name after the '$' that no word character follows
        start = end = at + 1
        stop = min(len(body), start + longest)
        while end < stop and (body[end] in _WORD or body[end] == "-"):
            end += 1
        while end > start:  # (a piece is cut only at a name's length: each cut is a copy)
            if end - start in lengths and body[end:end + 1] not in _WORD and body[start:end] in names:
                return 1 + end - start, "name", body[start:end]
            end = body.rfind("-", start, end)
    return _upper(body, at, upper) if upper else None


def _upper(body, at, upper):
    """Codex's ``$NAME`` at ``body[at]``, when it is one of ``upper`` (True: any but
    ``$ARGUMENTS``), or None."""
    end = skip(body, at + 2, _UPPER_NAME) if body[at + 1:at + 2] in _UPPER else at + 1
    name = body[at + 1:end]
    found = name in upper if upper is not True else name != "ARGUMENTS"
    return (end - at, "upper", name) if name and found else None


def _command_arguments(pieces, body, hint, named, written, host):
    """The declared arguments, by position (a client fills them in turn with what is typed, as
    hosts fill positions), the rest in order of first use, and each placeholder's argument
    name. Positions count from ``$0`` (not in OpenCode) when the body uses ``$0`` or ``$ARGUMENTS[N]``, or
    ``named`` (front matter ``arguments``) names them, as Claude Code's skills do
    (``$issue`` is ``$0``); else after ``argument-hint`` where it names them (``arg1``...).
    Without placeholders, the one argument ``arguments``, appended as Claude Code appends
    "ARGUMENTS: <input>" to such a command."""
    typed = _typed("the command", hint)
    zero_based = bool(named) or ("index", 0) in pieces or "$ARGUMENTS[" in body and host != "opencode"
    hinted = _hint_names(hint)
    # (Claude Code leaves a position not given as written: a `$N` past the first gap in those
    # used or named is an amount, "$50 + $200", kept as text; Codex and OpenCode make it nothing)
    most = max(len(named), len(hinted)) + (not zero_based) if host not in ("codex", "opencode") else float("inf")
    used = set(pieces)
    while ("index", most) in used:
        most += 1
    # ($ARGUMENTS[N] is never an amount, however else its position is written)
    bracketed = {p for i, p in enumerate(pieces) if type(p) is tuple and written[i].startswith("$ARGUMENTS[")}
    names, out, order = {}, [], {name: i for i, name in enumerate(named)}
    # (a position's name gives way to the names written in the body, wherever they come)
    taken = set(named) | {"arguments" if p[0] == "all" else p[1] for p in pieces
                          if not isinstance(p, str) and p[0] != "index"}
    for i, piece in enumerate(pieces):  # (a piece's first place is where its name is made)
        if isinstance(piece, str) or piece in names:
            continue
        kind, key = piece
        if kind == "index" and key >= most and piece not in bracketed:
            continue  # (text: no name)
        if kind == "index":  # (never below 0: a body with `$0` or `$ARGUMENTS[0]` counts from 0)
            position = key if zero_based else key - 1
            if position < len(named):  # (the named argument of that position: one argument)
                names[piece] = named[position]
                if ("name", named[position]) not in names:
                    names[("name", named[position])] = named[position]
                    out.append({"name": named[position]})
                continue
            base = "arg%d" % (position + 1)
            name = next((hint for hint in hinted[position:position + 1] if hint and hint not in taken), base)
            suffix = 2
            while name in taken:
                name, suffix = "%s_%d" % (base, suffix), suffix + 1
            taken.add(name)
            order[name] = position
            # (unfilled, it stays as written, as Claude Code leaves it: skills hold `awk '{print $1}'`;
            # Codex and OpenCode make it nothing)
            arg = {"name": name, "description": "Argument %d" % (position + 1),
                   "default": "" if host in ("codex", "opencode") else written[i]}
        elif kind == "all":
            arg = typed
        else:
            arg = {"name": key, "required": True} if kind == "upper" else {"name": key}
        names[piece] = arg["name"]
        out.append(arg)
    # (OpenCode appends it bare: packages/opencode/src/session/prompt.ts, and so do Cursor and Windsurf,
    # which give the model what is typed after the file; Codex's expand_custom_prompt sends a prompt
    # without placeholders as written, what is typed dropped: no argument)
    append = "\n\n" if host in ("opencode", "plain") else "\n\nARGUMENTS: "
    # (a name the text never uses keeps its place below one it does: filled in turn, each takes its host's word)
    last = max((order[key] for kind, key in names if kind == "name"), default=0)  # (used: as a name, or a position)
    have = {arg["name"] for arg in out}  # (each name once, and only one a placeholder could be: as it loaded before)
    out += [{"name": n} for n in dict.fromkeys(named[:last]) if n and n not in have and _BARE_KEY.issuperset(n)]
    out.sort(key=lambda arg: order.get(arg["name"], float("inf")))
    return out or ([] if host == "codex" else [dict(typed, append=append)]), names


def _typed(after, hint):
    """The free-text argument ``arguments``: everything typed ``after`` the name, described
    by ``argument-hint`` when the file gives one."""
    return {"name": "arguments", "description": "Everything after %s, as typed%s" % (
        after, " (%s)" % hint if isinstance(hint, str) and hint else "")}


def _hint_names(hint):
    """The name an ``argument-hint`` such as ``[pr-number] <priority>`` gives each position:
    its bracketed words in order (``[files...]`` is ``files``, ``[config.json]`` itself), None
    where one is no name (``[file path]``, ``[a|b]``, a flag: ``[--force]``, which may be any
    position's value); free text names none (``task (optional)`` named position 2 "optional")."""
    parts = hint.replace("<", "[").replace(">", "]").split("[")[1:] if isinstance(hint, str) else ()
    names = [inner.strip(" .") if closed else "" for inner, closed, _ in (p.partition("]") for p in parts)]
    # (letters, digits, '_', '-' and '.': `[config.json]`)
    return [name if name[:1] not in ("", "-") and _BARE_KEY.issuperset(name.replace(".", "")) else None
            for name in names]


# --- VS Code prompt files and Gemini CLI commands -------------------------------------------

def _vscode(result, relpath, front, body_line, body):
    prompt = {"name": _named(relpath, front)}
    if "description" in front:
        prompt["description"] = front["description"]
    out, arguments, at, start, end = [], {}, 0, 0, -1  # arguments: name -> argument, in order of first use
    while True:
        at = body.find("${input:", at)
        if end < at:  # (else the '}' found last is still the next: 1 MiB of "${input:" took 14 s)
            end = body.find("}", at)
        if at < 0 or end < 0:
            out.append(_literal(body[start:]))
            break
        if body.find("{", at + 2, end) >= 0 or body.find("\n", at, end) >= 0:
            at += 2
            continue
        variable, colon, placeholder = body[at + 8:end].partition(":")
        variable = variable.strip()
        cut = next((i for i, c in enumerate(variable) if c not in _BARE_KEY), len(variable))
        if 0 < cut < len(variable) and not placeholder:  # (${input:Timebox|1 week}: a name, then a hint)
            variable, placeholder = variable[:cut], variable[cut:].lstrip("|=- ")
        if variable[:1] not in LETTERS and variable[:1] != "_":  # (none; or a shell's ${input:-x}, ${input:0:2})
            at += 2
            continue
        out += [_literal(body[start:at]), "{%s}" % variable]
        if variable not in arguments:
            arguments[variable] = {"name": variable, "required": True}
            if placeholder.strip():
                arguments[variable]["description"] = placeholder.strip()
        start = at = end + 1
    # (what is typed after its name in chat follows its text, as VS Code sends it beside the inputs)
    typed = dict(_typed("the prompt's name", front.get("argument-hint")), append="\n\n")
    prompt["arguments"] = list(arguments.values()) + ([] if "arguments" in arguments else [typed])
    _single(result, prompt, "".join(out), body_line)


#: tomllib keeps every prefix of each dotted key (``a.b.c``) for the whole file: 40,000
#: parts in one took 6 GB, and 40 keys of 2,000 parts 0.7 GB. The dots of a file's keys,
#: squared and summed over its lines, are held to this (~40 MB)
MOST_DOTS_SQUARED = 10 ** 7


def _dots_squared(text):
    """The dots outside quotes on each line of TOML ``text``, squared and summed (a line
    of a multi-line string counted as a key's would be: never fewer than TOML reads)."""
    total = 0
    for line in text.split("\n"):
        if "." in line:
            for quote in ('"', "'"):
                line = "".join(line.split(quote)[::2])
            total += line.count(".") ** 2
    return total


def _gemini(relpath, text, host=None):
    result = PromptFile("gemini")
    try:
        import tomllib  # novermin (3.11+; older Pythons get the message below)
    except ImportError:
        result.fail(1, None, "", "TOML prompt files need tomllib (Python 3.11 or later, and not "
                    "python3-minimal): run tinymcp with a fuller Python, or write this prompt as Markdown")
        return result
    if _dots_squared(text) > MOST_DOTS_SQUARED:
        result.fail(1, None, "", "dotted keys (a.b.c) too long to read: write the prompt's keys whole")
        return result
    try:
        data = tomllib.loads(text)
    except (ValueError, RecursionError) as exc:  # (tomllib recurses: 500 nested arrays ended the server; and
        # an integer past Python's 4,300 digits raises int()'s ValueError through it: loading did)
        line, column, message = _toml_position(str(exc)) if isinstance(exc, tomllib.TOMLDecodeError) else (
            1, None, "nested too deeply to read" if isinstance(exc, RecursionError) else "an integer too long to read")
        result.fail(line, column, "", "invalid TOML: %s" % message)
        return result
    result.lines.update(_toml_lines(text))
    parts = relpath[:-5].split("/")
    if host == "gemini":  # (in its folders, Gemini CLI's name: in each part, what is not an ASCII
        # letter, a digit, '_', '-' or '.' is '_' (two past U+FFFF, as JavaScript counts), and a
        # part over 50 is cut to 47 and '...')
        parts = ["".join(c if c in _BARE_KEY or c == "." else "_" * (1 + (c > "\uffff")) for c in part)
                 for part in parts]
        parts = [part if len(part) <= 50 else part[:47] + "..." for part in parts]
    prompt = {"name": ":".join(parts)}
    # (Gemini CLI's own words when a command has none)
    description = data.get("description", "")  # (Gemini CLI: an empty one is none)
    prompt["description"] = description if description != "" else "Custom command from %s" % relpath.rsplit("/", 1)[-1]
    body = data.get("prompt")
    if not isinstance(body, str):  # (a near miss of it, `prompts =`, named where it is)
        near = close_match("prompt", [key for key in data if key != "prompt"]) if body is None else None
        result.fail(result.lines.get(near or "prompt", 1), None, near or "prompt", "missing required key 'prompt' "
                    "(the command's text%s)" % (", not %r" % near if near else "") if body is None
                    else "expected a string, got %s" % describe(body))
        return result
    pieces = body.split("{{args}}")
    prompt["arguments"] = [{"name": "args", "description": "Everything after the command, as typed"}]
    if len(pieces) == 1:  # Gemini CLI appends the command as typed, after a blank line
        prompt["arguments"][0]["append"] = "\n\n/%s " % prompt["name"]
    _single(result, prompt, "{args}".join(_literal(p) for p in pieces), result.lines.get("prompt", 1))
    return result


def _toml_lines(text):
    """``{key: line}`` of the top-level keys of a TOML text that ``tomllib`` read, each at
    the line it is set on (``key =`` outside a multi-line string, before any table)."""
    lines, inside = {}, None
    for number, line in enumerate(text.split("\n"), 1):
        if inside is None:
            if line.lstrip().startswith("["):
                break
            key, equals, _ = line.partition("=")
            key = key.strip()  # (a bare key: not a comment, nor a line of a multi-line array)
            if equals and key and _BARE_KEY.issuperset(key):
                lines.setdefault(key, number)
        for quotes in ('"""', "'''"):  # (one opened and not closed on this line)
            if (inside is None or inside == quotes) and line.count(quotes) % 2:
                inside = None if inside else quotes
    return lines


def _toml_position(message):
    """``(line, column, message)`` of a tomllib message ending ``(at line 3, column 5)``."""
    head, sep, tail = message.rpartition(" (at line ")
    line, comma, column = tail.rstrip(")").partition(", column ")
    return (int(line), int(column), head) if sep and line.isdigit() and column.isdigit() else (1, None, message)
