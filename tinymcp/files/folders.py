"""Prompt folders: find and read the prompt files of ``prompt_dirs`` and ``--prompts``,
and load them with the config as one.

Every file becomes a config dict (``formats``), appended to the config's own prompts in
a stable order (the folders as given, then each one's files by path); the one validator
(``load_config``) then checks them all, and each problem it finds in a file's prompt is
reported at the file and line it comes from: ``prompts/review.md:4:
arguments[0].required: expected true or false, got the string 'yes'``.

Files: ``*.md`` (but VS Code's ``*.instructions.md``, ``*.agent.md`` and ``*.chatmode.md``,
never prompts) and ``*.toml`` anywhere under a folder (of a skill's folder, its
``SKILL.md`` alone; of a host's folder, a Claude Code plugin or a Gemini CLI extension,
what the host reads), at most ``max_folder_depth`` folders deep (entries whose names
start with '.' are skipped; a symlinked folder is walked once, and neither files nor
folders symlinked to a place outside the folder are read), regular files only,
``MAX_FILE_BYTES`` at most each, ``MAX_FOLDER_BYTES`` at most together.
"""

import os

from .. import codec
from ..errors import ConfigError, clip, clip_names
from ..model.check import describe, plain
from ..model.config import load_config
from ..model.limits import Limits
from ..io.disk import looked_for, read_regular, stat_of
from .diagnose import explain
from .formats import MAX_PATH, parse

#: the most a prompt file may hold; larger is a config error (it is not read)
MAX_FILE_BYTES = 1 << 20
#: the most the files of one prompt folder hold together (64 files at the most each may hold; a real collection
#: holds a few MiB): past it, each further file is a problem, not read (2,000 links to one 1 MiB file took 4 GB)
MAX_FOLDER_BYTES = 64 << 20
#: folders below a prompt folder that are read, at most (``limits.max_folder_depth``)
MAX_FOLDER_DEPTH = Limits.DEFAULTS["max_folder_depth"][0]
_SUFFIXES = (".md", ".toml")
#: VS Code's instructions and custom agents (chat modes): never prompts, in a folder of no host either
_NOT_PROMPTS = (".instructions.md", ".agent.md", ".chatmode.md")
#: what makes a folder an Agent Skill, served as one prompt (files.formats)
SKILL = "SKILL.md"


def load_files(config=None, base=None, prompt_dirs=(), notes=None):
    """The ``ServerConfig`` of ``config`` (a dict, or None for no other prompts) with the
    prompts of its ``prompt_dirs`` (relative to ``base``, default the current directory)
    and of ``prompt_dirs`` given here; ``ConfigError`` lists every problem of every file.
    With ``notes`` (a list), a file with problems is left out instead and its problems go
    there, ``(path, message)``, with every file's warnings."""
    config = {"prompts": []} if config is None else plain(config)
    folders = Folders(config, base, plain(prompt_dirs))
    # (without notes, read strictly: what would be noted, and each prompt's file, go unread)
    return build(config, folders.read(), [] if notes is None else notes, None if notes is None else set(), {})


class Folders:
    """The prompt folders of a config (its ``prompt_dirs``, relative to ``base``) and of
    ``extra`` (``--prompts``): read (``read``) and watched (``signature``); ``build``
    loads what they read with the config as one."""

    def __init__(self, config, base=None, extra=()):
        if base is not None and not isinstance(base, str):
            raise ConfigError([("base", "expected a folder path (a string), got %s" % describe(base))])
        own = config.get("prompt_dirs", []) if type(config) is dict else []
        if any(type(dirs) is not list or not all(isinstance(f, str) and f for f in dirs) for dirs in (extra, own)):
            raise ConfigError([("prompt_dirs", "expected a list of folder paths (strings)")])
        # (one meant for a shell to expand, "~/x" or "$HOME/x", is left as written: read
        # then says so, not that base/~/x does not exist)
        # (a folder given twice, as written or by another path, is read once: its files
        # would each clash with themselves)
        unique = {}
        for folder in [f if f.startswith("~") or "$" in f else os.path.join(base or "", f) for f in own] + list(extra):
            unique.setdefault(os.path.realpath(folder), folder)
        self.paths = list(unique.values())
        self.depth = folder_depth(config)

    def read(self):
        """``((folder, files or its problem), ...)``: see ``read_folder``."""
        return tuple((folder, read_folder(folder, self.depth)) for folder in self.paths)

    def signature(self):
        return tuple(folder_signature(folder, self.depth) for folder in self.paths)


class Lenient:
    """What loading a config's folders remembers between loads (a ``source.ConfigFile``'s):
    not ``strict``, a file with problems is left out, unless it was served by the last load
    (a bad edit keeps the old prompts whole, as a bad config does); ``notes``, what the last
    load left out or ignored, ``(path, message)``, each logged once by ``tell`` (again when
    it came back after a load without it); ``sources``, each file's prompt name ->
    ``(file, format)`` (``--list``)."""

    def __init__(self, strict):
        self.strict, self.notes, self.told, self.served, self.sources = strict, [], set(), set(), {}

    def build(self, config, files):
        self.notes, self.sources = [], {}
        served = None if self.strict else set(self.served)
        loaded = build(config, files, self.notes, served, self.sources)
        self.served = served or set()
        return loaded

    def tell(self, log):
        for note in self.notes:
            if note not in self.told:
                log("warning", "%s: %s" % note)
        self.told = set(self.notes)


def folder_depth(config):
    """The config's ``limits.max_folder_depth`` when it is a valid one, else the default
    (the validator reports a wrong value)."""
    limits = config.get("limits") if isinstance(config, dict) else None
    depth = limits.get("max_folder_depth") if isinstance(limits, dict) else None
    low, high = Limits.DEFAULTS["max_folder_depth"][1:]
    return depth if type(depth) is int and low <= depth <= high else MAX_FOLDER_DEPTH


def read_folder(folder, max_depth=MAX_FOLDER_DEPTH):
    """``[(relative path, bytes or a problem message, path it is named by, host kind or
    None)]`` of the prompt files under ``folder``, by path (see ``_walk``); when the folder
    itself cannot be read, its problem message (which ``build`` reports beside every other
    folder's and file's). Folders more than ``max_depth`` below it
    (``limits.max_folder_depth``) are not read: each is a problem."""
    if not os.path.isdir(folder):
        problem = "no such folder" if not os.path.exists(folder) else "not a folder"
        note = looked_for(folder) if problem == "no such folder" else ""
        return "cannot read the prompt folder: %s%s" % (problem, " (%s)" % note if note else "")
    out, problems, left = [], [], MAX_FOLDER_BYTES
    top = os.path.realpath(folder)
    for rel, path, entry, named, kind in _walk(folder, max_depth, problems):
        # (a marketplace: read by the walk, listed for folder_signature alone; Emacs' lock of a file it edits,
        # ``.#x.md``, a link to nothing, in the folders that read dot files: no prompt, and no warning)
        if kind == "marketplace" or os.path.basename(rel).startswith(".#") and not os.path.exists(path):
            continue
        try:
            data = _read_inside(path, top, entry is None or entry.is_symlink()) if left >= 0 else b""
            left -= len(data)
            out.append((rel, data if left >= 0 else "the prompt folder's files hold more than %d bytes "
                        "together" % MAX_FOLDER_BYTES, named, kind))
        except ConfigError as exc:
            out.append((rel, exc.problems[0][1], named, kind))
    for rel, problem in problems:
        if rel == ".":
            return "cannot read the prompt folder: %s" % problem
        out.append((rel, problem, rel, None))
    return tuple(sorted(out, key=lambda entry: entry[0]))


def _inside(path, top):
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


#: a Claude Code marketplace's own folders (it, and those below it that no plugin it lists holds),
#: and skills folders (``.claude/skills``, a plugin's ``skills/``): only the skills in them
MARKET, SKILLS = object(), "skills"  # (MARKET: no name a marketplace entry could give)
#: a folder in a skills folder (or that a marketplace lists as a plugin's skills): a skill when it holds
#: ``SKILL.md`` (a skills folder's own is none); ``_IN``: the kind of a folder in one of each kind, where
#: it is not that kind
IN_SKILL, _IN = "in skills", {SKILLS: "in skills"}
#: a host's own folder (the last two names of its real path) -> how its files are read
HOSTS = {(".claude", "commands"): "command", (".codex", "prompts"): "codex", (".cursor", "commands"): "plain",
         (".opencode", "command"): "opencode", (".opencode", "commands"): "opencode",
         (".windsurf", "workflows"): "plain", (".github", "prompts"): "vscode", (".gemini", "commands"): "gemini",
         **dict.fromkeys([(top, "skills") for top in (".claude", ".codex", ".agents", ".gemini", ".github", ".opencode",
                                                      ".cursor", ".windsurf")], SKILLS),
         ("opencode", "command"): "opencode", ("opencode", "commands"): "opencode",  # (~/.config/opencode's)
         (".opencode", "skill"): SKILLS, ("opencode", "skill"): SKILLS, ("opencode", "skills"): SKILLS}
#: a host's top folder (``.claude``) -> its host folders (a folder it holds -> how it is read): given
#: itself, only those are read, named from there, as the host names them (``.claude/commands/x.md``: x)
_ROOTS = {root: {sub: kind for (top, sub), kind in HOSTS.items() if top == root} for root, _ in HOSTS if root[0] == "."}
#: the files each kind of host folder holds (other hosts: .md; a folder of no host: .md and .toml)
_HOST_SUFFIXES = {"vscode": (".prompt.md",), "gemini": (".toml",), MARKET: (), SKILLS: (), IN_SKILL: ()}
#: what a plugin's, and a Gemini CLI extension's, subfolders read hold (an extension's named from there; a
#: plugin that is an extension too is read as a plugin)
_IN_PLUGIN, _IN_EXTENSION = {"commands": "command", "skills": SKILLS}, {"commands": "gemini", "skills": SKILLS}


def folder_host(folder):
    """How a folder that is a host's own is read (``HOSTS``; it or a folder it is in), else
    None: ``.claude/commands`` as Claude Code reads it (every .md a command),
    ``.github/prompts`` as VS Code (its .prompt.md files), ``.gemini/commands`` as Gemini
    CLI (its .toml files), ``.codex/prompts`` as Codex (commands with Codex's
    placeholders), ``.opencode/command`` as OpenCode (commands whose unfilled ``$N`` is
    nothing, what is typed appended bare); Cursor commands and Windsurf workflows are read
    as Claude Code commands; ``.claude/skills`` (Codex's, ``.agents/skills``) as Claude Code
    reads it: its skills (folders in it holding ``SKILL.md``; a folder in it is ``IN_SKILL``),
    no other file; a host's top folder (``.claude``) is its own name, a key of ``_ROOTS``. The
    path as given counts first, then its real path (a host folder linked to a dotfiles
    repository is still the host's)."""
    paths = [os.path.abspath(folder).split(os.sep), os.path.realpath(folder).split(os.sep)]
    found = [HOSTS[pair] if pair == tuple(parts[-2:]) else _IN.get(HOSTS[pair], HOSTS[pair])
             for parts in paths for pair in zip(parts, parts[1:]) if pair in HOSTS]
    tops = [parts[-1] for parts in paths if parts[-1] in _ROOTS]
    return found[0] if found else tops[0] if tops else None


def _walk(folder, max_depth, problems):
    """``(relative path, path, DirEntry, path it is named by, host kind or None)`` of each prompt file under ``folder``,
    in walk order, never deeper than ``max_depth`` (``problems`` gets each folder too deep or unreadable). Dot names are
    skipped (not in Gemini CLI's and OpenCode's folders); a symlinked folder is followed once, when its real path is
    inside ``folder`` (else a problem; the only real path resolved). A folder holding ``SKILL.md`` gives that file alone
    (not a skills folder; in one, a folder holding ``.claude-plugin/plugin.json`` is a plugin, as Claude Code reads it);
    a host's own folder (``folder_host``), what that host reads (Codex and VS Code: no subfolder); a Claude Code plugin
    (``.claude-plugin/``), its ``commands/`` (or those its manifest lists), ``skills/`` and own ``SKILL.md``, named
    ``plugin:command`` after its folder or marketplace entry (``build`` renames them after its manifest, an entry of
    kind "manifest"); a marketplace, the plugins it lists alone, a skill an entry lists ``entry:skill``; a Gemini CLI
    extension (``gemini-extension.json``; no plugin), its ``commands/`` and ``skills/``, named from there as Gemini CLI
    names them; a host's top folder given itself (``.claude``), its host folders, named from there."""
    real_folder, followed, listed = os.path.realpath(folder), set(), {}  # (followed: the linked folders walked)
    found, todo = [], [("", folder, real_folder, 0, "", folder_host(folder))]
    join = lambda top, name: top + "/" + name if top else name  # noqa: E731
    while todo:
        rel_top, top, real_top, depth, named_top, kind = todo.pop()
        try:
            with os.scandir(top) as it:
                by_name = {e.name: e for e in it}
        except OSError as exc:
            problems.append((rel_top or ".", ("cannot read the folder: %s" if rel_top else "%s")
                             % (exc.strerror or exc)))
            continue
        # (Codex, VS Code and Gemini CLI list their folders' own files: no skill, plugin or extension there)
        hosted = kind in ("codex", "vscode", "gemini")
        plugin = not hosted and _plugin(top, real_top, by_name, listed, kind, found, rel_top, named_top, problems,
                                        real_folder)
        plugin, kind = (False, MARKET) if plugin is MARKET else (plugin, kind)  # (a marketplace: what it lists)
        extension = not plugin and "gemini-extension.json" in by_name  # (Gemini CLI reads no SKILL.md of its own)
        if plugin or extension:  # (a plugin's commands and skills are plugin:command; an extension's skills ext:skill)
            own_named = named_top or os.path.basename(os.path.abspath(top))
            if plugin:  # (listed: its marketplace entry's name in the marketplace's namespace, manifest or not)
                named_top = own_named = own_named if plugin is True else plugin
            manifest = ".claude-plugin/plugin.json" if plugin else "gemini-extension.json"
            if os.path.lexists(os.path.join(top, manifest)):  # (the name in it replaces the folder's: ``build``)
                found.append((join(rel_top, manifest), os.path.join(top, manifest), None, own_named, "manifest"))
        # (an Agent Skill: its SKILL.md alone; a plugin's own, beside its commands and skills; no skills folder's)
        if SKILL in by_name and not hosted and not extension and kind != SKILLS and (plugin or kind != MARKET):
            own = join(named_top, os.path.basename(os.path.abspath(top))) if plugin or not named_top else named_top
            found.append((join(rel_top, SKILL), by_name[SKILL].path, by_name[SKILL], join(own, SKILL), kind))
            if not plugin:
                continue
        # (the subfolders read, where only some are; a host's top folder's: folder_host)
        listed_commands = plugin and _listed_commands(top, real_top, rel_top, named_top, found, problems, real_folder)
        kinds = (_IN_PLUGIN if listed_commands is None else {"skills": SKILLS}) if plugin else \
            None if hosted else _IN_EXTENSION if extension else _ROOTS.get(kind)
        subfolders = listed_commands or []
        for name, entry in sorted(by_name.items()):
            inner = plugin and os.path.join(real_top, name)  # (listed too: a plugin, or a skill's folder, in it)
            if name.startswith(".") and kind not in ("gemini", "opencode") or kinds and name not in kinds and not (
                    _toward(listed, inner) or ("skills", inner) in listed):
                continue  # (Gemini CLI's and OpenCode's globs take dot files too)
            rel, is_folder = join(rel_top, name), _is_folder(entry)
            real = is_folder and (os.path.realpath(entry.path) if entry.is_symlink() else os.path.join(real_top, name))
            by_entry = listed.get(("skill", real)) if real and kind != MARKET else None  # (a listed skill: entry:skill)
            if is_folder and (kind in ("codex", "vscode") or _unlisted(listed, real_top, real, kind)):
                continue  # (Codex, VS Code: their own files; a skills/ whose entries list skills: those alone)
            if is_folder and entry.is_symlink():  # (as `npx skills add` installs a skill)
                if (outside := not _inside(real, real_folder)):
                    problems.append((rel, "a symlink to %s, outside the prompt folder: not followed; give that "
                                          "folder as a prompt folder of its own" % real))
                if outside or real in followed or _inside(real_top, real):
                    continue  # (outside; or a loop: followed already, or a folder it is in)
                followed.add(real)
            if is_folder:
                named = join(by_entry, name) if by_entry else (
                    own_named if extension and name == "skills" else named_top) if kinds else join(named_top, name)
                sub_kind = kinds.get(name) or _toward(listed, inner) or IN_SKILL if kinds else _IN.get(kind, kind)
                subfolders.append((rel, entry.path, real, named, sub_kind))
            elif name.lower().endswith(_HOST_SUFFIXES.get(kind, (".md",) if kind else _SUFFIXES)) and not (
                    kind is None and name.lower().endswith(_NOT_PROMPTS)):
                found.append((rel, entry.path, entry, join(named_top, name), kind))
        for rel, path, real, named, sub_kind in reversed(subfolders):
            if depth < max_depth:
                todo.append((rel, path, real, depth + 1, named, sub_kind))
            else:
                problems.append((rel, "a folder more than %d deep below the prompt folder: not "
                                      "read (limits.max_folder_depth)" % max_depth))
    return found


def _toward(listed, at):
    """``MARKET`` (what it is read as, else False) when ``at``, the real path of a folder in
    a plugin (False: none), is a plugin a marketplace lists (``listed``), or a folder on the way
    to one: a marketplace listing its own root (``"source": "./"``), or a plugin that is a
    marketplace too, beside plugins below it, which Claude Code installs each (the root's walk
    read only its ``commands/`` and ``skills/``: the others were lost)."""
    return at and (at in listed or any(type(p) is str and p.startswith(at + os.sep) for p in listed)) and MARKET


def _read_inside(path, top, linked=True):
    """The bytes of the file ``path`` when it really is inside the folder ``top`` (a real
    path; ``linked``: ``path`` may be a symlink, so where it leads is checked), opened
    where it was checked through no link, so one swapped in since is refused; ConfigError
    otherwise. (environ.md -> /proc/self/environ would serve the server's environment; a
    plugin's manifest linked from elsewhere would choose what is served.)"""
    real = os.path.realpath(path) if linked else path
    if linked and not _inside(real, top):
        raise ConfigError([(path, "cannot read: a symlink to %s, outside the prompt folder: not followed" % real)])
    return read_regular(real, MAX_FILE_BYTES, nofollow=True)


def _listed_commands(top, real_top, rel_top, named_top, found, problems, real_folder):
    """The command folders a plugin's manifest lists under ``commands``, each walked as its
    ``commands/`` would be; the files it lists go to ``found``, named ``plugin:stem``. Claude
    Code reads them instead of ``commands/`` (manifest-reference "commands"). None where it
    lists none, or the manifest cannot be read (``build`` says why)."""
    manifest = os.path.join(top, ".claude-plugin", "plugin.json")
    try:  # (linked to anywhere in the prompt folder, as it is read for the plugin's name: ``read_folder``)
        listed = codec.load_file(_read_inside(manifest, real_folder), manifest).get("commands")
    except (ConfigError, AttributeError):
        return None
    # (seen: each walked once, the plugin itself not again)
    folders, base, seen = [], rel_top and rel_top + "/", {real_top}
    for path in [listed] if type(listed) is str else listed if type(listed) is list else ():
        # (a relative path: what it names is on the plugin's drive, where relpath works; one that no path can be,
        # a NUL or a lone surrogate, names nothing but the plugin itself, as an absolute one)
        real = _real(top, path) if type(path) is str and not os.path.isabs(path) else None
        where, real = (os.path.join(top, path), real) if real else (top, real_top)
        rel = base + os.path.relpath(where, top).replace(os.sep, "/")
        if not (os.path.exists(where) and _inside(real, real_top)) or real in seen or seen.add(real):
            problems.append((base + ".claude-plugin/plugin.json (commands)", "%s: not in this plugin, or listed twice"
                             % clip(str(path))))
        elif os.path.isdir(where):
            folders.append((rel, where, real, named_top, "command"))
        elif where.lower().endswith(".md"):
            found.append((rel, where, None, named_top + "/" + os.path.basename(where), "command"))
    return folders if type(listed) in (str, list) else None


def _is_folder(entry):
    try:
        return entry.is_dir()
    except OSError:  # (a link that cannot be followed)
        return False


def _plugin(top, real_top, by_name, listed, kind, found, rel_top, named_top, problems, real_folder):
    """Whether the folder ``top`` (its entries ``by_name``) is a Claude Code plugin: it holds
    ``.claude-plugin/`` (not a marketplace's, which holds its marketplace.json alone: its
    plugins are below), or a marketplace read on the way lists it by a path of its own
    (``"source": "./plugins/x"``), with a manifest or without one ("the manifest is
    optional"): True, or the path it is named by, its marketplace entry's name in the
    marketplace's namespace (``named_top``, the marketplace folder's; True where two entries
    give it other names, or one gives ""; a manifest's name still wins, in ``build``).
    ``listed`` (real path -> that) gets the plugins a marketplace here lists, and the skills
    its entries list (``("skill", real path)``); a source elsewhere (a repository) lists
    nothing here. ``MARKET`` when it is a marketplace that is no plugin
    itself: Claude Code reads nothing of it but the plugins it lists, so its README is no
    prompt. A marketplace that cannot be read is no prompt either, and the folder is read
    as any other. The marketplace looked for goes to ``found`` (``_walk``'s) as an entry of
    kind "marketplace" at ``rel_top``, there or not: ``folder_signature`` sees it written,
    edited or removed alone (``read_folder`` passes over it)."""
    # (a skill listed as a plugin too: the one whose skills/ it is in reads it first, as Claude Code reads that
    # plugin; but one holding .claude-plugin/ is a plugin, as Claude Code loads those in .claude/skills, 2.1.157)
    if kind == IN_SKILL and SKILL in by_name and not os.path.lexists(os.path.join(top, ".claude-plugin/plugin.json")):
        return False
    market, read = os.path.join(top, ".claude-plugin", "marketplace.json"), False
    # (in a marketplace, a folder it does not list, a backup/ copy of it, lists nothing)
    if ".claude-plugin" in by_name and (kind != MARKET or real_top in listed):
        where, missing = (rel_top and rel_top + "/") + ".claude-plugin/marketplace.json", []
        found.append((where, market, None, "", "marketplace"))
        try:  # (one that cannot be read lists nothing: told, as a plugin's manifest is)
            data = codec.load_file(_read_inside(market, real_folder), market, explain)
        except ConfigError as exc:  # (none: a plugin's folder)
            data, (at, why) = None, exc.problems[0]
            if os.path.lexists(market):
                problems.append((at.replace(market, where, 1), why))
        read = type(data) is dict and type(data.get("plugins")) is list
        for entry in data["plugins"] if read else ():
            # (a source that is no string, a repository, or holds a NUL or a lone surrogate: it lists nothing)
            if (root := type(entry) is dict and type(entry.get("name")) is str and _real(top, entry.get("source"))):
                if not os.path.isdir(root):  # (nothing to install: said, where 832 skills were left out unsaid)
                    missing.append(entry["source"])
                # (its name takes its folder's place where it is the marketplace itself)
                space = named_top.rpartition("/")[0] if root == real_top else named_top
                name = entry["name"] and (space and space + "/") + entry["name"]
                listed[root] = True if listed.get(root, name) != name else name or True
                skills = entry["skills"] if type(entry.get("skills")) is list else [entry.get("skills")]  # (or one)
                paths = [path for path in (_real(root, s) for s in skills) if path and _inside(path, root)]
                if root == real_top:  # (there, entries that list skills below it replace its skills/; else add)
                    listed[("only", root)] = listed.get(("only", root), True) and any(p != root for p in paths)
                for path in paths:  # (a skill is its entry's, entry:skill; the folders to it and below it read)
                    if os.path.isfile(os.path.join(path, SKILL)):
                        listed.setdefault(("skill", path), name)
                    listed[("dir", path)] = True
                    while path != root:
                        listed[("skills", path)], path = True, os.path.dirname(path)
        if missing:
            problems.append((where + " (plugins)", "no such folder here: " + clip_names(missing, 5, 80)))
        if _is_folder(by_name[".claude-plugin"]) and (
                os.path.lexists(os.path.join(top, ".claude-plugin", "plugin.json")) or not os.path.lexists(market)):
            return listed.get(real_top) or True
    return listed.get(real_top, read and MARKET) if listed else read and MARKET


def _real(base, path):
    """The real path of ``path`` relative to ``base``; None where it has none (no string, a NUL, a lone surrogate)."""
    try:
        return os.path.realpath(os.path.join(base, path))
    except (TypeError, ValueError):
        return None


def _unlisted(listed, real_top, real, kind):
    """Whether ``real``, the real path of a folder in ``real_top``, is one a marketplace leaves out, as no entry lists
    it, nor a folder in it or one it is in: in a skills folder (``kind``) of a plugin at the marketplace's root whose
    entries list skills (they replace that folder), or in a folder on the way to listed skills (only those are read)."""
    if not (listed and kind in (SKILLS, IN_SKILL)) or listed.get(("dir", real_top)):
        return False
    leaves = listed.get(("only", os.path.dirname(real_top))) if kind == SKILLS else ("skills", real_top) in listed
    return bool(leaves) and ("skills", real) not in listed


def _plugin_name(data, where):
    """``(name, None)``: the ``name`` a Claude Code plugin's manifest (``data``, its bytes,
    or why it could not be read) gives its commands and skills, as Claude Code names them (or
    a Gemini CLI extension's, its skills); or ``(None, (path, what is wrong))``."""
    if isinstance(data, str):
        return None, (where, data)
    try:
        manifest = codec.load_file(data, where, explain)  # (worded as a config's mistakes are)
    except ConfigError as exc:
        return None, exc.problems[0]
    given = manifest.get("name") if type(manifest) is dict else None
    if type(given) is str and given.isascii() and given.replace("-", "").isalnum() and (
            given == given.lower() or where.endswith("gemini-extension.json")):  # (Gemini CLI's: any case)
        return given, None
    return None, (where, "not a JSON object" if type(manifest) is not dict else "it gives no name"
                  if "name" not in manifest else "its name must be kebab-case (%sletters, digits and hyphens), "
                  "got %s" % ("" if where.endswith("gemini-extension.json") else "lowercase ",
                              clip(given) if type(given) is str else describe(given)))


def folder_signature(folder, max_depth=MAX_FOLDER_DEPTH):
    """What tells a changed folder: every folder's and prompt file's identity, size,
    mtime and ctime (a file added, removed, renamed or edited changes it: ``cp -p`` or
    ``rsync -t`` may write the same size and mtime, and no tool sets a ctime back)."""
    # (the walk's problems: read's to tell)
    return tuple([("", stat_of(folder))] + [(rel, stat_of(path)) for rel, path, *_ in _walk(folder, max_depth, [])])


#: (a file's format, another's) where the other keeps the name both give: Claude Code serves a skill
#: before a command, OpenCode a command before a skill (packages/opencode/src/command/index.ts)
_YIELDS = {("command", "skill"), ("skill", "opencode")}


def build(config, folders, notes, served, sources):
    """The ``ServerConfig`` of ``config`` (without its ``prompt_dirs``) and the files read
    from ``folders`` (``Folders.read()``: ``[(folder, [(relative path, bytes or problem)] or
    the folder's problem)]``); ``ConfigError`` with every problem of every source at once.
    ``notes`` (a list) gets each file's warnings, ``(path, message)``. With ``served`` (a
    set of file paths), the folders are read leniently: a file with problems is left out
    and its problems go to ``notes`` too, unless it is in ``served`` (a problem of the config
    itself, or a folder that cannot be read, always raises); ``served`` is then set to the
    files served. ``sources`` (a dict) gets each file's prompt name -> ``(file, format)``."""
    prompts = None
    if type(config) is dict:  # (its folders are read: the rest of it is validated)
        config = {k: v for k, v in config.items() if k != "prompt_dirs"}
        prompts = config.setdefault("prompts", [])
    if not folders or type(prompts) is not list:  # (not a list: the validator says what is wrong)
        return load_config(config, owned=True)
    problems, chosen, prompts = [], {}, list(prompts)  # chosen: each file's PromptFile -> its path, in order
    plugins = []  # the plugin manifests read well (served: a bad edit of one refuses a reload)
    owners = {p["name"]: ("prompts[%d]" % i, None) for i, p in enumerate(prompts)  # (name -> where, file)
              if isinstance(p, dict) and isinstance(p.get("name"), str)}
    first, given = len(prompts), [os.path.realpath(folder) for folder, _ in folders]
    for (folder, files), real in zip(folders, given):
        if isinstance(files, str):  # (it could not be read)
            problems.append((folder, files))
            continue
        # (a project's own: its host folders are hidden, never walked into; one given too, not above this one, is read)
        inside = [os.path.join(folder, *pair) for pair in HOSTS if os.path.isdir(os.path.join(
            folder, *pair)) and not any(_inside(os.path.join(real, *pair), g) and not _inside(real, g) for g in given)]
        bare = all(kind == "manifest" for *_, kind in files)  # (a plugin's manifest alone: no prompt file)
        if inside or bare:
            notes.append((folder, "%s%s" % ("no prompt files" if bare else "its host folders are not read", (
                " (give --prompts its host folders themselves: %s)" % ", ".join(inside)) if inside else "")))
        renames = {}  # a plugin's folder-named path -> the one its manifest's name gives
        for rel, data, named, kind in files:
            where = os.path.join(folder, rel)
            if kind == "manifest":  # (by path, before the plugin's own files)
                problems.extend(_manifest(renames, plugins, named, data, where, served, notes))
                continue
            named = _renamed(renames, named) if renames else named
            mine = []
            result = _parse(named, data, where, mine, notes, kind)
            name = result.prompt.get("name") if result is not None else None
            taken = isinstance(name, str) and name in owners
            owner, held = owners[name] if taken else (None, None)
            # (a file that yields to a good one of its name is left out, said so, whichever is read first)
            if held is not None and (result.format, held.format) in _YIELDS and _valid(held, owner):
                notes.extend(_left_out([_duplicate(where, result, name, owner, held)]))
                continue
            # (a good file takes the name of one that yields to it; a good file served before, one a new file took)
            if held is not None and ((held.format, result.format) in _YIELDS or served is not None
                                     and where in served and owner not in served) and _valid(result, where):
                notes.extend(_left_out([_duplicate(owner, held, name, where, result)]))
                del chosen[held]
                taken = False
            if taken:
                mine.append(_duplicate(where, result, name, owner, held))
                _check_apart(result.prompt, where, result, mine)
            # (read leniently: the file is left out; not one served, nor a folder holding one that cannot be read now)
            if mine and served is not None and where not in served and not (
                    os.path.isdir(where) and any(s.startswith(where + os.sep) for s in served)):
                notes.extend(_left_out(mine))
                continue
            problems.extend(mine)
            if result is not None and not taken:
                if isinstance(name, str):
                    owners[name] = (where, result)
                    sources[name] = (where, result.format)
                chosen[result] = where
    origins = [(where, result) for result, where in chosen.items()]
    prompts += [result.prompt for result in chosen]
    loaded, origins = _validated(config, prompts, first, origins, problems, served, notes)
    if problems:
        raise ConfigError(problems)
    if served is not None:
        served.clear()
        served.update((where for where, _ in origins), plugins)
    return loaded


def _valid(result, where):
    """Whether the prompt of a file (``where``, its ``PromptFile`` ``result``) has no
    problem of its own, which the validator would find (only a good file displaces another)."""
    return not _check_apart(result.prompt, where, result, [])


def _duplicate(where, result, name, other, held):
    """The problem of ``where`` (its ``PromptFile`` ``result``) giving ``name``, ``other``'s (``held``'s,
    None for a config's prompt), at the line that names it there."""
    line = held and held.located().get("name")  # (where the other names it: none when its file's name does)
    return "%s:%d" % (where, result.located().get("name", 1)), "duplicate prompt name %r: %s has it too" % (
        name, "%s:%d" % (other, line) if line else other)


def _validated(config, prompts, first, origins, problems, served, notes):
    """``(ServerConfig, origins)`` of ``config`` with ``prompts`` (from ``first`` on, those
    of the files ``origins``), through the one validator; read leniently (``served``), a
    file not served before whose prompt it refuses is left out, said in ``notes``;
    ``ConfigError`` with ``problems`` and the validator's otherwise."""
    while True:
        try:
            return load_config(dict(config, prompts=prompts), owned=True), origins
        except ConfigError as exc:
            located = [_located(p, m, first, origins) for p, m in exc.problems]
            bad = {index for index, _ in located}
            if served is None or problems or not all(i is not None and origins[i][0] not in served for i in bad):
                problems.extend(problem for _, problem in located)
                raise ConfigError(problems)
            notes.extend(_left_out(problem for _, problem in located))
            prompts = prompts[:first] + [p for i, p in enumerate(prompts[first:]) if i not in bad]
            origins = [o for i, o in enumerate(origins) if i not in bad]


def _manifest(renames, read_well, named, data, where, served, notes):
    """Take a Claude Code plugin's manifest (``where``, its bytes ``data``): its name for
    the plugin's folder-named path ``named`` in ``renames``, and ``where`` in
    ``read_well``; else the problems to report: none when it was not served before and is
    read leniently (``notes`` has it, and the folder's name serves)."""
    name, problem = _plugin_name(data, where)
    if name is None and (served is None or where in served):
        return [problem]
    if name is None:
        notes.append((problem[0], problem[1] + "; named after its folder"))
    else:
        renames[named] = named.rpartition("/")[0] + "/" + name if "/" in named else name
        read_well.append(where)
    return []


def _renamed(renames, named):
    """``named`` with the folder-named path of the plugin it is in replaced (``renames``)."""
    parts = named.split("/")  # (the longest folder path first)
    before = next((b for b in ("/".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)) if b in renames), None)
    return named if before is None else renames[before] + named[len(before):]


def _left_out(problems):
    return [(path, message + " (not served)") for path, message in problems]


def _parse(rel, data, where, problems, notes, host):
    """The ``PromptFile`` of one file's bytes, or None after recording its problems (and
    its warnings in ``notes``)."""
    if isinstance(data, str):
        problems.append((where, data))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        problems.append(("%s:%d" % (where, line), "not UTF-8 (save the file as UTF-8)"))
        return None
    try:
        result = parse(rel, text, host)
    except Exception as exc:  # (a fault of ours: it costs that file alone, not the start, nor every other file)
        problems.append((where, "cannot be read: tinymcp failed on it with %s (please report it)" % clip(exc, 120)))
        return None
    notes.extend(("%s:%d" % (where, line), message) for line, message in result.warnings)
    for line, column, path, message in result.problems:
        at = "%s:%d" % (where, line) + (":%d" % column if column else "")
        problems.append(("%s: %s" % (at, path) if path else at, message))
    if result.prompt is None and result.fields is not None:
        # (its messages stood in for: theirs are the problems just told)
        _check_apart(dict(result.fields, messages=[{"role": "user", "text": "-"}]), where, result, problems)
    return result if result.prompt is not None else None


def _check_apart(prompt, where, result, problems):
    """The problems of a file's ``prompt`` that is not served (all are reported at once),
    added to ``problems``, which is returned."""
    try:
        load_config({"prompts": [prompt]})
    except ConfigError as exc:
        problems.extend(_located(p, m, 0, [(where, result)])[1] for p, m in exc.problems)
    return problems


def _located(path, message, first, origins):
    """``(index of the file, problem)``: a validator problem ``prompts[i].rest`` of a file's
    prompt, at its file and line; the index None and the problem as it is for one of the
    config's own."""
    index, _, rest = path[8:].partition("]")
    if not path.startswith("prompts[") or not index.isdigit() or int(index) < first:
        return None, (path, message)
    index = int(index) - first
    where, result = origins[index]
    lines = result.located()
    rest = rest.lstrip(".")
    probe = rest[:MAX_PATH + 1]  # (no longer one is named: cut a piece at a time, 400,000 took 27 s)
    while probe not in lines and probe:
        probe = probe[:max(probe.rfind("."), probe.rfind("["), 0)]
    at = "%s:%d" % (where, lines.get(probe, 1))
    return index, (("%s: %s" % (at, rest) if rest else at), message)
