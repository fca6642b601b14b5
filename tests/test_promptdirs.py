"""Folders of prompt files: found recursively, named by their place, served with the
config's own prompts through the one validator, every problem at its file and line,
reloaded live (SIGHUP, --watch), and shown to authors by --list and --render.

Process tests wait for frames and stderr lines only (``GUARD`` is a failure guard).
"""

import importlib
import json
import os
import signal
import sys

import pytest

pytest.importorskip("tinymcp.files", reason="a copy without files/")

from conftest import INITIALIZED, LIST_CHANGED, PACKAGE, Wire, bounded, initialize, req
from transport_helpers import EOF, run

tinymcp = importlib.import_module(PACKAGE)
promptdirs = importlib.import_module(PACKAGE + ".files.folders")

needs_tomllib = pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is 3.11+")

REVIEW = ("---\ntitle: Review code\ndescription: Review a change\narguments:\n  - name: code\n"
          "    required: true\n---\nReview {{code}}\n")
FIX = "---\nargument-hint: [issue]\n---\nFix issue $1.\n"
FORM = "---\nmode: agent\n---\nMake ${input:formName:MyForm}.\n"
COMMIT = 'description = "Commit"\nprompt = "Commit {{args}}"\n'


def write(root, files):
    """Write ``{relative path: text}`` under ``root`` (folders made as needed)."""
    for rel, text in files.items():
        path = os.path.join(str(root), *rel.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    return str(root)


def names(config):
    return config.prompts.names


def problems_of(fn, *args, **kwargs):
    with pytest.raises(tinymcp.ConfigError) as info:
        fn(*args, **kwargs)
    return str(info.value).splitlines()


def mixed(root):
    files = {"review.md": REVIEW, "git/fix.md": FIX, "ui/form.prompt.md": FORM,
             "notes.txt": "not a prompt", ".hidden.md": "skipped", ".git/x.md": "skipped"}
    if sys.version_info >= (3, 11):
        files["git/commit.toml"] = COMMIT
    return write(root, files)


# --- loading ---------------------------------------------------------------------------------


def test_a_claude_plugin_folder_that_is_a_link_to_itself_is_no_plugin_and_no_crash(tmp_path):
    # (asked whether it is a folder, the link loop raised ELOOP out of the walk: the start ended)
    os.symlink(".claude-plugin", str(tmp_path / ".claude-plugin"))
    (tmp_path / "x.md").write_text("Hi\n")
    assert names(tinymcp.load_files(None, None, [str(tmp_path)])) == ["x"]


def test_a_file_tinymcp_fails_on_costs_that_file_alone(tmp_path, monkeypatch):
    # (a fault of ours, as an IndexError on a list item of a dash and a tab was, ended the start
    # with a traceback: every other file lost too)
    parse = promptdirs.parse
    monkeypatch.setattr(promptdirs, "parse", lambda rel, text, host=None: 1 / 0 if rel == "bad.md" else parse(
        rel, text, host))
    (tmp_path / "bad.md").write_text("Hi\n")
    (tmp_path / "good.md").write_text("Hello\n")
    told = "cannot be read: tinymcp failed on it with ZeroDivisionError('division by zero') (please report it)"
    notes = []
    assert names(tinymcp.load_files(None, None, [str(tmp_path)], notes)) == ["good"]
    assert notes == [(str(tmp_path / "bad.md"), told + " (not served)")]
    with pytest.raises(tinymcp.ConfigError) as exc:
        tinymcp.load_files(None, None, [str(tmp_path)])
    assert exc.value.problems == [(str(tmp_path / "bad.md"), told)]

def test_a_folder_mixing_formats_is_served_in_path_order_with_namespaced_names(tmp_path):
    config = tinymcp.load_files(prompt_dirs=[mixed(tmp_path)])
    expected = ["git:commit", "git:fix", "review", "ui:form"]
    if sys.version_info < (3, 11):
        expected.remove("git:commit")
    assert names(config) == expected


def test_the_config_prompts_come_first_and_prompt_dirs_are_relative_to_base(tmp_path):
    write(tmp_path / "lib", {"review.md": REVIEW})
    config = tinymcp.load_files({"prompts": [{"name": "own", "messages": [{"role": "user", "text": "x"}]}],
                                 "prompt_dirs": ["lib"]}, base=str(tmp_path))
    assert names(config) == ["own", "review"]
    server = tinymcp.Server(config)
    assert server.config.prompts.get("review")["name"] == "review"


def test_serve_dicts_with_prompt_dirs_but_server_and_load_config_say_where_to_go(tmp_path):
    message = ("prompt_dirs: prompt folders are read by tinymcp.serve(), tinymcp.load_files() and the "
               "command line: pass Server() what load_files(config) returns")
    assert problems_of(tinymcp.load_config, {"prompts": [], "prompt_dirs": ["x"]}) == [message]


@pytest.mark.parametrize("kwargs, problem", [
    # Bug: a string was taken for a list of one-letter folders ("/x": the whole file system
    # from / read first), and [None] or a base that is no string raised a bare TypeError
    ({"prompt_dirs": "no such folders"}, "prompt_dirs: expected a list of folder paths (strings)"),
    ({"prompt_dirs": [None]}, "prompt_dirs: expected a list of folder paths (strings)"),
    ({"prompt_dirs": [""]}, "prompt_dirs: expected a list of folder paths (strings)"),
    ({"base": 123}, "base: expected a folder path (a string), got the number 123"),
])
def test_load_files_checks_its_folders_as_a_configs(kwargs, problem):
    assert problems_of(tinymcp.load_files, **kwargs) == [problem]


def test_two_files_with_one_name_are_an_error_naming_both(tmp_path):
    root = write(tmp_path, {"a.md": "x\n", "b.md": "---\nname: a\n---\ny\n", "c/d.md": "z\n"})
    assert problems_of(tinymcp.load_files, {"prompts": [{"name": "c:d", "messages": [
        {"role": "user", "text": "q"}]}]}, prompt_dirs=[root]) == [
        "%s: duplicate prompt name 'a': %s has it too" % (os.path.join(root, "b.md:2"),
                                                          os.path.join(root, "a.md")),
        "%s: duplicate prompt name 'c:d': prompts[0] has it too" % os.path.join(root, "c/d.md:1")]
    # (the other file's line too, where it gives the name: the one of two to change may be that one)
    other = write(tmp_path / "o", {"e.md": "---\nname: q\n---\ne\n", "f.md": "---\ndescription: F\nname: q\n---\nf\n"})
    assert problems_of(tinymcp.load_files, prompt_dirs=[other]) == [
        "%s: duplicate prompt name 'q': %s has it too" % (os.path.join(other, "f.md:3"), os.path.join(other, "e.md:2"))]


def test_a_file_whose_name_is_taken_has_its_other_problems_listed_too(tmp_path):
    root = write(tmp_path, {"review.md": "---\narguments:\n  - name: code\n    required: \"yes\"\n---\n"
                                         "Review {{code}}\n"})
    assert problems_of(tinymcp.load_files, {"prompts": [{"name": "review", "messages": [
        {"role": "user", "text": "q"}]}]}, prompt_dirs=[root]) == [
        "%s: duplicate prompt name 'review': prompts[0] has it too" % os.path.join(root, "review.md:1"),
        "%s: arguments[0].required: expected true or false, got the string 'yes'" % os.path.join(root, "review.md:4")]


def test_every_problem_of_every_file_at_once_with_file_and_line(tmp_path):
    root = write(tmp_path, {
        "review.md": REVIEW.replace("required: true", "required: yes"),
        "bad.md": "---\ntitle: [x]\nicons: 3\n---\nx\n",
        "hbs.md": "Hi\n{{ user.name }}\n",
        "latin.md": b"caf\xe9".decode("latin-1"),
        "ok.md": "fine\n"})
    with open(os.path.join(root, "latin.md"), "wb") as f:
        f.write(b"line one\ncaf\xe9\n")
    at = lambda rel: os.path.join(root, rel)  # noqa: E731
    assert problems_of(tinymcp.load_files, prompt_dirs=[root]) == [
        "%s:2:1: {{user.name}}: template logic (Handlebars, Mustache, Jinja or Go template code) is not "
        "run here; write \\{{ to keep it as text" % at("hbs.md"),
        "%s:2: not UTF-8 (save the file as UTF-8)" % at("latin.md"),
        "%s:2: title: expected a string, got a list" % at("bad.md"),
        "%s:3: icons: expected a list, got the number 3" % at("bad.md"),
        "%s:6: arguments[0].required: expected true or false, got the string 'yes'" % at("review.md")]


def test_a_folder_that_cannot_be_listed_is_a_problem_not_silently_empty(tmp_path, monkeypatch):
    # Bug: os.walk skips what it cannot list, so an unreadable prompt folder was served as
    # no prompts (exit 0), and an unreadable subfolder's files vanished unsaid. (chmod
    # cannot show it to root, who reads anything: listing is refused here instead.)
    root = write(tmp_path, {"ok.md": "fine\n", "sub/x.md": "x\n", "sub/deeper/y.md": "y\n"})
    refused = set()
    real_scandir = os.scandir

    def scandir(path="."):
        if os.fspath(path) in refused:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    refused.add(os.path.join(root, "sub"))
    assert problems_of(tinymcp.load_files, prompt_dirs=[root]) == [
        "%s: cannot read the folder: Permission denied" % os.path.join(root, "sub")]
    refused.add(root)
    assert problems_of(tinymcp.load_files, prompt_dirs=[root]) == [
        "%s: cannot read the prompt folder: Permission denied" % root]


def test_a_files_body_problems_do_not_hide_its_other_fields_problems(tmp_path):
    # Bug: a problem in the body (or no body) left the front matter unchecked: its problems
    # came one fix later, and an undeclared-looking {{1}} hid that the argument's name is no
    # string
    root = write(tmp_path, {"a.md": "---\ntitle: 5\n---\n{{zz}}\n",
                            "b.md": "---\narguments: [{name: 1}]\n---\n{{1}}\n",
                            "c.md": "---\ndescription: [x]\n---\n"})
    at = lambda rel: os.path.join(root, rel)  # noqa: E731
    undeclared = ("placeholder {{%s}} names no declared argument (declare it under 'arguments:', "
                  "or write \\{{ for literal braces)")
    assert problems_of(tinymcp.load_files, prompt_dirs=[root]) == [
        "%s:4:1: %s" % (at("a.md"), undeclared % "zz"),
        '%s:2: title: expected a string, got the number 5 (in quotes it is text)' % at("a.md"),
        "%s:4:1: %s" % (at("b.md"), undeclared % "1"),
        '%s:2: arguments[0].name: expected a string, got the number 1 (in quotes it is text)' % at("b.md"),
        "%s:4: no prompt text: write it after the front matter" % at("c.md"),
        "%s:2: description: expected a string, got a list" % at("c.md")]


def test_a_name_that_is_no_name_is_a_problem_in_every_format_and_folder(tmp_path):
    # Bug: a null name (MCP Markdown) or one that is no string (VS Code) was dropped for the
    # file's stem, and an empty one in a subfolder served as "git:"
    root = write(tmp_path, {"a.md": "---\nname:\n---\nx\n", "git/b.md": "---\nname: ''\n---\nx\n",
                            "c.prompt.md": "---\nname: 5\n---\nx\n", "d.prompt.md": "---\nname: [a]\n---\nx\n"})
    at = lambda rel: os.path.join(root, rel)  # noqa: E731
    assert problems_of(tinymcp.load_files, prompt_dirs=[root]) == [
        "%s:2: name: expected a string, got null" % at("a.md"),
        '%s:2: name: expected a string, got the number 5 (in quotes it is text)' % at("c.prompt.md"),
        "%s:2: name: expected a string, got a list" % at("d.prompt.md"),
        "%s:2: name: expected a non-empty string" % at(os.path.join("git", "b.md"))]


def test_a_file_name_with_a_bidirectional_override_is_refused_naming_the_file(tmp_path):
    root = write(tmp_path, {"evil\u202egpj.md": "x\n", "fine.md": "y\n"})
    [problem] = problems_of(tinymcp.load_files, prompt_dirs=[root])
    assert problem.startswith(os.path.join(root, "evil\u202egpj.md")) and "'\\u202e'" in problem


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is 3.11+")
def test_a_toml_files_problems_are_at_the_line_of_their_key(tmp_path):
    # Bug: every problem of a Gemini CLI .toml was put at line 1
    root = write(tmp_path, {"g.toml": 'prompt = """\ndescription = "in the text"\n"""\nx = [\n  "description = 1",\n]\n'
                                      '# description = 2\n\ndescription = 3\n',
                            "h.toml": "# a command\n\nprompt = ''' '''\n"})
    assert problems_of(tinymcp.load_files, prompt_dirs=[root]) == [
        "%s:3: prompt: empty: write the command's text" % os.path.join(root, "h.toml"),
        '%s:9: description: expected a string, got the number 3 (in quotes it is text)' % os.path.join(root, "g.toml")]


def test_a_configs_folder_meant_for_a_shell_is_told_so_not_joined_to_the_configs_folder(tmp_path):
    # Bug: "~/x" was looked for as <config's folder>/~/x, with no hint; "$HOME/y" got a hint
    # with a wrong path (<config's folder>//root/y)
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"prompt_dirs": ["~/nope-tinymcp", "$HOME/nope-tinymcp"], "prompts": []}))
    rc, out, err = run(["--check", "--config", str(cfg)])
    home = os.path.expanduser("~")
    assert (rc, out) == (1, "")
    assert err.splitlines()[1:] == [
        "  ~/nope-tinymcp: cannot read the prompt folder: no such folder (the shell did not expand ~: "
        "write the full path, %s)" % os.path.join(home, "nope-tinymcp"),
        "  $HOME/nope-tinymcp: cannot read the prompt folder: no such folder (the shell did not expand "
        "$HOME: write the full path, %s)" % os.path.join(os.environ["HOME"], "nope-tinymcp")]


def test_a_missing_folder_and_a_fifo_are_config_errors_not_hangs(tmp_path):
    missing = str(tmp_path / "nope")
    assert problems_of(tinymcp.load_files, prompt_dirs=[missing]) == [
        "%s: cannot read the prompt folder: no such folder" % missing]
    if not hasattr(os, "mkfifo"):
        return
    os.mkfifo(str(tmp_path / "pipe.md"))
    assert problems_of(tinymcp.load_files, prompt_dirs=[str(tmp_path)]) == [
        "%s: cannot read: not a regular file" % str(tmp_path / "pipe.md")]


def test_every_folder_that_cannot_be_read_is_reported_beside_every_file_problem(tmp_path):
    # Bug: the first missing folder ended the load, hiding the other folders' problems
    bad = write(tmp_path / "bad", {"a.md": "---\ntitle: [x]\n---\nx\n"})
    nope1, nope2 = str(tmp_path / "nope1"), str(tmp_path / "nope2")
    assert problems_of(tinymcp.load_files, prompt_dirs=[nope1, bad, nope2]) == [
        "%s: cannot read the prompt folder: no such folder" % nope1,
        "%s: cannot read the prompt folder: no such folder" % nope2,
        "%s:2: title: expected a string, got a list" % os.path.join(bad, "a.md")]


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    root = write(tmp_path, {"big.md": "x" * 100})
    monkeypatch.setattr(promptdirs, "MAX_FILE_BYTES", 10)
    assert problems_of(tinymcp.load_files, prompt_dirs=[root]) == [
        "%s: cannot read: 100 bytes, over the 10-byte limit" % os.path.join(root, "big.md")]


def test_an_empty_folder_serves_no_prompts(tmp_path):
    assert names(tinymcp.load_files(prompt_dirs=[str(tmp_path)])) == []


def test_a_symlink_to_a_file_outside_the_folder_is_refused_naming_it(tmp_path):
    # Bug: environ.md -> /proc/self/environ served the server's environment to every client
    root = write(tmp_path / "p", {"a.md": "A\n"})
    secret = write(tmp_path, {"secret": "the server user's file\n"})
    os.symlink(os.path.join(secret, "secret"), os.path.join(root, "leak.md"))
    os.symlink("a.md", os.path.join(root, "alias.md"))  # (inside the folder: followed)
    targets = [os.path.join(secret, "secret")]
    if os.path.exists("/proc/self/environ"):
        os.symlink("/proc/self/environ", os.path.join(root, "environ.md"))
        targets.insert(0, "/proc/self/environ")
    assert problems_of(tinymcp.load_files, prompt_dirs=[root]) == [
        "%s: cannot read: a symlink to %s, outside the prompt folder: not followed"
        % (os.path.join(root, name), os.path.realpath(target))
        for name, target in zip(["environ.md", "leak.md"][-len(targets):], targets)]
    os.remove(os.path.join(root, "leak.md"))
    if len(targets) > 1:
        os.remove(os.path.join(root, "environ.md"))
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["a", "alias"]


@pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="no O_NOFOLLOW here")
def test_a_file_swapped_for_an_outside_symlink_after_the_walk_is_not_read(tmp_path, monkeypatch):
    # Bug: b.md, a plain file when the folder was listed and a symlink to a file outside it
    # when it was opened, served the outside file's text (a race a writer of the folder can win)
    root = write(tmp_path / "p", {"a.md": "A\n", "b.md": "B\n"})
    secret = os.path.join(write(tmp_path, {"secret.md": "outside\n"}), "secret.md")
    walk = promptdirs._walk

    def swapping(*args):
        for item in walk(*args):
            if item[0] == "b.md":  # (listed as a file: now a link leading outside)
                os.remove(os.path.join(root, "b.md"))
                os.symlink(secret, os.path.join(root, "b.md"))
            yield item
    monkeypatch.setattr(promptdirs, "_walk", swapping)
    assert problems_of(tinymcp.load_files, prompt_dirs=[root]) == [
        "%s: cannot read: a symlink, not followed (a loop, or put there since it was listed)" % os.path.join(
            root, "b.md")]


def test_a_symlink_loop_in_a_folder_is_told_as_a_loop_may_be(tmp_path):
    # (it was told "replaced since it was listed": nothing had been)
    root = write(tmp_path / "p", {"a.md": "A\n"})
    os.symlink("loopb.md", os.path.join(root, "loopa.md"))
    os.symlink("loopa.md", os.path.join(root, "loopb.md"))
    assert problems_of(tinymcp.load_files, prompt_dirs=[root]) == [
        "%s: cannot read: a symlink, not followed (a loop, or put there since it was listed)" % os.path.join(
            root, name) for name in ("loopa.md", "loopb.md")]


def test_files_past_the_folders_byte_bound_are_left_out_each_named(tmp_path, monkeypatch):
    # Bug: nothing bounded what a folder's files hold together: 2,000 links to one 1 MiB file
    # took --check to 4 GB (a MemoryError traceback where memory was capped)
    root = write(tmp_path, {"a.md": "A" * 40 + "\n", "b.md": "B" * 40 + "\n", "c.md": "C\n"})
    monkeypatch.setattr(promptdirs, "MAX_FOLDER_BYTES", 60)
    notes = []
    assert names(tinymcp.load_files(prompt_dirs=[root], notes=notes)) == ["a"]
    assert notes == [(os.path.join(root, name), "the prompt folder's files hold more than 60 bytes "
                      "together (not served)") for name in ("b.md", "c.md")]


def test_a_plugin_manifest_linked_from_outside_is_not_read_for_what_it_lists(tmp_path):
    # Bug: plugin.json -> a file outside was refused as the plugin's, yet read for its
    # "commands": the outside file chose what was served, its strings told in the problems
    root = write(tmp_path / "p", {"plug/commands/c.md": "C\n", "plug/other/o.md": "O\n"})
    outside = write(tmp_path / "out", {"plugin.json": '{"name": "x", "commands": ["./other", "TOKEN-1"]}'})
    manifest = os.path.join(root, "plug", ".claude-plugin", "plugin.json")
    os.makedirs(os.path.dirname(manifest))
    os.symlink(os.path.join(outside, "plugin.json"), manifest)
    assert problems_of(tinymcp.load_files, prompt_dirs=[root]) == [
        "%s: cannot read: a symlink to %s, outside the prompt folder: not followed"
        % (manifest, os.path.join(os.path.realpath(outside), "plugin.json"))]


def test_a_manifest_linked_to_elsewhere_in_the_folder_is_read_for_its_name_and_what_it_lists(tmp_path):
    # (read for the plugin's name, it was refused for its "commands" and a marketplace's "plugins",
    # silently: commands/ was served instead, and a marketplace's own files as prompts)
    root = write(tmp_path / "p", {"plug/commands/c.md": "C\n", "plug/other/o.md": "O\n",
                                  "shared/plugin.json": '{"name": "x", "commands": ["./other"]}',
                                  "shared/marketplace.json": '{"plugins": [{"name": "m", "source": "./mine"}]}',
                                  "market/mine/commands/h.md": "H\n", "market/README.md": "Read me\n"})
    for folder, target in (("plug", "plugin.json"), ("market", "marketplace.json")):
        os.makedirs(os.path.join(root, folder, ".claude-plugin"))
        os.symlink(os.path.join(root, "shared", target), os.path.join(root, folder, ".claude-plugin", target))
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["market:m:h", "x:o"]


def test_a_symlinked_folder_is_followed_once_when_it_stays_inside_the_folder(tmp_path):
    # (`npx skills add` links each skill's folder into the host's skills folder: such a
    # skill was skipped without a word)
    root = write(tmp_path / "p", {".agents/pdf/SKILL.md": "---\ndescription: PDFs\n---\nUse it.\n",
                                  "skills/tip.md": "A tip.\n"})
    os.symlink(os.path.join("..", ".agents", "pdf"), os.path.join(root, "skills", "pdf"))
    os.symlink("..", os.path.join(root, "skills", "up"))  # (a loop: walked once)
    os.symlink(".", os.path.join(root, "skills", "here"))  # (one to a folder it is in, not the root's)
    outside = write(tmp_path / "elsewhere", {"x.md": "X\n"})
    os.symlink(outside, os.path.join(root, "out"))
    notes = []
    assert names(tinymcp.load_files(prompt_dirs=[root], notes=notes)) == ["skills:pdf", "skills:tip"]
    # (as `npx skills add` links .claude/skills/x to .agents/skills/x: what to serve is named)
    assert notes == [(os.path.join(root, "out"), "a symlink to %s, outside the prompt folder: not followed; give that "
                      "folder as a prompt folder of its own (not served)" % os.path.realpath(outside))]


@pytest.mark.skipif(not os.path.exists("/proc/self/environ"), reason="needs procfs")
def test_a_proc_file_is_never_read_though_it_says_it_is_regular():
    # (procfs files are regular files of size 0 whose reads return their contents)
    rc, out, err = run(["--check", "--config", "/proc/self/environ"])
    assert (rc, out) == (1, "")
    assert err == ("tinymcp: /proc/self/environ: cannot read: not a regular file (it holds other than "
                   "the 0 bytes its size says, as /proc and /sys files do)\n")


def _nested(root, depth):
    """``depth`` folders, one in the other, under ``root``, a prompt file in the deepest
    (made one at a time: os.makedirs recurses)."""
    path = str(root)
    os.makedirs(path, exist_ok=True)
    for _ in range(depth):
        path = os.path.join(path, "d")
        os.mkdir(path)
    write(path, {"deep.md": "Deep\n"})
    return os.path.join(str(root), "d")


def _remove_nested(top):
    """Remove what ``_nested`` made at ``top``, deepest first (shutil.rmtree recurses)."""
    depth = 0
    while os.path.isdir(os.path.join(top, *["d"] * (depth + 1))):
        depth += 1
    for level in range(depth, -1, -1):
        path = os.path.join(top, *["d"] * level)
        for name in os.listdir(path):
            if not os.path.isdir(os.path.join(path, name)):
                os.remove(os.path.join(path, name))
        os.rmdir(path)


def test_folders_deeper_than_max_folder_depth_are_a_problem_not_a_crash(tmp_path):
    # Bug: ~1,000 nested folders took the walk past the recursion limit (a traceback)
    root = write(tmp_path / "p", {"a.md": "A\n"})
    _nested(root, 1100)
    try:
        rc, out, err = run(["--check", "--prompts", root])
    finally:
        _remove_nested(os.path.join(root, "d"))
    too_deep = "/".join(["d"] * 33)
    assert (rc, out) == (1, "")
    assert err.splitlines() == [
        "tinymcp: invalid prompt files in %s:" % root,
        "  %s: a folder more than 32 deep below the prompt folder: not read "
        "(limits.max_folder_depth)" % os.path.join(root, too_deep)]
    shallow = write(tmp_path / "q", {"a.md": "A\n"})
    _nested(shallow, 3)
    config = {"limits": {"max_folder_depth": 3}, "prompts": []}
    assert names(tinymcp.load_files(config, prompt_dirs=[shallow])) == ["a", "d:d:d:deep"]
    config["limits"]["max_folder_depth"] = 2
    assert problems_of(tinymcp.load_files, config, prompt_dirs=[shallow]) == [
        "%s: a folder more than 2 deep below the prompt folder: not read (limits.max_folder_depth)"
        % os.path.join(shallow, "d", "d", "d")]
    config["limits"]["max_folder_depth"] = 0  # (the least: only the folder's own files)
    assert problems_of(tinymcp.load_files, config, prompt_dirs=[shallow]) == [
        "%s: a folder more than 0 deep below the prompt folder: not read (limits.max_folder_depth)"
        % os.path.join(shallow, "d")]


# --- the command line -----------------------------------------------------------------------

def test_check_lists_every_problem_of_every_file(tmp_path):
    root = write(tmp_path, {"a.md": "Hi {{who}}\n", "b/c.md": "---\ntitle: 3\n---\nx\n"})
    rc, out, err = run(["--prompts", root, "--check"])
    assert (rc, out) == (1, "")
    assert err.splitlines() == [
        "tinymcp: invalid prompt files in %s:" % root,
        "  %s:1:4: placeholder {{who}} names no declared argument (declare it under 'arguments:', "
        "or write \\{{ for literal braces)" % os.path.join(root, "a.md"),
        '  %s:2: title: expected a string, got the number 3 (in quotes it is text)' % os.path.join(root, "b/c.md")]


def test_check_counts_the_prompts_of_config_and_folders_together(tmp_path):
    root = write(tmp_path / "p", {"review.md": REVIEW, "git/fix.md": FIX})
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"prompts": [{"name": "own", "messages": [{"role": "user", "text": "x"}]}],
                               "prompt_dirs": ["p"]}))
    rc, out, err = run(["--config", str(cfg), "--check"])
    assert (rc, out, err) == (0, "%s: ok, 3 prompts\n" % cfg, "")
    rc, out, err = run(["--config", str(cfg), "--prompts", root, "--check"])  # (p given twice: read once)
    assert (rc, out, err) == (0, "%s, %s: ok, 3 prompts\n" % (cfg, root), "")


def test_list_shows_a_files_control_characters_escaped(tmp_path):
    # Bug: a skill in a folder named with ESC, or a description holding it, sent the raw
    # codes to the terminal of whoever previewed the folder (clear the screen, recolour)
    root = write(tmp_path, {"\x1b[2Jx/SKILL.md": "---\nname: x\ndescription: \"a \\e[31mred\"\n---\nBody\n"})
    rc, out, err = run(["--prompts", root, "--list"])
    assert (rc, "\x1b" in out + err) == (0, False)  # (stderr: the name is not its folder's)
    assert out.splitlines()[1:3] == ["    from %s (skill)" % os.path.join(root, "\\x1b[2Jx", "SKILL.md"),
                                     "    a \\x1b[31mred"]


def test_list_shows_names_titles_sources_descriptions_and_arguments(tmp_path):
    root = write(tmp_path, {"review.md": REVIEW, "git/fix.md": FIX})
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"prompts": [{"name": "own", "messages": [{"role": "user", "text": "x"}]}]}))
    rc, out, err = run(["--config", str(cfg), "--prompts", root, "--list"])
    assert (rc, err) == (0, "")
    assert out.splitlines() == [
        "own",
        "    from %s (json)" % cfg,
        "git:fix",
        "    from %s (command)" % os.path.join(root, "git", "fix.md"),
        "    Fix issue $1.",  # (no description: the body's first line, as Claude Code shows it)
        "    --arg issue=...  Argument 1",
        "review  (Review code)",
        "    from %s (mcp)" % os.path.join(root, "review.md"),
        "    Review a change",
        "    --arg code=...  (required)"]
    rc, out, err = run(["--config", str(cfg), "--prompts", root, "--list", "--json"])
    assert [(p["name"], p.get("source"), p.get("format"), len(p.get("arguments", ())))
            for p in json.loads(out)] == [("own", str(cfg), "json", 0),
                                          ("git:fix", os.path.join(root, "git", "fix.md"), "command", 1),
                                          ("review", os.path.join(root, "review.md"), "mcp", 1)]


def test_render_prints_what_prompts_get_sends_and_refuses_as_it_does(tmp_path):
    root = write(tmp_path, {"chat.md": "---\narguments:\n  - name: q\n---\nAsk {{q}}\n"
                                       "<!-- role: assistant -->\nOK\n", "review.md": REVIEW})
    rc, out, err = run(["--prompts", root, "--render", "chat", "--arg", "q=why {q}"])
    assert (rc, out, err) == (0, "--- user ---\nAsk why {q}\n--- assistant ---\nOK\n", "")
    rc, out, err = run(["--prompts", root, "--render", "review"])
    assert (rc, out) == (1, "")
    assert err == "tinymcp: Invalid arguments for prompt 'review': missing required arguments: 'code'\n"
    rc, out, err = run(["--prompts", root, "--render", "nope"])
    assert (rc, err) == (1, "tinymcp: Unknown prompt: 'nope' (--list shows them all)\n")
    rc, out, err = run(["--prompts", root, "--render", "reveiw"])  # (a slip: what was meant is named)
    assert (rc, err) == (1, "tinymcp: Unknown prompt: 'reveiw' (did you mean 'review'? --list shows them all)\n")


def test_render_shows_an_embedded_resource_as_one_with_its_uri(tmp_path):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"prompts": [{"name": "r", "messages": [
        {"role": "user", "text": "Review"},
        {"role": "user", "content": {"type": "resource", "resource": {
            "uri": "file:///style.md", "mimeType": "text/markdown", "text": "Our style guide"}}}]}]}))
    rc, out, err = run(["--config", str(cfg), "--render", "r"])
    assert (rc, out, err) == (0, "--- user ---\nReview\n--- user ---\n"
                                 "[resource <file:///style.md> (text/markdown)]\nOur style guide\n", "")


@pytest.mark.parametrize("args, message", [
    (["--arg", "a=b"], "--arg needs --render NAME"),
    (["--render", "x", "--arg", "ab"], "--arg needs NAME=VALUE, got 'ab'"),
    (["--render", "x", "--arg", "a=1", "--arg", "a=2"], "--arg a given twice"),
    (["--list", "--render", "x"], "--list and --render: one at a time"),
    # (each of these was done alone, the other silently not: no socket made, no list printed)
    (["--check", "--list"], "--check and --list: one at a time"),
    (["--socket", "/tmp/s", "--list"], "--list and --socket: one at a time"),
    (["--watch"], "--watch needs --config FILE or --prompts DIR"),
    (["--prompts="], "--prompts needs a directory (got an empty value: is a shell variable unset?)"),
    (["--connect", "/s", "--prompts", "d"], "--connect bridges to a running server: it takes no "
                                             "other option (got --prompts)"),
])
def test_usage_errors_of_the_new_options(args, message):
    rc, out, err = run(args)
    assert rc == 2 and err.startswith("tinymcp: %s\n" % message)


# --- live: SIGHUP and --watch -----------------------------------------------------------------

def _listed(proc, rid):
    return [p["name"] for p in proc.call(req(rid, "prompts/list"))["result"]["prompts"]]


def _serving(world, root, *extra):
    proc = world.stdio("--prompts", root, *extra)
    assert proc.call(initialize())["result"]["capabilities"]["prompts"] == {"listChanged": True}
    proc.send(INITIALIZED)
    return proc


def test_watch_picks_up_files_added_edited_renamed_and_removed(world):
    root = write(world.path("p"), {"a.md": "A\n"})
    proc = _serving(world, root, "--watch")
    write(root, {"sub/b.md": "B\n"})
    assert proc.frame() == LIST_CHANGED
    assert _listed(proc, 2) == ["a", "sub:b"]
    write(root, {"a.md": "A, edited\n"})
    assert proc.frame() == LIST_CHANGED
    got = proc.call(req(3, "prompts/get", {"name": "a"}))
    assert got["result"]["messages"][0]["content"]["text"] == "A, edited"
    os.rename(os.path.join(root, "sub", "b.md"), os.path.join(root, "c.md"))
    assert proc.frame() == LIST_CHANGED
    assert _listed(proc, 4) == ["a", "c"]
    os.remove(os.path.join(root, "c.md"))
    assert proc.frame() == LIST_CHANGED
    assert _listed(proc, 5) == ["a"]
    rc, err, out = proc.finish(EOF)
    assert (rc, out) == (0, b""), err


def test_an_invalid_edit_keeps_the_old_prompts_and_logs_every_problem(world):
    root = write(world.path("p"), {"a.md": "A\n", "b.md": "B\n"})
    proc = _serving(world, root)
    write(root, {"a.md": "{{x}}\n", "b.md": "---\ntitle: 3\n---\nB\n"})
    proc.kill(signal.SIGHUP)
    proc.wait_stderr("invalid prompt files in %s (SIGHUP): still serving the previous prompts" % root)
    proc.wait_stderr("%s:1:1: placeholder {{x}}" % os.path.join(root, "a.md"))
    proc.wait_stderr("%s:2: title: expected a string" % os.path.join(root, "b.md"))
    assert _listed(proc, 2) == ["a", "b"]
    rc, err, out = proc.finish(EOF)
    assert (rc, out) == (0, b""), err  # (no list_changed was sent: nothing changed)


def test_a_very_deep_tree_renamed_into_a_watched_folder_keeps_the_server_and_its_prompts(world):
    # Bug: the watch walk raised RecursionError outside any handler: exit 1
    root = write(world.path("p"), {"a.md": "A\n"})
    proc = _serving(world, root, "--watch")
    os.rename(_nested(world.path("elsewhere"), 1100), os.path.join(root, "d"))
    try:  # (the folder too deep is left out, and said so: the rest is served)
        proc.wait_stderr("a folder more than 32 deep below the prompt folder: not read "
                         "(limits.max_folder_depth) (not served)")
        assert _listed(proc, 2) == ["a"]
    finally:
        _remove_nested(os.path.join(root, "d"))
    rc, err, out = proc.finish(EOF)
    assert (rc, out) == (0, b""), err


def test_a_rewrite_that_serves_the_same_prompts_tells_no_one(world):
    root = write(world.path("p"), {"a.md": "A\n"})
    proc = _serving(world, root)
    write(root, {"a.md": "A\n\n\n"})  # other bytes, the same prompt
    proc.kill(signal.SIGHUP)
    proc.wait_stderr("reloaded %s (SIGHUP)" % root)
    write(root, {"a.md": "Another\n"})
    proc.kill(signal.SIGHUP)
    assert proc.frame() == LIST_CHANGED  # (the first frame: the same-prompts reload sent none)
    rc, err, out = proc.finish(EOF)
    assert (rc, out) == (0, b""), err


# --- the README's example folder ----------------------------------------------------------------

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "examples",
                        "prompts")


def test_the_example_folder_loads_whole_or_says_what_this_python_lacks():
    if sys.version_info >= (3, 11):
        assert names(tinymcp.load_files(prompt_dirs=[EXAMPLES])) == [
            "code_review", "deploy", "explain", "forms:react-form", "git:commit", "git:fix-issue", "summarize"]
    else:
        assert problems_of(tinymcp.load_files, prompt_dirs=[EXAMPLES]) == [
            "%s:1: TOML prompt files need tomllib (Python 3.11 or later, and not python3-minimal): run "
            "tinymcp with a fuller Python, or write this prompt as Markdown" % os.path.join(EXAMPLES, "git/commit.toml")]


def test_tuples_of_prompts_and_folders_are_taken_as_lists(tmp_path):
    write(tmp_path / "lib", {"review.md": REVIEW})
    config = tinymcp.load_files({"prompts": ({"name": "own", "messages": ({"role": "user", "text": "x"},)},),
                                 "prompt_dirs": ("lib",)}, base=str(tmp_path))
    assert names(config) == ["own", "review"]


def test_a_relative_folder_that_is_missing_says_where_it_was_looked_for(tmp_path):
    rc, out, err = run(["--check", "--prompts", "prompts"], cwd=str(tmp_path))
    cwd = os.path.realpath(str(tmp_path))
    assert (rc, out) == (1, "")
    assert err.endswith("prompts: cannot read the prompt folder: no such folder (looked for %s, as the "
                        "current directory is %s: write the full path)\n" % (os.path.join(cwd, "prompts"), cwd))
    rc, out, err = run(["--check", "--prompts", str(tmp_path / "gone")])
    assert err.endswith("gone: cannot read the prompt folder: no such folder\n")


# --- lenient folders, strict checks ------------------------------------------------------------

BAD_FILES = {"bad.md": "---\ntitle: 3\n---\nB\n", "logic.md": "Hello {{#if x}}yes{{/if}}\n"}


def test_a_folder_serves_its_good_files_and_logs_each_bad_one(tmp_path):
    # Bug: one bad file (an unknown key, a .toml on 3.8) exited 1 before initialize: the
    # host saw a dead server
    root = write(tmp_path, dict(BAD_FILES, **{"good.md": "Good\n",
                                              "tagged.md": "---\ntags: [a, b]\n---\nTagged\n"}))
    try:  # (a name that is not UTF-8: only that file is left out)
        with open(os.path.join(os.fsencode(root), b"n\xff.md"), "w") as f:
            f.write("N\n")
    except OSError:
        pass  # (a file system that refuses it)
    rc, out, err = run(["--list", "--prompts", root])
    assert rc == 0 and [l for l in out.splitlines() if not l.startswith(" ")] == ["good", "tagged"], err
    assert '%s:2: title: expected a string, got the number 3 (in quotes it is text) (not served)' % os.path.join(root, "bad.md") in err
    assert "%s:1:7: {{#if x}}: template logic" % os.path.join(root, "logic.md") in err
    assert "%s:2: tags: unknown key, ignored" % os.path.join(root, "tagged.md") in err
    odd = os.path.exists(os.path.join(root, "n\udcff.md"))
    assert err.count("(not served)") == len(BAD_FILES) + odd
    for strict in (["--check"], ["--strict", "--list"]):
        assert ("n\\udcff.md" in err) == odd  # (its byte told as --check tells it: was "n?.md" serving)
        rc, out, err = run(strict + ["--prompts", root])
        assert rc == 1 and out == "" and "invalid prompt files in" in err and "bad.md:2: title" in err, (strict, err)


def test_a_near_miss_of_a_known_key_is_a_mistake_not_ignored(tmp_path):
    root = write(tmp_path, {"typo.md": "---\ndescripton: Typo\n---\nT\n"})
    notes = []
    assert tinymcp.load_files(prompt_dirs=[root], notes=notes).prompts.names == []
    assert notes == [("%s:2: descripton" % os.path.join(root, "typo.md"),
                      "unknown key (did you mean 'description'?) (not served)")]
    assert problems_of(tinymcp.load_files, prompt_dirs=[root]) == [
        "%s:2: descripton: unknown key (did you mean 'description'?)" % os.path.join(root, "typo.md")]


def test_a_bad_new_file_is_left_out_of_a_reload_and_logged_once(world):
    root = write(world.path("p"), {"a.md": "A\n"})
    proc = _serving(world, root)
    write(root, dict(BAD_FILES, **{"b.md": "B\n"}))
    proc.kill(signal.SIGHUP)
    assert proc.frame() == LIST_CHANGED
    assert _listed(proc, 2) == ["a", "b"]
    proc.wait_stderr("bad.md:2: title")
    write(root, {"c.md": "C\n"})
    proc.kill(signal.SIGHUP)
    assert proc.frame() == LIST_CHANGED
    proc.wait_stderr("prompts changed (3 now)")
    assert proc.stderr.count("bad.md:2: title") == 1  # (still bad: not told again)
    rc, err, out = proc.finish(EOF)
    assert (rc, out) == (0, b""), err


def test_a_folder_of_skills_serves_each_skill_once_and_none_of_its_other_files(tmp_path):
    skill = "---\nname: %s\ndescription: %s\n---\nDo it with $ARGUMENTS\n"
    root = write(tmp_path, {
        "pdf/SKILL.md": skill % ("pdf", "PDFs"), "pdf/references/guide.md": "Guide {{x}}\n",
        "pdf/scripts/run.md": "$1\n", "pdf/nested/SKILL.md": skill % ("nested", "never read"),
        "a/skills/review/SKILL.md": skill % ("review", "A's"), "b/skills/review/SKILL.md": skill % ("review", "B's"),
        "broken/SKILL.md": "---\nname: broken\ndescription:\n  [oops\n---\nx\n", "notes.md": "A prompt\n"})
    notes = []
    config = tinymcp.load_files(prompt_dirs=[root], notes=notes)
    assert names(config) == ["a:skills:review", "b:skills:review", "notes", "pdf"]
    assert [p for p, _ in notes] == ["%s:4:3" % os.path.join(root, "broken", "SKILL.md")]


def test_a_skill_added_or_edited_is_reloaded_like_any_file(world):
    root = write(world.path("p"), {"a.md": "A\n"})
    proc = _serving(world, root, "--watch")
    write(root, {"tidy/SKILL.md": "---\nname: tidy\ndescription: Tidy up\n---\nTidy $ARGUMENTS\n"})
    assert proc.frame() == LIST_CHANGED
    assert _listed(proc, 2) == ["a", "tidy"]
    write(root, {"tidy/references/more.md": "More\n"})  # (a supporting file: nothing to tell)
    write(root, {"tidy/SKILL.md": "---\nname: tidy\ndescription: Tidy up, now\n---\nTidy\n"})
    assert proc.frame() == LIST_CHANGED
    reply = proc.call(req(3, "prompts/list"))
    assert [(p["name"], p.get("description")) for p in reply["result"]["prompts"]] == [
        ("a", None), ("tidy", "Tidy up, now")]
    rc, err, out = proc.finish(EOF)
    assert (rc, out) == (0, b""), err


@needs_tomllib
def test_a_gemini_commands_folder_is_read_as_gemini_cli_reads_it_toml_only(tmp_path):
    root = write(tmp_path / ".gemini" / "commands", {"commit.toml": COMMIT, "notes.md": "Not a command\n"})
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["commit"]
    assert names(tinymcp.load_files(prompt_dirs=[str(tmp_path)])) == []  # (.gemini: a hidden folder)


@needs_tomllib
def test_gemini_cli_command_names_and_hidden_files_as_gemini_cli_gives_them(tmp_path):
    # FileCommandLoader: each path part's characters other than ASCII letters, digits, '_', '-'
    # and '.' become '_' (':' too, the separator), a part over 50 is cut to 47 and '...'; its
    # glob takes dot files (`dot: true`)
    long = "x" * 51
    root = write(tmp_path / ".gemini" / "commands", {
        "my cmd.toml": COMMIT, "legacy:old.toml": COMMIT, "dir é/v1.2.toml": COMMIT,
        long + ".toml": COMMIT, ".hidden.toml": COMMIT, ".team/review.toml": COMMIT,
        "SKILL.md": "---\nname: s\ndescription: S\n---\nS\n"})  # (no skill there: not a .toml)
    assert sorted(names(tinymcp.load_files(prompt_dirs=[root]))) == sorted([
        "my_cmd", "legacy_old", "dir__:v1.2", "x" * 47 + "...", ".hidden", ".team:review"])
    [p] = [p for p in tinymcp.load_files(prompt_dirs=[root]).prompts.by_name.values() if p["name"] == "my_cmd"]
    assert p["description"] == "Commit"
    # (elsewhere a .toml is named by its path, as every prompt file is)
    plain = write(tmp_path / "plain", {"Code Review.toml": COMMIT, "Équipe/y.toml": COMMIT})
    assert sorted(names(tinymcp.load_files(prompt_dirs=[plain]))) == ["Code Review", "Équipe:y"]


def test_a_codex_prompts_folder_serves_its_own_files_only_as_codex_reads_it(tmp_path):
    # (Codex lists the prompts folder's files, none in its subfolders, so neither a folder
    # linked elsewhere nor a SKILL.md makes a skill or a problem there)
    root = write(tmp_path / ".codex" / "prompts", {
        "fix.md": FIX, "old/fix2.md": FIX, "SKILL.md": FIX, "x.prompt.md": FIX, ".md": FIX,
        ".claude-plugin/plugin.json": '{"name": "p"}'})
    os.symlink(str(tmp_path), os.path.join(root, "linked"))
    os.symlink("user@host.1:1", os.path.join(root, ".#fix.md"))  # (Emacs's lock while fix.md is edited)
    notes = []
    assert sorted(names(tinymcp.load_files(prompt_dirs=[root], notes=notes))) == ["SKILL", "fix", "x.prompt"]
    assert notes == []


@pytest.mark.parametrize("host", [".claude/commands", ".codex/prompts", ".opencode/command",
                                  ".opencode/commands", ".cursor/commands", ".windsurf/workflows"])
def test_a_hosts_commands_folder_reads_every_markdown_file_as_a_command(tmp_path, host):
    # (outside such a folder, a plain .md with no placeholder is MCP Markdown and takes nothing)
    root = write(tmp_path / host, {"tidy.md": "Tidy the code.\n", "notes.toml": 'prompt = "x"\n'})
    [p] = tinymcp.load_files(prompt_dirs=[root]).prompts.by_name.values()
    if "codex" in host:  # (Codex sends such a prompt as written, what is typed dropped: expand_custom_prompt)
        assert p["name"] == "tidy" and not p.get("arguments")
        return
    assert p["name"] == "tidy" and [a["name"] for a in p["arguments"]] == ["arguments"]
    # (appended as its host appends it: OpenCode, Cursor and Windsurf without Claude Code's "ARGUMENTS: " label)
    assert p["arguments"][0]["append"] == ("\n\nARGUMENTS: " if "claude" in host else "\n\n")
    plain = write(tmp_path / "plain", {"tidy.md": "Tidy the code.\n"})
    assert "arguments" not in tinymcp.load_files(prompt_dirs=[plain]).prompts.by_name["tidy"]


@pytest.mark.parametrize("host", [".cursor/commands", ".windsurf/workflows"])
def test_cursor_and_windsurf_files_are_sent_as_written_with_what_is_typed_after_them(tmp_path, host):
    # (neither host fills a placeholder: a workflow's shell `$1` and prose took the one argument's place,
    # as arg1, so what the user typed could not be passed; front-matter names are Claude Code's)
    root = write(tmp_path / host, {"go.md": "---\narguments: [repo]\n---\nTest $repo: `awk '{print $1}'`, "
                                            "$ARGUMENTS, \\$2 {x}\n"})
    wire = Wire(tinymcp.load_files(prompt_dirs=[root]))
    wire.initialize()
    [listed] = wire.result("prompts/list")["prompts"]
    assert [a["name"] for a in listed["arguments"]] == ["arguments"]
    [message] = wire.get("go", {"arguments": "risk-hub"})["result"]["messages"]
    assert message["content"]["text"] == "Test $repo: `awk '{print $1}'`, $ARGUMENTS, \\$2 {x}\n\nrisk-hub"


def test_opencode_and_vs_code_folders_are_walked_and_named_as_those_hosts_do(tmp_path):
    # (OpenCode's config/command.ts globs {command,commands}/**/*.md with dot files and names
    # team/review.md "team/review"; VS Code's promptFilesLocator lists .github/prompts' own
    # files: a subfolder's were served, as "sub:deep", a dot file of OpenCode's left out)
    root = write(tmp_path, {".opencode/command/team/review.md": "Review $1\n", ".opencode/command/.hidden.md": "H\n",
                            ".github/prompts/top.prompt.md": "Top\n", ".github/prompts/sub/deep.prompt.md": "Deep\n"})
    assert names(tinymcp.load_files(prompt_dirs=[os.path.join(root, ".opencode", "command")])) == [
        ".hidden", "team/review"]
    assert names(tinymcp.load_files(prompt_dirs=[os.path.join(root, ".opencode")])) == [".hidden", "team/review"]
    # (Emacs' lock of a file it edits, a link to nothing: each editing session was a warning)
    os.symlink("user@host.1:2", os.path.join(root, ".opencode", "command", "team", ".#review.md"))
    notes = []
    assert names(tinymcp.load_files(prompt_dirs=[os.path.join(root, ".opencode")], notes=notes)) == [
        ".hidden", "team/review"]
    assert notes == []
    assert names(tinymcp.load_files(prompt_dirs=[os.path.join(root, ".github", "prompts")])) == ["top"]
    assert names(tinymcp.load_files(prompt_dirs=[os.path.join(root, ".github")])) == ["top"]


def test_a_host_folder_linked_to_another_place_is_still_read_as_the_hosts(tmp_path):
    # (~/.claude/commands linked to a dotfiles repository was read as plain MCP Markdown)
    dotfiles = write(tmp_path / "dotfiles" / "cmds", {"tidy.md": "Tidy the code.\n"})
    os.makedirs(str(tmp_path / "home" / ".claude"))
    os.symlink(dotfiles, str(tmp_path / "home" / ".claude" / "commands"))
    [p] = tinymcp.load_files(prompt_dirs=[str(tmp_path / "home" / ".claude" / "commands")]).prompts.by_name.values()
    assert [a["name"] for a in p["arguments"]] == ["arguments"]  # (a command: what is typed, appended)


def test_a_claude_code_plugin_serves_its_commands_and_skills_named_as_claude_code_names_them(tmp_path):
    # (a real plugin repository served its agents and READMEs as prompts, and names such as
    # plugins:hookify:commands:help where Claude Code says /hookify:help)
    plugin = {".claude-plugin/plugin.json": '{"name": "hookify"}', "README.md": "About\n",
              "agents/critic.md": "---\nname: critic\n---\nYou criticise.\n",
              "commands/help.md": "Explain hookify.\n", "commands/git/undo.md": "Undo $1\n",
              "skills/rules/SKILL.md": "---\nname: rules\ndescription: Write rules\n---\nRules\n",
              "skills/rules/references/more.md": "More\n"}
    root = write(tmp_path / "market", {"plugins/hookify/" + rel: text for rel, text in plugin.items()})
    config = tinymcp.load_files(prompt_dirs=[root])
    assert names(config) == ["plugins:hookify:git:undo", "plugins:hookify:help", "plugins:hookify:rules"]
    assert [a["name"] for a in config.prompts.by_name["plugins:hookify:help"]["arguments"]] == ["arguments"]
    alone = tinymcp.load_files(prompt_dirs=[os.path.join(root, "plugins", "hookify")])
    assert names(alone) == ["hookify:git:undo", "hookify:help", "hookify:rules"]
    # (Claude Code asks a plugin's name in lowercase, Gemini CLI's any case: its folder's then)
    write(root, {"plugins/hookify/.claude-plugin/plugin.json": '{"name": "HookIfy"}'})
    notes = []
    assert "plugins:hookify:help" in names(tinymcp.load_files(prompt_dirs=[root], notes=notes))
    assert [message for _, message in notes] == ["its name must be kebab-case (lowercase letters, digits and "
                                                 "hyphens), got 'HookIfy'; named after its folder"]


def test_a_plugin_manifest_that_lists_commands_serves_those_instead_of_its_commands_folder(tmp_path):
    # (aRustyDev/agents' blog-workflow lists 2 of its 33 commands, swiftui-dev 4 of its 5 files: Claude
    # Code reads what the manifest lists instead of commands/, a listed folder named from itself)
    files = {"commands/help.md": "Help.\n", "commands/README.md": "About.\n", "extra/git/undo.md": "Undo.\n",
             "more/x.md": "X.\n", "skills/rules/SKILL.md": "---\nname: rules\ndescription: Rules\n---\nRules\n"}
    manifest = '{"name": "hk", "commands": ["./commands/help.md", "./extra", %s]}'
    root = write(tmp_path / "hookify", dict(files, **{".claude-plugin/plugin.json": manifest % '"./more/x.md"'}))
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["hk:help", "hk:git:undo", "hk:x", "hk:rules"]
    write(tmp_path / "other", {"x.md": "Outside.\n"})
    # (one that names nothing in the plugin is told at the manifest, and --check fails)
    # (nor is the plugin itself, which was walked again and again, or a path listed twice)
    # (nor is a path no path can be: a lone surrogate ended the load)
    for listed in ('"./gone.md"', '"../other"', '"../other/x.md"', json.dumps(str(tmp_path / "other")), "7",
                   '"\\ud800"', '"./x\\u0000"', '"./"', '"./extra/"', '"./commands/../commands/help.md"'):
        write(root, {".claude-plugin/plugin.json": manifest % listed})
        notes = []
        assert names(tinymcp.load_files(prompt_dirs=[root], notes=notes)) == ["hk:help", "hk:git:undo", "hk:rules"]
        assert [(os.path.relpath(path, root), message.split(": ")[-1]) for path, message in notes] == [
            (os.path.join(".claude-plugin", "plugin.json (commands)"), "not in this plugin, or listed twice "
                                                                         "(not served)")]
        with pytest.raises(tinymcp.ConfigError):
            tinymcp.load_files(prompt_dirs=[root])
    # (told, it never stops a reload: it was told at the served manifest, which refused every reload)
    source = importlib.import_module(PACKAGE + ".source").ConfigFile(None, dirs=[root])
    assert names(source.load()) == names(source.load()) == ["hk:help", "hk:git:undo", "hk:rules"]
    write(root, {".claude-plugin/plugin.json": '{"name": "hk"}'})  # (none listed: its commands/)
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["hk:README", "hk:help", "hk:rules"]


@pytest.mark.parametrize("marketplace, served", [
    # (anthropics/claude-code's plugins/plugin-dev has no .claude-plugin/: its marketplace lists
    # it, and "the manifest is optional"; its agents and README were served as prompts, and so
    # were the marketplace's own READMEs, which Claude Code never reads)
    ('{"plugins": [{"name": "dev", "source": "./plugins/dev"}]}', ["dev:make", "dev:x"]),
    # (a marketplace whose plugins are elsewhere, a repository, has none here to serve)
    ('{"plugins": [{"name": "dev", "source": {"source": "github", "repo": "o/r"}}]}', []),
    ('{"plugins": [{"name": "dev", "source": "./plu\\u0000gins"}]}', []),
    ('{"plugins": [{"name": "x", "source": "./x\\u0000"}, {"name": "dev", "source": "./plugins/dev"}]}',
     ["dev:make", "dev:x"]),  # (one NUL lost the plugins listed after it)
    ("{not json", None),  # (a marketplace that cannot be read: a plain folder)
])
def test_a_marketplace_serves_the_plugins_it_lists_by_path_manifest_or_not(tmp_path, marketplace, served):
    plugin = {"commands/make.md": "Make $ARGUMENTS\n", "skills/x/SKILL.md": "---\nname: x\ndescription: X\n---\nX\n",
              "agents/critic.md": "You criticise.\n", "README.md": "About\n"}
    root = write(tmp_path / "market", dict({"plugins/dev/" + rel: text for rel, text in plugin.items()},
                                          **{".claude-plugin/marketplace.json": marketplace, "README.md": "Read me\n",
                                             "plugins/README.md": "The plugins\n"}))
    assert names(tinymcp.load_files(prompt_dirs=[root], notes=[])) == (served if served is not None else [
        "README", "plugins:README", "plugins:dev:README", "plugins:dev:agents:critic", "plugins:dev:commands:make",
        "plugins:dev:skills:x"])


def test_a_plugin_is_named_by_its_manifest_and_by_its_folder_when_the_manifest_names_none(tmp_path):
    # (Claude Code names a plugin's commands and skills by plugin.json's name, not its folder's)
    files = {"commands/help.md": "Explain.\n", "skills/rules/SKILL.md": "---\nname: rules\ndescription: R\n---\nR\n"}
    root = write(tmp_path / "market", dict({"plugins/hookify-v2/" + rel: text for rel, text in files.items()},
                                           **{"plugins/hookify-v2/.claude-plugin/plugin.json": '{"name": "hookify"}'}))
    manifest = os.path.join(root, "plugins", "hookify-v2", ".claude-plugin", "plugin.json")
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["plugins:hookify:help", "plugins:hookify:rules"]
    before = promptdirs.folder_signature(root)
    write(tmp_path / "market", {"plugins/hookify-v2/.claude-plugin/plugin.json": '{"name": "hooks"}'})
    assert promptdirs.folder_signature(root) != before  # (--watch sees a plugin renamed)
    for text, why in (('{"name": "Hook Ify"}', "got 'Hook Ify'"), ('{"version": "1"}', "it gives no name"),
                      ('{"name": "hookify",}', "a comma after the last item, which JSON does not allow: remove it"),
                      ('[1]', "not a JSON object")):  # (as a config's mistakes are worded: json's words were)
        write(tmp_path / "market", {"plugins/hookify-v2/.claude-plugin/plugin.json": text})
        notes = []
        config = tinymcp.load_files(prompt_dirs=[root], notes=notes)
        assert names(config) == ["plugins:hookify-v2:help", "plugins:hookify-v2:rules"]
        [(path, message)] = notes
        assert path.startswith(manifest) and why in message and message.endswith("named after its folder")
        with pytest.raises(tinymcp.ConfigError):  # (strict: --check)
            tinymcp.load_files(prompt_dirs=[root])
    os.remove(manifest)  # (one outside the folder is never read: its name could tell what it holds)
    os.symlink(write(tmp_path / "secret", {"plugin.json": '{"name": "secret"}'}) + "/plugin.json", manifest)
    notes = []
    assert names(tinymcp.load_files(prompt_dirs=[root], notes=notes))[0] == "plugins:hookify-v2:help"
    assert "outside the prompt folder: not followed" in notes[0][1]
    alone = write(tmp_path / "alone", {"commands/help.md": "Explain.\n", ".claude-plugin/x": ""})
    assert names(tinymcp.load_files(prompt_dirs=[alone])) == ["alone:help"]  # (no manifest: the folder's)


def test_a_skill_and_a_command_of_one_name_serve_the_skill_as_claude_code_does(tmp_path):
    # Claude Code: "if a skill and a command share the same name, the skill takes precedence"
    # (the official example-plugin has both: --check failed on it)
    root = write(tmp_path / "hk", {".claude-plugin/plugin.json": '{"name": "hk"}', "commands/x.md": "Command.\n",
                                   "skills/x/SKILL.md": "---\ndescription: Skill\n---\nSkill.\n"})
    config = tinymcp.load_files(prompt_dirs=[root])  # (strict: no problem)
    assert names(config) == ["hk:x"] and config.prompts.get("hk:x")["messages"][0]["text"] == "Skill."
    notes = []
    tinymcp.load_files(prompt_dirs=[root], notes=notes)
    assert notes == [(os.path.join(root, "commands", "x.md") + ":1", "duplicate prompt name 'hk:x': %s has it too "
                      "(not served)" % os.path.join(root, "skills", "x", "SKILL.md"))]


@pytest.mark.parametrize("order", ["commands first", "skills first"])
@pytest.mark.parametrize("host, commands, wins", [(".claude", "commands", "Skill."),
                                                  # (OpenCode's command/index.ts adds a skill only
                                                  # where no command has its name: served the skill)
                                                  (".opencode", "command", "Command.")])
def test_a_name_both_give_goes_as_the_host_says_whatever_the_order_but_not_to_a_bad_file(tmp_path, order, host,
                                                                                          commands, wins):
    root = write(tmp_path / host, {commands + "/x.md": "Command.\n",
                                   "skills/x/SKILL.md": "---\ndescription: S\n---\nSkill.\n"})
    dirs = [os.path.join(root, commands), os.path.join(root, "skills")]
    config = tinymcp.load_files(prompt_dirs=dirs if order == "commands first" else dirs[::-1])
    assert names(config) == ["x"] and config.prompts.get("x")["messages"][0]["text"] == wins
    bad = "skills/x/SKILL.md" if wins == "Skill." else commands + "/x.md"
    write(root, {bad: "---\ndescription: S\n---\n"})  # (a bad file of the winner's: the other stays)
    config = tinymcp.load_files(prompt_dirs=dirs, notes=[])
    assert names(config) == ["x"] and config.prompts.get("x")["messages"][0]["text"] != wins


def test_a_served_command_keeps_its_name_from_a_bad_skill_added_and_read_first(tmp_path):
    # (the bad skill, read first, kept the name, and the served command was left out for it)
    root = write(tmp_path / ".claude", {"commands/x.md": "Command.\n"})
    dirs = [os.path.join(root, "skills"), os.path.join(root, "commands")]
    os.makedirs(dirs[0])
    source = importlib.import_module(PACKAGE + ".source").ConfigFile(None, dirs=dirs)
    assert names(source.load()) == ["x"]
    write(root, {"skills/x/SKILL.md": "---\ndescription: S\n---\n"})
    config = source.load()
    assert names(config) == ["x"] and config.prompts.get("x")["messages"][0]["text"] == "Command."


@pytest.mark.skipif(sys.version_info < (3, 11), reason="Gemini's .toml needs tomllib")
def test_a_gemini_extension_serves_its_commands_and_skills_named_as_gemini_names_them(tmp_path):
    # (its GEMINI.md, context for the model, was served as a prompt, and its commands were
    # named commands:fs:grep where Gemini CLI says /fs:grep; its skills were left out)
    # (its skills are always named after it, ext:greet, as Gemini CLI's SlashCommandResolver names
    # them: they were served as greet; by its manifest's name, else by its folder's)
    root = write(tmp_path / "folder", {"gemini-extension.json": '{"name": "ext", "version": "1"}',
                                       "GEMINI.md": "Context.\n", "commands/fs/grep.toml": 'prompt = "Grep {{args}}"\n',
                                       "commands/fs/notes.md": "Not a command.\n", "skills/greet/SKILL.md": "Hi.\n",
                                       "skills/loose.md": "Not a skill.\n"})
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["fs:grep", "ext:greet"]
    write(root, {"gemini-extension.json": '{"version": "1"}'})
    notes = []
    assert names(tinymcp.load_files(prompt_dirs=[root], notes=notes)) == ["fs:grep", "folder:greet"]
    assert [message for _, message in notes] == ["it gives no name; named after its folder"]
    write(root, {"gemini-extension.json": '{"name": "myExt", "version": "1"}'})  # (any case, as Gemini CLI)
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["fs:grep", "myExt:greet"]
    # (a name it cannot take is told without asking for lowercase)
    write(root, {"gemini-extension.json": '{"name": "my ext", "version": "1"}'})
    notes = []
    tinymcp.load_files(prompt_dirs=[root], notes=notes)
    assert [message for _, message in notes] == ["its name must be kebab-case (letters, digits and hyphens), "
                                                 "got 'my ext'; named after its folder"]
    write(root, {"gemini-extension.json": '{"name": "ext", "version": "1"}'})
    # (Gemini CLI's own skills folder holds skills alone, as .claude/skills does)
    gemini = write(tmp_path / "project", {".gemini/skills/greet/SKILL.md": "Hi.\n", ".gemini/skills/x.md": "X.\n"})
    assert names(tinymcp.load_files(prompt_dirs=[os.path.join(gemini, ".gemini", "skills")])) == ["greet"]
    # (a SKILL.md of its own, which Gemini CLI never reads, was served alone: its 11 commands were lost)
    write(root, {"SKILL.md": "---\nname: ext\ndescription: Git help\n---\nHelp.\n"})
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["fs:grep", "ext:greet"]


def test_a_plugin_a_marketplace_lists_inside_another_listed_plugins_folder_is_served(tmp_path):
    # (artur-dani/claude-skill-collection lists ./plugins/git and ./plugins: git's commands were
    # left out without a word, as the walk of the outer plugin read only its commands/ and skills/)
    listing = '{"plugins": [{"name": "git", "source": "./plugins/git"}, {"name": "dl", "source": "./plugins"}]}'
    root = write(tmp_path / "market", {".claude-plugin/marketplace.json": listing,
                                       "plugins/skills/brain/SKILL.md": "Brainstorm.\n",
                                       "plugins/git/commands/cm.md": "Commit $ARGUMENTS\n",
                                       "plugins/notes/x.md": "Not a prompt.\n"})
    assert sorted(names(tinymcp.load_files(prompt_dirs=[root]))) == ["dl:brain", "git:cm"]
    # (a marketplace listing its own root too: the root's walk read its commands/ and skills/ alone, and
    # every plugin below was lost, said as "no prompt files")
    listing = '{"plugins": [{"name": "all", "source": "./"}, {"name": "hk", "source": "./plugins/hk"}]}'
    root = write(tmp_path / "rooted", {".claude-plugin/marketplace.json": listing, "commands/a.md": "A\n",
                                       "plugins/hk/commands/help.md": "Help\n", "plugins/notes/x.md": "No.\n",
                                       "plugins/x/SKILL.md": "Not listed: no skill.\n"})
    assert sorted(names(tinymcp.load_files(prompt_dirs=[root]))) == ["all:a", "hk:help"]


def test_an_edit_of_a_marketplace_alone_is_seen_by_the_watch(tmp_path):
    # (--watch missed it: a marketplace.json is no prompt file, and the files it lists stay)
    listing = '{"plugins": [{"name": "dev", "source": "./plugins/dev"}]}'
    root = write(tmp_path / "market", {".claude-plugin/marketplace.json": listing, "plugins/dev/commands/x.md": "X\n"})
    before = promptdirs.folder_signature(root)
    write(root, {".claude-plugin/marketplace.json": listing.replace("dev", "ops", 1)})
    assert promptdirs.folder_signature(root) != before
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["ops:x"]


def test_a_marketplace_serves_the_plugins_it_lists_alone(tmp_path):
    # (a clone of a plugin marketplace served nothing: its root was taken for a plugin; and a
    # real one served the plugins in its backups/ folder, which Claude Code never installs)
    listing = '{"name": "m", "plugins": [{"name": "hk", "source": "./plugins/hk"}]}'
    plugin = {".claude-plugin/plugin.json": '{"name": "hk"}', "commands/help.md": "Explain.\n"}
    root = write(tmp_path / "market", dict({".claude-plugin/marketplace.json": listing},
                                           **{top + rel: text for rel, text in plugin.items()
                                              for top in ("plugins/hk/", "backups/hk/")}))
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["hk:help"]
    # (a marketplace in a folder served keeps that folder's namespace: its own)
    assert names(tinymcp.load_files(prompt_dirs=[str(tmp_path)])) == ["market:hk:help"]
    # (a plugin that is a marketplace too: the plugins it lists as well; terrylica/cc-skills' 241 skills were none,
    # its root having none of its own, and not a word was said)
    write(root, {".claude-plugin/plugin.json": '{"name": "both"}', "commands/x.md": "X.\n"})
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["both:x", "hk:help"]
    # (skills an entry lists in a folder of their own: K-Dense's 134 scientific-skills/x were none)
    skill = "---\nname: x\ndescription: X\n---\nX\n"
    # (named by the entry, as Claude Code names a plugin with no manifest, not by the clone's folder)
    listing = '{"plugins": [{"name": "sci", "source": "./", "skills": ["./science/x", 7, "../up"]}]}'
    sci = write(tmp_path / "clone", {".claude-plugin/marketplace.json": listing, "science/x/SKILL.md": skill,
                                     "science/README.md": "About\n", "other/y/SKILL.md": skill.replace("x", "y")})
    assert names(tinymcp.load_files(prompt_dirs=[sci])) == ["sci:x"]
    write(sci, {".claude-plugin/marketplace.json": listing.replace("]}]}", ']}, {"name": "b", "source": "./"}]}')})
    assert names(tinymcp.load_files(prompt_dirs=[sci])) == ["sci:x"]  # (two names for the root: x is sci's)
    write(sci, {".claude-plugin/marketplace.json": listing.replace("./science/x", "./x"), "x/SKILL.md": skill})
    assert names(tinymcp.load_files(prompt_dirs=[sci])) == ["sci:x"]  # (it was served as x: named after no plugin)
    # (a plugin that is one skill, as `claude plugin init` writes it, and a copy of the whole
    # marketplace that it does not list)
    one = '{"plugins": [{"name": "diag", "source": "./skills/diagnose", "skills": ["./"]}]}'
    root = write(tmp_path / "one", {".claude-plugin/marketplace.json": one, "skills/diagnose/SKILL.md": skill,
                                    "backup/.claude-plugin/marketplace.json": listing,
                                    "backup/science/x/SKILL.md": skill})
    # (a plugin's skills are plugin:skill, its own SKILL.md too: it was served as skills:x; and a plugin a
    # marketplace lists is named in the marketplace's namespace, as Claude Code installs it: not skills:diag:x)
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["diag:x"]
    # (a bundle of every skill, each listed as a plugin of its own too: the bundle reads it first)
    bundle = '{"plugins": [{"name": "all", "source": "./"}, {"name": "x", "source": "./skills/x"}]}'
    root = write(tmp_path / "bundle", {".claude-plugin/marketplace.json": bundle, "skills/x/SKILL.md": skill})
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["all:x"]
    # (a plugin's own SKILL.md is one skill more, beside its commands: claude-reflect lost them)
    root = write(tmp_path / "reflect", {".claude-plugin/plugin.json": '{"name": "rf"}', "SKILL.md": skill,
                                        "commands/view.md": "View.\n"})
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["rf:x", "rf:view"]


def test_a_marketplace_entry_names_the_skills_it_lists(tmp_path):
    # (anthropics/skills: entries at the marketplace's root, each listing skills of its skills/, are
    # plugins of their own: document-skills:xlsx, as Claude Code names them, not skills:xlsx; and
    # declaring skills replaces that skills/ folder, so a skill no entry lists is none)
    # (a NUL in a path: that one lists nothing)
    docs = {"name": "docs", "source": "./", "strict": False, "skills": ["./skills/xlsx", "./pdf", "./a\0"]}
    listing = {"plugins": [docs, {"name": "api", "source": "./", "skills": ["./skills/api"]}]}
    skill = "---\nname: %s\ndescription: X\n---\nX\n"
    files = {"%s/SKILL.md" % rel: skill % rel.rpartition("/")[2] for rel in ("skills/xlsx", "pdf", "skills/api",
                                                                              "skills/unlisted", "template")}
    root = write(tmp_path / "skills", dict(files, **{".claude-plugin/marketplace.json": json.dumps(listing)}))
    assert sorted(names(tinymcp.load_files(prompt_dirs=[root]))) == ["api:api", "docs:pdf", "docs:xlsx"]
    # (served from the folder it is in, the same: each entry's plugin is the marketplace's folder, whose
    # name its own takes the place of, as a manifest's does)
    assert sorted(names(tinymcp.load_files(prompt_dirs=[str(tmp_path)]))) == ["api:api", "docs:pdf", "docs:xlsx"]
    # (an entry there that lists none reads the whole skills/ folder, as before)
    listing["plugins"].append({"name": "all", "source": "./"})
    write(root, {".claude-plugin/marketplace.json": json.dumps(listing)})
    served = sorted(names(tinymcp.load_files(prompt_dirs=[root])))
    assert served == ["api:api", "docs:pdf", "docs:xlsx", "skills:unlisted"]
    # (a listed folder of skills, listed skills deeper, the root itself: what a review found lost or misnamed;
    # a path outside the plugin, or one no path can be, lists nothing)
    skills = ["./skills", "./other", "./deep/a/b", "./", "../elsewhere", "\ud800", 7]
    root = write(tmp_path / "more", {".claude-plugin/marketplace.json": json.dumps({"plugins": [
        {"name": "a", "source": "./", "skills": skills}]}), "SKILL.md": skill % "a", "skills/x/SKILL.md": skill % "x",
        "other/z/SKILL.md": skill % "z", "deep/a/b/SKILL.md": skill % "b", "deep/c/SKILL.md": skill % "c"})
    write(tmp_path, {"elsewhere/SKILL.md": skill % "elsewhere"})
    assert sorted(names(tinymcp.load_files(prompt_dirs=[root]))) == ["a:a", "a:b", "a:x", "a:z"]
    listing = {"plugins": [{"name": "a", "source": "./", "skills": ["./"]}]}  # (the root alone: skills/ read too)
    write(root, {".claude-plugin/marketplace.json": json.dumps(listing)})
    assert sorted(names(tinymcp.load_files(prompt_dirs=[root]))) == ["a:a", "a:x"]
    listing["plugins"][0]["skills"] = "./other"  # (a path alone, as Claude Code takes it too)
    write(root, {".claude-plugin/marketplace.json": json.dumps(listing)})
    assert sorted(names(tinymcp.load_files(prompt_dirs=[root]))) == ["a:a", "a:z"]
    # (elsewhere, the skills an entry lists are more than its skills/)
    listing = {"plugins": [{"name": "p", "source": "./p", "skills": ["./extra/y"]}]}
    root = write(tmp_path / "m", {".claude-plugin/marketplace.json": json.dumps(listing), "p/skills/z/SKILL.md":
                                  skill % "z", "p/extra/y/SKILL.md": skill % "y"})
    assert sorted(names(tinymcp.load_files(prompt_dirs=[root]))) == ["p:y", "p:z"]


def test_a_marketplace_entry_whose_folder_is_not_there_is_told(tmp_path):
    # (ComposioHQ/awesome-claude-skills' composio-skills/ lists 107 folders, none of them in it: its 832
    # skills were left out without a word; Claude Code can install none of those entries either)
    listing = '{"plugins": [{"name": "gone", "source": "./gone"}, {"name": "dev", "source": "./dev"}]}'
    root = write(tmp_path / "m", {".claude-plugin/marketplace.json": listing, "dev/commands/x.md": "X\n"})
    notes = []
    assert names(tinymcp.load_files(prompt_dirs=[root], notes=notes)) == ["dev:x"]
    assert [(os.path.relpath(path, root), message) for path, message in notes] == [
        (os.path.join(".claude-plugin", "marketplace.json (plugins)"), "no such folder here: './gone' (not served)")]
    # (one line for them all, naming five)
    many = [{"name": "p%d" % i, "source": "./p%d" % i} for i in range(7)]
    write(root, {".claude-plugin/marketplace.json": json.dumps({"plugins": many})})
    notes = []
    assert names(tinymcp.load_files(prompt_dirs=[root], notes=notes)) == []
    assert [message for _, message in notes] == ["no such folder here: './p0', './p1', './p2', './p3', './p4' and "
                                                 "2 more (not served)"]
    with pytest.raises(tinymcp.ConfigError):  # (strict: --check)
        tinymcp.load_files(prompt_dirs=[root])


def test_a_marketplace_that_is_no_json_is_told_and_check_refuses_it(tmp_path):
    # (it was passed over without a word: --check said ok, its plugins named as any folder's)
    listing = '{"plugins": [{"name": "dev", "source": "./dev"}],}'
    root = write(tmp_path / "m", {".claude-plugin/marketplace.json": listing, "dev/commands/x.md": "X\n"})
    notes = []
    assert names(tinymcp.load_files(prompt_dirs=[root], notes=notes)) == ["dev:commands:x"]
    assert [(os.path.relpath(path, root), message) for path, message in notes] == [
        (os.path.join(".claude-plugin", "marketplace.json:1:49"),
         "a comma after the last item, which JSON does not allow: remove it (not served)")]
    with pytest.raises(tinymcp.ConfigError):  # (strict: --check)
        tinymcp.load_files(prompt_dirs=[root])


def test_a_plugin_in_a_skills_folder_is_read_as_a_plugin(tmp_path):
    # (Claude Code 2.1.157 loads plugins in .claude/skills, as `claude plugin init x` scaffolds them: its
    # own SKILL.md is x:<name>, its skills/ beside it; they were one plain skill, and its skills/ unread)
    skill = "---\nname: %s\ndescription: X\n---\nX\n"
    skills = write(tmp_path / ".claude" / "skills", {
        "guard/.claude-plugin/plugin.json": '{"name": "guard", "skills": ["./"]}', "guard/SKILL.md": skill % "guard",
        "guard/skills/more/SKILL.md": skill % "more", "plain/SKILL.md": skill % "plain",
        "cloned/SKILL.md": skill % "cloned", "cloned/.claude-plugin/marketplace.json": '{"plugins": []}'})
    # (a skill whose repository is a marketplace too stays a skill: only a manifest makes a plugin)
    assert names(tinymcp.load_files(prompt_dirs=[skills])) == ["cloned", "guard:guard", "guard:more", "plain"]


def test_vs_code_instructions_and_agents_are_no_prompts(tmp_path):
    # (github/awesome-copilot served 191 *.instructions.md and 216 *.agent.md files as prompts: VS Code
    # reads them as instructions and custom agents, never as prompt files)
    root = write(tmp_path / "copilot", {"a11y.instructions.md": "---\napplyTo: '**'\n---\nBe accessible.\n",
                                        "agents/critic.agent.md": "Criticise.\n", "old.chatmode.md": "Plan.\n",
                                        "review.prompt.md": "Review.\n", "notes.md": "Notes.\n"})
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["notes", "review"]


def test_a_skills_folder_serves_its_skills_alone(tmp_path):
    # (Claude Code reads skills/*/SKILL.md: the Markdown of a plugin's skills/x/references/, in a
    # folder with no SKILL.md, was served as prompts of their own)
    files = {"skills/x/SKILL.md": "---\ndescription: X\n---\nX\n", "skills/kit/references/examples.md": "E\n",
             "skills/README.md": "About\n"}
    plugin = write(tmp_path / "hk", dict(files, **{".claude-plugin/plugin.json": '{"name": "hk"}'}))
    assert names(tinymcp.load_files(prompt_dirs=[plugin])) == ["hk:x"]
    project = write(tmp_path / "project" / ".claude", files)
    assert names(tinymcp.load_files(prompt_dirs=[os.path.join(project, "skills")])) == ["x"]
    plain = write(tmp_path / "plain", files)  # (a folder of no host: every file)
    assert names(tinymcp.load_files(prompt_dirs=[plain])) == ["skills:README", "skills:kit:references:examples",
                                                               "skills:x"]


def test_a_skill_md_in_a_skills_folder_itself_hides_none_of_its_skills(tmp_path):
    # (Claude Code's skills loader reads skills/<name>/SKILL.md and passes over a SKILL.md in skills/
    # itself: that one was served alone, and every skill beside it was lost)
    files = {"skills/SKILL.md": "---\nname: all\ndescription: All\n---\nAll\n",
             "skills/x/SKILL.md": "---\ndescription: X\n---\nX\n", "skills/y/SKILL.md": "---\ndescription: Y\n---\nY\n"}
    project = write(tmp_path / "project" / ".claude", files)
    # (a skill given itself is named after its folder too: it was refused, "a skill needs a name")
    for given, served in (("skills", ["x", "y"]), ("", ["x", "y"]), ("skills/x", ["x"])):
        assert names(tinymcp.load_files(prompt_dirs=[os.path.join(project, given)])) == served
    plugin = write(tmp_path / "hk", dict(files, **{".claude-plugin/plugin.json": '{"name": "hk"}'}))
    assert names(tinymcp.load_files(prompt_dirs=[plugin])) == ["hk:x", "hk:y"]


def test_a_bad_edit_of_a_served_plugin_manifest_refuses_the_reload_and_keeps_its_names(tmp_path):
    # (a half-saved plugin.json renamed every command of the plugin: clients saw them vanish)
    root = write(tmp_path / "p", {"commands/help.md": "Explain.\n", ".claude-plugin/plugin.json": '{"name": "hk"}'})
    source = importlib.import_module(PACKAGE + ".source").ConfigFile(None, dirs=[root])
    assert names(source.load()) == ["hk:help"]
    write(root, {".claude-plugin/plugin.json": '{"name": '})
    with pytest.raises(tinymcp.ConfigError) as info:  # (a reload: refused whole, the old prompts stay)
        source.load()
    assert info.value.problems[0][0].startswith(os.path.join(root, ".claude-plugin", "plugin.json"))


def test_a_reload_of_a_config_that_no_longer_names_its_folder_serves_without_it(tmp_path):
    # (the folder read before went on being served, and watched)
    write(tmp_path / "p", {"x.md": "From the folder.\n"})
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"prompt_dirs": ["p"], "prompts": [{"name": "a", "messages": [
        {"role": "user", "text": "A"}]}]}))
    source = importlib.import_module(PACKAGE + ".source").ConfigFile(str(config), watch=True)
    assert names(source.load()) == ["a", "x"]
    config.write_text(json.dumps({"prompts": [{"name": "a", "messages": [{"role": "user", "text": "A"}]}]}))
    assert names(source.load()) == ["a"]
    assert source.signature()[1] == ()  # (and the folder is no longer watched)


def test_a_new_file_taking_a_served_prompts_name_is_left_out_wherever_it_sorts(tmp_path):
    # (a.md, new, came first and took the name: b.md, served, was then at fault, and every
    # reload was refused until a.md went)
    root = write(tmp_path / "p", {"b.md": "Served b.\n"})
    source = importlib.import_module(PACKAGE + ".source").ConfigFile(None, dirs=[root])
    source.load()
    write(root, {"a.md": "---\nname: b\n---\nA new b.\n", "c.md": "C.\n"})
    config = source.load()
    assert names(config) == ["b", "c"]
    assert config.prompts.get("b")["messages"][0]["text"] == "Served b."
    logged = []
    source.tell(lambda level, message: logged.append(message))
    assert logged == ["%s:2: duplicate prompt name 'b': %s has it too (not served)" % (
        os.path.join(root, "a.md"), os.path.join(root, "b.md"))]


def test_a_folder_given_twice_is_read_once(tmp_path):
    # (each of its files clashed with itself: "duplicate prompt name 'a': a.md has it too")
    root = write(tmp_path / "p", {"a.md": "A.\n"})
    os.symlink(root, str(tmp_path / "link"))
    config = tinymcp.load_files({"prompt_dirs": ["p"]}, base=str(tmp_path),
                                prompt_dirs=[root, root + os.sep, str(tmp_path / "link")])
    assert names(config) == ["a"]


def test_a_folder_without_prompt_files_says_so_and_names_the_host_folders_it_holds(tmp_path):
    # (a project's root served nothing, silently: its .claude/commands is a hidden folder)
    root = write(tmp_path / "project", {".claude/commands/tidy.md": "Tidy\n", ".github/prompts/a.prompt.md": "A\n",
                                         ".agents/skills/pdf/SKILL.md": "PDFs\n"})
    notes = []
    assert tinymcp.load_files(prompt_dirs=[root], notes=notes).prompts.names == []
    assert notes == [(root, "no prompt files (give --prompts its host folders themselves: %s, %s, %s)" % (
        os.path.join(root, ".claude", "commands"), os.path.join(root, ".github", "prompts"),
        os.path.join(root, ".agents", "skills")))]  # (Codex's skills: where they went from .codex/prompts)
    notes = []
    tinymcp.load_files(prompt_dirs=[write(tmp_path / "empty", {"a.txt": "x"})], notes=notes)
    assert notes == [(str(tmp_path / "empty"), "no prompt files")]
    # (a plugin whose manifest is all it holds: --check said "ok, 0 prompts", and serving said nothing)
    notes, plugin = [], write(tmp_path / "plugin", {".claude-plugin/plugin.json": '{"name": "p"}', "agents/a.md": "A\n"})
    assert tinymcp.load_files(prompt_dirs=[plugin], notes=notes).prompts.names == []
    assert notes == [(plugin, "no prompt files")]
    # (and where other files are served: .claude/commands beside them was skipped without a word)
    write(root, {"a.md": "A.\n"})
    notes = []
    assert tinymcp.load_files(prompt_dirs=[root], notes=notes).prompts.names == ["a"]
    assert notes == [(root, "its host folders are not read (give --prompts its host folders themselves: %s, %s, %s)"
                      % tuple(os.path.join(root, *pair) for pair in (
                          (".claude", "commands"), (".github", "prompts"), (".agents", "skills"))))]
    notes = []  # (those given too are read: none of them is named)
    tinymcp.load_files(prompt_dirs=[root, os.path.join(root, ".claude"), os.path.join(root, ".github", "prompts"),
                                    os.path.join(root, ".agents", "skills")], notes=notes)
    assert [note for note in notes if "host folders" in note[1]] == []  # (a.prompt.md's name a.md has: told)



def test_check_of_a_project_root_it_refuses_also_names_the_host_folders_it_holds(tmp_path):
    # (a project's pyproject.toml is no Gemini command: the way out is its .cursor/commands)
    root = write(tmp_path / "project", {".cursor/commands/go.md": "Go $ARGUMENTS\n", "pyproject.toml": "[x]\n"})
    rc, out, err = run(["--check", "--prompts", root])
    assert rc == 1 and "pyproject.toml:1: " in err, err  # (no 'prompt' key; before 3.11, no tomllib)
    assert "its host folders are not read (give --prompts its host folders themselves: %s)" % os.path.join(
        root, ".cursor", "commands") in err

def test_a_github_prompts_folder_serves_its_prompt_files_as_vs_code_does(tmp_path):
    root = write(tmp_path / ".github" / "prompts", {"plan.prompt.md": "Plan ${input:goal}\n",
                                                     "README.md": "How to use these prompts\n"})
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["plan"]


def test_a_plugin_that_is_a_gemini_extension_too_serves_its_skills(tmp_path):
    # (obra/superpowers, both, served none of its 14 skills, silently: read as an extension,
    # whose commands/ alone count)
    root = write(tmp_path / "both", {"gemini-extension.json": '{"name": "both", "version": "1"}',
                                     ".claude-plugin/plugin.json": '{"name": "sp"}',
                                     "skills/hello/SKILL.md": "---\nname: hello\ndescription: Hi\n---\nHi\n",
                                     "commands/review.md": "Review.\n"})
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["sp:review", "sp:hello"]


def test_a_hosts_top_folder_given_itself_serves_its_host_folders_as_the_host_names_them(tmp_path):
    # (.claude given served commands:plain as MCP Markdown, its agents and CLAUDE.md as prompts;
    # ~/.config/opencode/command was no host folder: its commands were read as MCP Markdown)
    root = write(tmp_path, {".claude/commands/plain.md": "Plain\n", ".claude/skills/s/SKILL.md": "S\n",
                            ".claude/agents/a.md": "Agent\n", ".claude/CLAUDE.md": "Memory\n",
                            ".claude/commands/opencode/x.md": "X\n",
                            ".config/opencode/command/g.md": "Go $1\n", ".config/opencode/skills/k/SKILL.md": "K\n"})
    config = tinymcp.load_files(prompt_dirs=[os.path.join(root, ".claude")])
    assert names(config) == ["opencode:x", "plain", "s"]  # (a folder below named as a top one: no top one)
    assert config.prompts.get("plain")["arguments"][0]["name"] == "arguments"
    os.symlink(os.path.join(root, ".claude"), os.path.join(root, "link"))  # (by its real path's name too)
    assert names(tinymcp.load_files(prompt_dirs=[os.path.join(root, "link")])) == ["opencode:x", "plain", "s"]
    config = tinymcp.load_files(prompt_dirs=[os.path.join(root, ".config/opencode/command")])
    assert names(config) == ["g"] and config.prompts.get("g")["arguments"][0]["name"] == "arg1"
    assert names(tinymcp.load_files(prompt_dirs=[os.path.join(root, ".config/opencode/skills")])) == ["k"]


@pytest.mark.parametrize("host", [".cursor", ".windsurf"])
def test_cursor_and_windsurf_skills_folders_serve_their_skills_alone(tmp_path, host):
    # (cursor.com/docs/skills, docs.windsurf.com's Cascade skills: their 49 skills were left out of
    # .cursor unsaid, and given itself, .cursor/skills served its README.md as a prompt)
    root = write(tmp_path / host, {"skills/pdf/SKILL.md": "PDFs\n", "skills/README.md": "About\n"})
    assert names(tinymcp.load_files(prompt_dirs=[root])) == ["pdf"]
    assert names(tinymcp.load_files(prompt_dirs=[os.path.join(root, "skills")])) == ["pdf"]


def test_opencodes_singular_skill_folder_is_a_skills_folder_as_its_plural(tmp_path):
    # (OpenCode's skill.ts globs {skill,skills}/**/SKILL.md: .opencode/skill's skills were dropped
    # from .opencode unsaid, and given itself a misnamed SKILLS.MD there was served as a prompt)
    root = write(tmp_path, {".opencode/command/c.md": "C\n", ".opencode/skill/k/SKILL.md": "K\n",
                            ".opencode/skill/m/SKILLS.MD": "Not a skill\n"})
    assert names(tinymcp.load_files(prompt_dirs=[os.path.join(root, ".opencode")])) == ["c", "k"]
    assert names(tinymcp.load_files(prompt_dirs=[os.path.join(root, ".opencode/skill")])) == ["k"]


def test_another_tools_key_in_an_argument_is_ignored_with_a_warning(tmp_path):
    # (an OpenSpec command declaring `type: string` for each argument was left out whole)
    write(tmp_path, {"x.md": "---\narguments:\n  - name: x\n    type: string\n    requried: true\n---\nHi {{x}}\n",
                     "y.md": "---\narguments:\n  - name: y\n    type: string\n    %s: 1\n---\nHi {{y}}\n" % ("k" * 500)})
    notes = []
    config = tinymcp.load_files(prompt_dirs=[str(tmp_path)], notes=notes)
    assert names(config) == ["y"] and config.prompts.get("y")["arguments"] == [{"name": "y"}]
    assert sorted(notes) == [("%s:4" % (tmp_path / "x.md"), "arguments[0].type: unknown key, ignored"),
                             ("%s:5: arguments[0].requried" % (tmp_path / "x.md"),  # (a near miss: a mistake)
                              "unknown key (did you mean 'required'?) (not served)"),
                             ("%s:4" % (tmp_path / "y.md"), "arguments[0].type: unknown key, ignored"),
                             ("%s:5" % (tmp_path / "y.md"), "arguments[0].%s...: unknown key, ignored" % ("k" * 67))]


def test_a_problem_under_a_long_dotted_key_is_placed_in_linear_time(tmp_path):
    # (its path was cut one '.' or '[' at a time, each cut copied whole: 400,000 took 27 s)
    for key in ("a." * 300000 + "b", "a[" * 300000 + "b"):
        (tmp_path / "x.md").write_text("---\nicons:\n  - src: https://x/i.png\n    %s: 1\n---\nHi\n" % key)
        notes = []
        with bounded(5):
            config = tinymcp.load_files(prompt_dirs=[str(tmp_path)], notes=notes)
        assert not config.prompts.names and len(notes) == 1  # (at its nearest named path: the item's line)
        assert notes[0][0].startswith("%s:3: icons[0].a%s" % (tmp_path / "x.md", key[1]))


SYSFS_FILE = "/sys/kernel/mm/transparent_hugepage/enabled"


@pytest.mark.skipif(not os.path.exists(SYSFS_FILE), reason="needs this sysfs file")
def test_a_sysfs_file_that_holds_less_than_its_size_says_is_never_read():
    # (sysfs files say 4096 bytes and hold fewer: what they hold is not a config either)
    size = os.stat(SYSFS_FILE).st_size
    rc, out, err = run(["--check", "--config", SYSFS_FILE])
    assert (rc, out) == (1, "")
    assert err == ("tinymcp: %s: cannot read: not a regular file (it holds other than "
                   "the %d bytes its size says, as /proc and /sys files do)\n" % (SYSFS_FILE, size))


def test_a_prompt_file_of_exactly_the_size_bound_is_read(tmp_path):
    import tinymcp
    from tinymcp.files.folders import MAX_FILE_BYTES
    root = str(tmp_path)
    with open(os.path.join(root, "big.md"), "w") as f:
        f.write("Say " + "z" * (MAX_FILE_BYTES - 5) + "\n")
    assert os.path.getsize(os.path.join(root, "big.md")) == MAX_FILE_BYTES
    notes = []
    assert names(tinymcp.load_files(prompt_dirs=[root], notes=notes)) == ["big"]
    assert notes == []
