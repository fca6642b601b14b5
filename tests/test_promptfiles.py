"""Prompt files, one at a time: each format turned into the config dict (promptfiles.parse),
then served through the one validator and prompts/get (a Server and its Session).

Every file here is what people write: front matter or none, CRLF, a BOM, Unicode, empty
bodies, ``$10``, ``$ARGUMENTS`` beside ``$1``, placeholders in code fences.
"""

import json
import sys

import pytest

pytest.importorskip("tinymcp.files", reason="a copy without files/")

from conftest import PACKAGE, bounded
import importlib

promptfiles = importlib.import_module(PACKAGE + ".files.formats")
tinymcp = importlib.import_module(PACKAGE)


def parsed(relpath, text, host=None):
    result = promptfiles.parse(relpath, text, host)
    assert result.problems == [], result.problems
    return result


def rendered(relpath, text, host=None, **arguments):
    """The text of each message prompts/get sends for the file (in a ``host`` folder of
    that kind), with ``arguments``."""
    result = parsed(relpath, text, host)
    session = tinymcp.Session(tinymcp.Server({"prompts": [result.prompt]}))
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "0"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
              "params": {"name": result.prompt["name"], "arguments": arguments}}]
    out = session.receive_data("".join(json.dumps(m) + "\n" for m in lines).encode())
    reply = json.loads(out.splitlines()[-1])
    assert "result" in reply, reply
    return [(m["role"], m["content"]["text"]) for m in reply["result"]["messages"]]


def problems(relpath, text):
    return promptfiles.parse(relpath, text).problems


# --- MCP Markdown ----------------------------------------------------------------------------

REVIEW = """\
---
name: code_review            # optional: the file's stem otherwise
title: Review code
description: Review a change for bugs and clarity
arguments:
  - name: code
    description: The code to review
    required: true
  - name: focus
    default: correctness
---
Review this code, focusing on {{focus}}:

{{code}}
"""


def test_the_issue_example_becomes_the_config_dict_it_means():
    result = parsed("review.md", REVIEW)
    assert result.format == "mcp"
    assert result.prompt == {
        "name": "code_review", "title": "Review code",
        "description": "Review a change for bugs and clarity",
        "arguments": [{"name": "code", "description": "The code to review", "required": True},
                      {"name": "focus", "default": "correctness"}],
        "messages": [{"role": "user", "text": "Review this code, focusing on {focus}:\n\n{code}"}]}
    assert result.located()["arguments[0].required"] == 8
    assert result.located()["messages[0].text"] == 12


def test_the_issue_example_renders_with_its_default_and_values_verbatim():
    assert rendered("review.md", REVIEW, code="x = {focus} $1 {{code}}") == [
        ("user", "Review this code, focusing on correctness:\n\nx = {focus} $1 {{code}}")]


def test_role_markers_make_several_messages_and_assistant_turns():
    text = ("---\narguments:\n  - name: q\n---\nFirst {{ q }}\n\n<!-- role: assistant -->\n"
            "Sure.\n<!--role:user-->\n\nAnd then?\n")
    assert rendered("chat.md", text, q="why") == [
        ("user", "First why"), ("assistant", "Sure."), ("user", "And then?")]
    assert parsed("chat.md", text).located()["messages[1].text"] == 8


def test_a_file_may_start_with_an_assistant_marker():
    assert rendered("a.md", "<!-- role: assistant -->\nHello.\n") == [("assistant", "Hello.")]


def test_literal_braces_and_escaped_placeholders():
    text = "Write \\{{name}} for a placeholder; a dict is {a: 1}; }} alone stays.\n"
    assert rendered("lit.md", text) == [
        ("user", "Write {{name}} for a placeholder; a dict is {a: 1}; }} alone stays.")]


def test_no_front_matter_takes_the_stem_as_name_and_the_whole_file_as_text():
    result = parsed("hello.md", "Say hello.\n")
    assert result.prompt == {"name": "hello", "messages": [{"role": "user", "text": "Say hello."}]}


def test_crlf_and_a_bom_read_like_lf():
    text = "\ufeff" + REVIEW.replace("\n", "\r\n")
    assert parsed("review.md", text).prompt == parsed("review.md", REVIEW).prompt


def test_unicode_names_and_text():
    text = "---\nname: résumé\narguments:\n  - name: 名前\n---\nこんにちは {{名前}} 👋\n"
    assert rendered("r.md", text, **{"名前": "Zoë"}) == [("user", "こんにちは Zoë 👋")]
    assert parsed("dir/r.md", text).prompt["name"] == "dir:résumé"


def test_a_placeholder_named_like_a_keyword_is_a_placeholder():
    # (a declared `elsewhere` was refused as template logic: Handlebars' {{else}} starts so)
    text = "---\narguments:\n  - name: elsewhere\n---\nAsk about {{elsewhere}}\n"
    assert rendered("f.md", text, elsewhere="Paris") == [("user", "Ask about Paris")]


def test_a_placeholder_inside_a_code_fence_is_a_placeholder_too():
    text = ("---\narguments:\n  - name: lang\n---\n```{{lang}}\nprint({'a': 1})\n```\n")
    assert rendered("f.md", text, lang="python") == [("user", "```python\nprint({'a': 1})\n```")]


@pytest.mark.parametrize("opener", ["--- ", "---\t", "---  \t"])
def test_front_matter_may_open_with_trailing_blanks_as_it_may_close(opener):
    # Bug: "--- " opened nothing, and the whole file, front matter included, was the text
    result = parsed("f.md", opener + "\ntitle: T\n--- \nBody\n")
    assert result.prompt["title"] == "T"
    assert rendered("f.md", opener + "\ntitle: T\n---\nBody\n") == [("user", "Body")]


@pytest.mark.parametrize("text, expected", [
    ("---\ntitle: x\n---\n", [(4, None, "", "no prompt text: write it after the front matter")]),
    ("---\ntitle: x\n---\n\n  \n", [(4, None, "", "no prompt text: write it after the front matter")]),
    ("", [(1, None, "", "no prompt text: write it after the front matter")]),
    ("---\ntitle: x\n", [(1, None, "", "front matter opened by '---' is never closed "
                                       "(end it with a line '---')")]),
    ("---\ntitle:\n  &a x\n---\nhi", [(3, 3, "", "front matter: anchors are not supported (quote the value)")]),
    ("---\n- a\n---\nhi", [(2, None, "", "front matter: expected 'key: value' lines, got a list")]),
    ("Hi {{who}}\n", [(1, 4, "", "placeholder {{who}} names no declared argument (declare it under "
                                "'arguments:', or write \\{{ for literal braces)")]),
    ("---\narguments:\n  - name: who\n---\nHi {{Who}}\n", [
        (5, 4, "", "placeholder {{Who}} names no declared argument (did you mean {{who}}?)")]),
    # (a helper, a filter or a field was told to be declared under 'arguments:', which cannot be)
    ("Hi {{upper who}}\n", [(1, 4, "", "{{upper who}}: template logic (Handlebars, Mustache, Jinja or Go "
                                       "template code) is not run here; write \\{{ to keep it as text")]),
    ("Hi {{ who | default('x') }}\n", [(1, 4, "", "{{who | default('x')}}: template logic (Handlebars, Mustache, "
                                                 "Jinja or Go template code) is not run here; write \\{{ to keep "
                                                 "it as text")]),
    ("Hi {{.Name}}\n", [(1, 4, "", "{{.Name}}: template logic (Handlebars, Mustache, Jinja or Go template "
                                   "code) is not run here; write \\{{ to keep it as text")]),
    ("a {{else}} b\n", [(1, 3, "", "{{else}}: template logic (Handlebars, Mustache, Jinja or Go template "
                                   "code) is not run here; write \\{{ to keep it as text")]),
    ("a\nb {{ }} c\n", [(2, 3, "", "'{{' opens no placeholder: write {{name}}, or \\{{ for literal braces")]),
    ("a {{x\n", [(1, 3, "", "'{{' opens no placeholder: write {{name}}, or \\{{ for literal braces")]),
    ("x\n<!-- role: system -->\ny\n", [(2, None, "", "unknown role 'system' in a message marker: "
                                                  "write <!-- role: user --> or <!-- role: assistant -->")]),
    ("x\n<!-- role: assistant -->\n\n", [(2, None, "", "an empty assistant message: write its text "
                                                    "below the marker, or remove the marker")]),
    ("---\nmessages: []\n---\nx", [(2, None, "messages",
                                    "write the messages in the body, after the front matter")]),
])
def test_mcp_markdown_problems_are_pinned_with_their_line(text, expected):
    assert problems("p.md", text) == expected


@pytest.mark.parametrize("argument, told", [("  - append: x", ("arguments[0]", "missing required key 'name'")), (
    "  - name: [a]\n    append: x", ("arguments[0].name", "expected a string, got a list"))])
def test_an_appended_argument_without_a_name_in_text_is_a_problem_not_a_crash(tmp_path, argument, told):
    # (the names an `append` uses were taken of every argument with one: KeyError, or unhashable list)
    (tmp_path / "p.md").write_text("---\narguments:\n%s\n---\nhi\n" % argument)
    with pytest.raises(tinymcp.ConfigError) as exc:
        tinymcp.load_files(None, None, [str(tmp_path)])
    assert exc.value.problems == [("%s:3: %s" % (tmp_path / "p.md", told[0]), told[1])]


def test_a_file_of_many_bad_placeholders_tells_its_first_problems_and_reads_no_further():
    # (each problem is placed by counting lines from the start: 200,000 took 30 s to load)
    found = problems("p.md", "Say {{x}}\n" * 100)
    assert len(found) == promptfiles.MOST_PROBLEMS + 1
    assert found[:2] == [(line, 5, "", "placeholder {{x}} names no declared argument (declare it under "
                                       "'arguments:', or write \\{{ for literal braces)") for line in (1, 2)]
    assert found[-1] == (promptfiles.MOST_PROBLEMS + 1, 5, "", "more problems may follow: a file's first %d are told"
                         % promptfiles.MOST_PROBLEMS)


def test_a_file_of_many_empty_messages_tells_its_first_problems():
    found = problems("p.md", "x\n" + "<!-- role: user -->\n" * 100)
    assert len(found) == promptfiles.MOST_PROBLEMS + 1
    assert found[0] == (2, None, "", "an empty user message: write its text below the marker, or remove the marker")
    assert found[-1][3] == "more problems may follow: a file's first %d are told" % promptfiles.MOST_PROBLEMS


@pytest.mark.parametrize("relpath, text", [
    ("p.md", "\n" * 1000000 + "x\n"),  # (a pop from the front of the lines each: 3 minutes)
    ("p.prompt.md", "${input:" * 120000 + "}"),  # (each looked for the one '}' at the end: 8 s)
    ("c.md", "---\narguments: [x, %s]\n---\n$%sb\n" % ("a-" * 160000 + "a", "a-" * 160000 + "a")),
    # (code braces kept as text each copied the text up to a '}}' far ahead: 49 s, 14 s)
    ("f.md", "```\n" + "{{" * 520000 + "\n```\n}}\n"),
    ("f.md", "```\n" + "a {{ x\n" * 140000 + "```\n}}\n"),
    ("f.md", "\\{{" * 340000 + "}}\n"),
])
def test_hostile_bodies_near_the_size_limit_are_read_in_linear_time(relpath, text):
    # (a named argument with a hyphen each two characters was cut at each: 16 s)
    with bounded(5):
        result = parsed(relpath, text)
    assert result.prompt is not None


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="tracemalloc is CPython's")
def test_a_long_key_over_many_items_names_no_path_per_item():
    # (each item's path repeated the key: a 20,000-character key over 20,000 items made 400 MB)
    import tracemalloc
    result = promptfiles.parse("p.md", "---\n" + "k" * 20000 + ":\n" + "  - x\n" * 5000 + "title: 3\n---\nBody\n")
    tracemalloc.start()
    try:
        lines = result.located()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 * 1024 * 1024 and lines["title"] == 5003  # (the old way: 100 MB)


def test_a_file_of_many_unknown_keys_lists_the_first_twenty_and_then_one_line():
    # (each was a warning, asked for a near miss first: 100,000 took 2 s and 100,000 log lines)
    result = promptfiles.parse("p.md", "---\n" + "".join("k%d: 1\n" % i for i in range(30)) + "---\nBody\n")
    assert result.warnings[:2] == [(2, "k0: unknown key, ignored"), (3, "k1: unknown key, ignored")]
    assert result.warnings[20:] == [(22, "more unknown keys from here on, ignored and not listed")]
    assert result.prompt is not None and result.problems == []


def test_host_keys_in_mcp_markdown_are_ignored_and_unknown_keys_reach_the_validator():
    result = parsed("p.md", "---\ntitle: T\nmodel: opus\ndescripton: typo\n---\nx\n")
    assert result.format == "mcp"
    assert result.prompt == {"name": "p", "title": "T", "descripton": "typo",
                             "messages": [{"role": "user", "text": "x"}]}
    with pytest.raises(tinymcp.ConfigError) as info:
        tinymcp.load_config({"prompts": [result.prompt]})
    assert str(info.value) == "prompts[0].descripton: unknown key (did you mean 'description'?)"


# --- Claude Code and Codex commands ---------------------------------------------------------

FIX = """\
---
description: Fix an issue
argument-hint: [issue-number] [priority]
allowed-tools: Bash(git add:*), Bash(git commit:*)
model: claude-sonnet-4
---
Fix issue #$1 with priority $2.

Everything you typed: $ARGUMENTS
Run !`git status` and read @src/main.py first.
"""


def test_a_claude_code_command_maps_positions_to_the_hint_and_arguments_to_one_more():
    result = parsed("git/fix.md", FIX)
    assert result.format == "command"
    assert result.prompt["name"] == "git:fix"
    assert result.prompt["description"] == "Fix an issue"
    assert result.prompt["arguments"] == [
        {"name": "issue-number", "description": "Argument 1", "default": "$1"},
        {"name": "priority", "description": "Argument 2", "default": "$2"},
        {"name": "arguments", "description": "Everything after the command, as typed "
                                             "([issue-number] [priority])"}]
    assert rendered("git/fix.md", FIX, **{"issue-number": "42", "arguments": "42 high"}) == [
        ("user", "Fix issue #42 with priority $2.\n\nEverything you typed: 42 high\n"
                 "Run !`git status` and read @src/main.py first.")]


def test_positions_are_read_as_claude_code_reads_them_and_without_a_hint_are_argN():
    # (a real skill's "$2b$" bcrypt prefix lost its "$2": a word character after the
    # digits makes them text, as in Claude Code; all the digits are the position)
    text = "---\nmodel: x\n---\nPay $10 to $2 or $3 $4 $5 $6 $7 $8 $9 $1; hash with $2b$.\n"
    result = parsed("c.md", text)
    assert result.prompt["arguments"][1:3] == [{"name": "arg2", "description": "Argument 2", "default": "$2"},
                                               {"name": "arg3", "description": "Argument 3", "default": "$3"}]
    assert result.prompt["arguments"][-1] == {"name": "arg10", "description": "Argument 10", "default": "$10"}
    assert rendered("c.md", text, arg10="7", arg2="Bo")[0][1].startswith("Pay 7 to Bo or $3")
    assert rendered("c.md", text, arg10="7", arg2="Bo")[0][1].endswith("; hash with $2b$.")
    assert parsed("c.md", "Rename $1_old\n").prompt["arguments"][0]["name"] == "arguments"  # ('_': a word too)
    text = "Take $ARGUMENTS[12] and $ARGUMENTS[x]\n"  # (from 0, as $ARGUMENTS[N] counts)
    assert [a["name"] for a in parsed("c.md", text).prompt["arguments"]] == ["arg13", "arguments"]
    assert rendered("c.md", text, arg13="y", arguments="z") == [("user", "Take y and z[x]")]
    # past 4 digits a number is text: 5,000 digits made int() refuse, and the load fail
    text = "Pay $%s, $ARGUMENTS[%s] or $ARGUMENTS[1234]\n" % ("9" * 5000, "9" * 5000)
    assert [a["name"] for a in parsed("c.md", text).prompt["arguments"]] == ["arg1235", "arguments"]


def test_in_a_codex_folder_dollar_ten_is_dollar_one_then_a_zero():
    text = "Pay $10 to $2.\n"
    result = parsed("c.md", text, "codex")
    assert result.format == "codex"
    assert result.prompt["arguments"] == [{"name": "arg1", "description": "Argument 1", "default": ""},
                                          {"name": "arg2", "description": "Argument 2", "default": ""}]
    assert rendered("c.md", text, "codex", arg1="7", arg2="Bo") == [("user", "Pay 70 to Bo.")]
    # Codex reads $1 to $9 and leaves $0 as text (a shell usage line): the positions stay
    text = "Fix issue $1; usage: $0 ISSUE\n"
    assert rendered("c.md", text, "codex", arg1="42") == [("user", "Fix issue 42; usage: $0 ISSUE")]


def test_codex_reads_its_front_matter_line_by_line_and_fills_what_is_not_given_with_nothing():
    # Codex splits each front-matter line at its first ':' (no YAML: "Fix: the test" is text),
    # lowercases the key, takes one pair of quotes off, knows description and argument-hint
    # only, and takes a front matter never closed as text; an unfilled $2 is nothing there,
    # and a backslash before $1 is text
    text = ("---\nDescription: Fix: the test\n# a comment\nargument-hint: [a]\nargument_hint: '[file] [line]'\n"
            "model: o3: high\nno colon\n---\nFix $1 at \\$2.\n")
    result = parsed("fix.md", text, "codex")
    assert result.prompt["description"] == "Fix: the test"
    assert [a["name"] for a in result.prompt["arguments"]] == ["file", "line"]
    assert rendered("fix.md", text, "codex", file="a.py") == [("user", "Fix a.py at \\.")]
    assert rendered("fix.md", text, "codex", file="a.py", line="3") == [("user", "Fix a.py at \\3.")]
    text = "---\ndescription: open\nFix $1.\n"
    assert rendered("fix.md", text, "codex", arg1="it") == [("user", "---\ndescription: open\nFix it.")]
    # (elsewhere, YAML as before: that line is read again quoted, as Claude Code reads it, and told)
    assert parsed("fix.md", "---\ndescription: Fix: the test\n---\nFix $1.\n").warnings == [
        (2, "read as quoted text, as Claude Code reads front matter that YAML refuses (': ' inside a value "
            "(quote the value))")]


def test_a_value_quoted_already_is_not_quoted_again_when_front_matter_is_read_again():
    # (the retry quotes an unquoted value holding ': '; one the author quoted stays as YAML reads it)
    result = parsed("x.md", '---\ndescription: "Fix: the build"\nargument-hint: Use when: x\n---\nBody\n')
    assert result.prompt["description"] == "Fix: the build" and result.warnings == []


def test_a_position_left_unfilled_stays_as_written_as_claude_code_leaves_it():
    # Claude Code: "An indexed placeholder with no corresponding argument, such as $2 when only
    # one argument was passed, stays in the content unchanged" (a skill's awk '{print $1}' and a
    # Windsurf workflow's "case $1" went out with nothing there; those hosts fill nothing)
    text = "---\nallowed-tools: Bash\n---\nRun awk '{print $1}' on the log, then $2.\n"
    assert rendered("c.md", text) == [("user", "Run awk '{print $1}' on the log, then $2.")]
    assert rendered("c.md", text, arg2="stop") == [("user", "Run awk '{print $1}' on the log, then stop.")]
    # (as written: $ARGUMENTS[1] stays $ARGUMENTS[1], not $1)
    text = "Compare $ARGUMENTS[0] with $ARGUMENTS[1].\n"
    assert rendered("c.md", text, arg1="a") == [("user", "Compare a with $ARGUMENTS[1].")]


@pytest.mark.parametrize("text", [
    "Our plan costs $5 a seat, $50 a year, $10 a month or $1.50 a day; $1,000 once, $0.99 too.\n",
    "Compare $2 with $3.\n",
])
def test_a_plain_markdown_file_with_amounts_is_not_a_command(text):
    # Bug: "$5" in a plain Markdown prompt made it a command with an optional argument arg5
    # (and "$50" that argument then a 0): only $ARGUMENTS, $0 or $1 not in an amount say so
    result = parsed("price.md", text)
    assert result.format == "mcp" and "arguments" not in result.prompt
    assert rendered("price.md", text) == [("user", text.strip())]


@pytest.mark.parametrize("text, names", [
    ("Fix issue $1, then $2.\n", ["arg1", "arg2"]),
    ("Fix issue $1.\n", ["arg1"]),
    ("Start at $0 and costs $5.\n", ["arg1"]),  # ($5, past a gap: an amount, text)
    ("Pay $1,x\n", ["arg1"]),
])
def test_a_body_with_a_first_position_is_a_command(text, names):
    result = parsed("c.md", text)
    assert result.format == "command"
    assert [a["name"] for a in result.prompt["arguments"]] == names


def test_a_front_matter_command_with_a_later_position_keeps_shell_variables_as_text():
    # Bug: once "$2" alone no longer made a body a command, a front-matter command using
    # only $2 took $ENV for a required Codex argument
    # (and $2 with no $1 is an amount now: text, and what is typed is appended)
    text = "---\nmodel: x\n---\nDeploy $2 to $ENV\n"
    assert [a["name"] for a in parsed("d.md", text).prompt["arguments"]] == ["arguments"]
    assert rendered("d.md", text, arguments="main") == [("user", "Deploy $2 to $ENV\n\nARGUMENTS: main")]


@pytest.mark.parametrize("text, names", [
    ("---\nmodel: x\n---\nSquare $\u00b2 and $1\n", ["arg1"]),
    # ($ARGUMENTS[ makes positions count from 0: $1 is the second)
    ("---\nmodel: x\n---\nFirst $ARGUMENTS[\u00b2] then $0 $1\n", ["arg1", "arg2", "arguments"]),
])
def test_a_digit_that_is_not_ascii_is_no_position(text, names):
    # Bug: "$\u00b2" (a superscript two) was read as a position, and int() raised
    assert [a["name"] for a in parsed("s.md", text).prompt["arguments"]] == names


@pytest.mark.parametrize("host", [None, "codex", "opencode"])
def test_arguments_are_declared_by_position_as_a_client_maps_what_is_typed(host):
    # Bug: they came in the order the body first used them, so "/compare a b" in a client that
    # fills declared arguments in turn gave $2 "a", where the host's own command gives $1 "a"
    text = "---\nargument-hint: [new] [old]\n---\nCompare $2 with $1, then $ARGUMENTS.\n"
    assert [a["name"] for a in parsed("c.md", text, host).prompt["arguments"]][:2] == ["new", "old"]
    text = "---\narguments: [issue, branch]\n---\nOn $branch fix $issue.\n"
    assert [a["name"] for a in parsed("s/SKILL.md", text).prompt["arguments"]] == ["issue", "branch"]


def test_dollar_zero_or_an_index_counts_from_zero_as_claude_code_does_now():
    text = "First $0, second $ARGUMENTS[1], all $ARGUMENTS\n"
    assert [a["name"] for a in parsed("z.md", text).prompt["arguments"]] == ["arg1", "arg2", "arguments"]
    assert rendered("z.md", text, arg1="a", arg2="b", arguments="a b") == [
        ("user", "First a, second b, all a b")]


def test_escapes_keep_dollars_literal_and_values_are_never_expanded():
    text = "Costs \\$1.00, $$HOME stays, {x} too: $1\n"
    assert rendered("e.md", text, arg1="$2 {x} $ARGUMENTS") == [
        ("user", "Costs $1.00, $$HOME stays, {x} too: $2 {x} $ARGUMENTS")]
    # Claude Code: "A doubled backslash such as \\$1 leaves both backslashes in place, and $1
    # still expands"
    assert rendered("e.md", "Path C:\\\\$1\n", arg1="x") == [("user", "Path C:\\\\x")]


@pytest.mark.parametrize("names", ["issue branch", "issue, branch", "[issue, branch]", "issue,branch"])
def test_claude_code_named_arguments(names):
    text = "---\narguments: %s\n---\nFix $issue on $branch ($issuer stays)\n" % names
    result = parsed("n.md", text)
    assert result.prompt["arguments"] == [{"name": "issue"}, {"name": "branch"}]
    assert rendered("n.md", text, issue="7") == [("user", "Fix 7 on  ($issuer stays)")]


def test_a_named_argument_the_text_never_uses_keeps_its_place_below_one_it_does():
    # (jleechanorg's skillify names target_path and description and uses only $1: target_path was
    # left out, so a client filling in turn gave description the word Claude Code gives $0)
    text = "---\narguments: [target_path, description, after]\n---\nRun awk '{print $1}' on it\n"
    assert [a["name"] for a in parsed("s.md", text).prompt["arguments"]] == ["target_path", "description"]
    assert rendered("s.md", text, target_path="foo", description="bar") == [("user", "Run awk '{print bar}' on it")]
    # (a name given twice, an empty one, or one the text's $ARGUMENTS takes: each file loads, as it did)
    for names, body, expected in (("[a, a, b]", "$b", ["a", "b"]), ("a b a c", "$c", ["a", "b", "c"]),
                                  ("[arguments, b]", "$b and $ARGUMENTS", ["arguments", "b"]),
                                  ("['', b]", "$b", ["b"])):
        result = parsed("d.md", "---\narguments: %s\n---\nUse %s\n" % (names, body))
        assert sorted(a["name"] for a in result.prompt["arguments"]) == expected, names


@pytest.mark.parametrize("front, body, line, told", [
    ("arguments:\n  - name: code\n    required: true\n  - name: tone\n    append: ' '", "Review {code}", 4, "{{code}}"),
    ("arguments: code, focus", "Review {{code}} for $focus", 3, "$code"),
])
def test_a_declared_argument_the_text_never_uses_is_told(front, body, line, told):
    # (a client is asked for it and its value goes nowhere: a placeholder of another format,
    # MCP Markdown's {code} or a command's {{code}}; an argument an `append` adds is used)
    result = parsed("r.md", "---\ndescription: Review\n%s\n---\n%s\n" % (front, body))
    assert result.prompt is not None
    assert result.warnings == [(line, "argument 'code' is declared, but the text never uses %s" % told)]


def test_kept_block_text_ending_the_front_matter_keeps_its_line_breaks():
    # (`|+` keeps every line break after its text: the one before the closing '---' was lost)
    text = "---\ntitle: T\ndescription: |+\n  keep\n\n---\nBody\n"
    assert parsed("k.md", text).prompt["description"] == "keep\n\n"


@pytest.mark.parametrize("fence", ["----", "-----  "])
def test_a_line_of_more_dashes_opening_a_file_is_told_it_opens_no_front_matter(fence):
    # (hosts read it as text, as we do: the keys under it were served as the prompt's text, unsaid)
    result = parsed("r.md", "%s\ndescription: Review\n%s\nReview it\n" % (fence, fence))
    assert result.prompt["messages"][0]["text"].startswith("%s\ndescription: Review" % fence)
    assert result.warnings == [(1, "%r opens no front matter, as hosts read it (write '---')" % fence.strip())]
    assert parsed("r.md", "-" * 30 + "\nname: x\n---\nA\n").warnings == [
        (1, "'%s...' opens no front matter, as hosts read it (write '---')" % ("-" * 20))]
    # (not a fence: nothing to tell; a Markdown rule first, nothing closing it; a file of it alone)
    for text in ("----x\nReview it\n", "----\nIntro\n\nMore\n", "----", "----\n"):
        assert parsed("r.md", text).warnings == []


def test_a_named_argument_with_a_hyphen_is_the_longest_name_that_fits():
    text = "---\narguments: [pr, pr-number]\n---\n$pr-number, $pr-title, $pr\n"
    assert rendered("h.md", text, pr="A", **{"pr-number": "7"}) == [("user", "7, A-title, A")]


@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"), reason="no interval timers here")
@pytest.mark.parametrize("text", [
    "---\nargument-hint: %s\n---\n$ARGUMENTS\n" % " ".join("[a%d]" % i for i in range(100000)),
    "---\narguments: %s\n---\n%s\n" % (" ".join("a%d" % i for i in range(40000)),
                                        " ".join("$a%d" % i for i in range(40000))),
    "---\narguments: %s\n---\n%s\n" % (" ".join("a-%d" % i for i in range(40000)),
                                        " ".join("$a-%d-x" % i for i in range(40000))),
], ids=["hint names", "named", "hyphenated"])
def test_many_argument_names_are_read_in_linear_time(text):
    # each name was compared with every name before it (the hint), or each '$' with every
    # name (arguments:): 40,000 took 7 s and more
    with bounded(10):
        result = parsed("many.md", text)
    assert result.prompt["arguments"] and not result.problems


def test_a_commands_description_written_as_a_block_is_trimmed_as_claude_code_trims_it():
    text = "---\ndescription: |\n  Review the diff.\nmodel: x\n---\nReview $ARGUMENTS\n"
    assert parsed("r.md", text).prompt["description"] == "Review the diff."
    assert parsed("s/SKILL.md", text.replace("model: x", "name: s")).prompt["description"] == "Review the diff."


@pytest.mark.parametrize("hint, names", [
    ("[pr-number] <priority>, [files...]", ["pr-number", "priority", "files"]),
    # (free text names nothing: "task (optional), context (optional)" named $2 "optional")
    ("task (optional), context (optional)", ["arg1", "arg2", "arg3"]),
    ("User-provided context", ["arg1", "arg2", "arg3"]),
    ("[file path] [a|b] [c]", ["arg1", "arg2", "c"]),
    ("[config.json] [v1.2] [...]", ["config.json", "v1.2", "arg3"]),  # (a dot in a word: it was arg1, arg2)
    # (flags, any of which $1 may be: "--status" named the first position's field)
    ("[--status] [--init] [c]", ["arg1", "arg2", "c"]),
])
def test_only_words_whole_in_brackets_of_an_argument_hint_name_positions(hint, names):
    text = "---\nargument-hint: %s\n---\nFix $1 in $2 ($3).\n" % hint
    assert [a["name"] for a in parsed("c.md", text).prompt["arguments"]] == names


def test_a_hint_yaml_refuses_is_read_as_text_only_where_claude_code_writes_it_so():
    # ([pr] [priority] unquoted, in Claude Code's own examples; an unclosed quote stays a mistake)
    assert parsed("c.md", "---\nargument-hint: [a] <b>\n---\n$1 $2\n").prompt["arguments"][0]["name"] == "a"
    assert problems("c.md", '---\nargument-hint: "a\n---\n$1\n') == [
        (2, 16, "", "front matter: a quoted value that does not end on its line")]


@pytest.mark.parametrize("text, names, rendered_text", [
    # Bug: a position's name (from the hint, or argN) that a later $ARGUMENTS or $name also
    # took was refused as a duplicate argument name at line 1, by the order they came in
    ("---\nargument-hint: [arguments]\n---\n$1 and $ARGUMENTS\n", ["arg1", "arguments"],
     "<arg1> and <arguments>"),
    # (named arguments are the first positions, from 0, as Claude Code maps them: $1 is the second)
    ("---\narguments: [foo]\nargument-hint: [foo]\n---\n$1 then $foo\n", ["foo", "arg2"],
     "<arg2> then <foo>"),
    ("---\narguments: [arg1]\nmodel: x\n---\n$arg1 and $1\n", ["arg1", "arg2"],
     "<arg1> and <arg2>"),
    ("---\narguments: [arg1, arg1_2]\nmodel: x\n---\n$1, $arg1, $arg1_2\n", ["arg1", "arg1_2"],
     "<arg1_2>, <arg1>, <arg1_2>"),
    # (a name a position takes from `arguments` is taken for the hint's too: two were "branch")
    ("---\narguments: [branch]\nargument-hint: \"[issue] [branch]\"\n---\nOn $0 fix $1.\n", ["branch", "arg2"],
     "On <branch> fix <arg2>."),
])
def test_a_positions_name_gives_way_to_names_the_body_uses(text, names, rendered_text):
    assert [a["name"] for a in parsed("c.md", text).prompt["arguments"]] == names
    assert rendered("c.md", text, **{name: "<%s>" % name for name in names}) == [("user", rendered_text)]


def test_named_arguments_are_positions_as_claude_code_maps_them():
    # Claude Code: "with arguments: [issue, branch] the placeholder $issue expands to the first
    # argument" ($0, or $ARGUMENTS[0]): one argument, not two
    text = "---\narguments: [issue, branch]\n---\nFix $issue on $branch ($0 into $ARGUMENTS[1]).\n"
    assert [a["name"] for a in parsed("fix.md", text).prompt["arguments"]] == ["issue", "branch"]
    assert rendered("fix.md", text, issue="12", branch="main") == [("user", "Fix 12 on main (12 into main).")]


def test_codex_named_placeholders_are_required_in_a_codex_folder_or_where_the_hint_names_them():
    text = "---\nargument-hint: USER=<name> BRANCH=<branch>\n---\nDeploy $BRANCH for $USER ($BRANCH).\n"
    result = parsed("deploy.md", text, "codex")
    assert result.prompt["arguments"] == [{"name": "BRANCH", "required": True},
                                          {"name": "USER", "required": True}]
    assert rendered("deploy.md", text, "codex", USER="ann", BRANCH="main") == [
        ("user", "Deploy main for ann (main).")]
    # elsewhere, those the argument hint names (ENV=<env>, as Codex's own examples write it)
    for host in (None, "command"):
        assert rendered("deploy.md", text, host, USER="ann", BRANCH="main") == [
            ("user", "Deploy main for ann (main).")]
    text = "---\nargument-hint: USER=<name>\n---\nDeploy $BRANCH for $USER.\n"
    assert rendered("deploy.md", text, None, USER="ann") == [("user", "Deploy $BRANCH for ann.")]
    text = "---\nargument-hint: [FILE=<path>]\n---\nExplain $FILE\n"  # (in brackets, as prompts write it too)
    assert rendered("explain.md", text, None, FILE="a.py") == [("user", "Explain a.py")]
    # (four real skills could not be got: $VIEWER_PID and the like became required)
    skill = "---\nname: hooks\ndescription: Hooks\n---\nkill $VIEWER_PID\n"
    assert rendered("hooks/SKILL.md", skill) == [("user", "kill $VIEWER_PID")]
    assert [a["name"] for a in parsed("k.md", "---\nmodel: x\n---\nkill $PID\n").prompt["arguments"]] == [
        "arguments"]


def test_codex_reads_a_prompt_with_a_name_by_name_alone():
    # (Codex's expand_custom_prompt: a $NAME in the body makes every argument KEY=value, and
    # its $1 and $ARGUMENTS stay as written; tinymcp read such a prompt by position)
    text = "Review $FILE: $1, $ARGUMENTS, $$TEAM, `log($$$ARGS)`.\n"
    result = parsed("r.md", text, "codex")
    assert result.prompt["arguments"] == [{"name": "FILE", "required": True}]
    assert rendered("r.md", text, "codex", FILE="a.py") == [
        ("user", "Review a.py: $1, $ARGUMENTS, $$TEAM, `log($$$ARGS)`.")]
    assert [a["name"] for a in parsed("r.md", "Review $1 for $$TEAM.\n", "codex").prompt["arguments"]] == ["arg1"]


def test_a_plain_markdown_file_with_shell_variables_is_not_a_command():
    result = parsed("notes.md", "Echo $HOME and $PATH.\n")
    assert result.format == "mcp" and "arguments" not in result.prompt
    assert rendered("notes.md", "Echo $HOME and $PATH.\n") == [("user", "Echo $HOME and $PATH.")]


def test_a_command_without_placeholders_appends_what_was_typed_as_claude_code_does():
    # (20 real commands could not take "/commit fix typo": no argument was declared)
    text = "---\ndescription: Status\nallowed-tools: Bash\n---\nShow !`git status`\n"
    result = parsed("s.md", text)
    assert result.format == "command"
    assert result.prompt["arguments"] == [{"name": "arguments", "append": "\n\nARGUMENTS: ",
                                           "description": "Everything after the command, as typed"}]
    assert rendered("s.md", text) == [("user", "Show !`git status`")]
    assert rendered("s.md", text, arguments="--short") == [("user", "Show !`git status`\n\nARGUMENTS: --short")]


def test_an_opencode_command_appends_what_was_typed_bare_and_leaves_a_position_not_given_empty():
    # (OpenCode's session/prompt.ts: "\n\n" + what was typed, no label; a $N not given is "")
    assert rendered("c.md", "Clean up.\n", "opencode", arguments="the tests") == [("user", "Clean up.\n\nthe tests")]
    assert rendered("c.md", "Fix $1 in $2.\n", "opencode", arg1="x") == [("user", "Fix x in .")]
    assert rendered("c.md", "Fix $1 in $2.\n", "command", arg1="x") == [("user", "Fix x in $2.")]


@pytest.mark.parametrize("body, names, text", [
    # (OpenCode's session/prompt.ts fills /\$(\d+)/ from $1, whatever follows the digits, and
    # $ARGUMENTS as written; they were read as Claude Code reads them: $0 first, $2b text...)
    ("First $0 then $1 done.\n", ["arg1"], "First $0 then <arg1> done."),
    ("Pick $ARGUMENTS[1] from $ARGUMENTS.\n", ["arguments"], "Pick <arguments>[1] from <arguments>."),
    ("Hash $2b with $1, not \\$1.\n", ["arg1", "arg2"], "Hash <arg2>b with <arg1>, not \\<arg1>."),
    ("---\narguments: [pr]\n---\nReview $pr at $1.\n", ["arg1"], "Review $pr at <arg1>."),
])
def test_an_opencode_command_reads_its_placeholders_as_opencode_does(body, names, text):
    assert [a["name"] for a in parsed("c.md", body, "opencode").prompt["arguments"]] == names
    assert rendered("c.md", body, "opencode", **{n: "<%s>" % n for n in names}) == [("user", text)]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is 3.11+")
def test_a_gemini_command_without_args_appends_the_command_as_typed():
    text = 'prompt = "Summarize the changes."\n'
    assert rendered("git/sum.toml", text) == [("user", "Summarize the changes.")]
    assert rendered("git/sum.toml", text, args="since v1") == [
        ("user", "Summarize the changes.\n\n/git:sum since v1")]


def test_command_name_key_is_ignored_as_claude_code_does():
    assert parsed("real.md", "---\nname: other\nmodel: x\n---\n$1\n").prompt["name"] == "real"


def test_front_matter_only_command_is_a_problem():
    assert problems("x.md", "---\nallowed-tools: Bash\n---\n") == [
        (4, None, "", "no prompt text: write it after the front matter")]


# --- VS Code prompt files -------------------------------------------------------------------

FORM = """\
---
mode: agent
model: GPT-4o
tools: ['githubRepo', 'search/codebase']
description: Generate a new React form component
---
Create a form named ${input:formName:MyForm} with ${input:fields:name, email}.
Then test ${input:formName}; ${selection} and ${file} stay as they are.
"""


def test_vscode_inputs_become_required_arguments_described_by_their_placeholder():
    result = parsed("forms/new.prompt.md", FORM)
    assert result.format == "vscode"
    assert result.prompt["name"] == "forms:new"
    assert result.prompt["arguments"][:2] == [
        {"name": "formName", "required": True, "description": "MyForm"},
        {"name": "fields", "required": True, "description": "name, email"}]
    assert rendered("forms/new.prompt.md", FORM, formName="Signup", fields="a, b") == [
        ("user", "Create a form named Signup with a, b.\n"
                 "Then test Signup; ${selection} and ${file} stay as they are.")]


def test_a_shells_input_variable_in_a_vscode_prompt_is_text_not_an_input():
    # (bash's ${input:-$NAME} and ${input:0:2} were required inputs named '-' and '0': never given, so
    # the prompt could not be got at all)
    text = "Run:\n```bash\nNAME=${input:-$NAME}\nHEAD=${input:0:2}\n```\nfor ${input:who}\n"
    assert [a["name"] for a in parsed("r.prompt.md", text).prompt["arguments"]] == ["who", "arguments"]
    assert rendered("r.prompt.md", text, who="me") == [
        ("user", "Run:\n```bash\nNAME=${input:-$NAME}\nHEAD=${input:0:2}\n```\nfor me")]


def test_a_vscode_prompt_with_inputs_also_takes_what_is_typed_described_by_its_hint():
    # VS Code sends what is typed after the name beside the inputs: /create-pr --draft
    text = "---\nargument-hint: '[--draft] [title]'\n---\nOpen a PR into ${input:branch:main}.\n"
    assert parsed("create-pr.prompt.md", text).prompt["arguments"] == [
        {"name": "branch", "required": True, "description": "main"},
        {"name": "arguments", "description": "Everything after the prompt's name, as typed ([--draft] [title])",
         "append": "\n\n"}]
    assert rendered("create-pr.prompt.md", text, branch="dev", arguments="--draft") == [
        ("user", "Open a PR into dev.\n\n--draft")]
    assert rendered("create-pr.prompt.md", text, branch="dev") == [("user", "Open a PR into dev.")]
    # (an input named "arguments" is that input)
    assert [a["name"] for a in parsed("p.prompt.md", "Say ${input:arguments}\n").prompt["arguments"]] == [
        "arguments"]


def test_a_vscode_prompt_without_inputs_takes_what_is_typed_after_its_name():
    # VS Code: "you can add extra information in the chat input field" (/security-review src/)
    text = "---\ndescription: Review for security\n---\nReview the code for security issues.\n"
    assert [a["name"] for a in parsed("security.prompt.md", text).prompt["arguments"]] == ["arguments"]
    assert rendered("security.prompt.md", text, arguments="src/auth.py") == [
        ("user", "Review the code for security issues.\n\nsrc/auth.py")]
    assert rendered("security.prompt.md", text) == [("user", "Review the code for security issues.")]


def test_vscode_name_key_names_the_prompt():
    assert parsed("p.prompt.md", "---\nname: explain\n---\nExplain.\n").prompt["name"] == "explain"


# --- Gemini CLI commands --------------------------------------------------------------------

needs_tomllib = pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is 3.11+")


@needs_tomllib
def test_gemini_toml_args_and_literal_shell_and_file_injection():
    text = ('description = "Generates a commit message"\n'
            'prompt = """\nWrite a commit message for {{args}}.\n!{git diff --staged}\n@{docs/style.md}\n"""\n')
    result = parsed("git/commit.toml", text)
    assert result.format == "gemini"
    assert result.prompt["arguments"] == [{"name": "args",
                                           "description": "Everything after the command, as typed"}]
    assert rendered("git/commit.toml", text, args="the fix") == [
        ("user", "Write a commit message for the fix.\n!{git diff --staged}\n@{docs/style.md}")]


@needs_tomllib
@pytest.mark.parametrize("text, expected", [
    ('description = "x"\n', [(1, None, "prompt", "missing required key 'prompt' (the command's text)")]),
    ('description = "x"\nprompts = "y"\n', [  # (a near miss, named where it is: it was told at line 1)
        (2, None, "prompts", "missing required key 'prompt' (the command's text, not 'prompts')")]),
    ('prompt = 3\n', [(1, None, "prompt", "expected a string, got the number 3")]),
    ('# the text\n\nprompt = [3]\n', [(3, None, "prompt", "expected a string, got a list")]),
    ('prompt = "x\n', [(1, 12, "", "invalid TOML: Illegal character '\\n'")]),
    ('prompt = "  "\n', [(1, None, "prompt", "empty: write the command's text")]),
    # (tomllib keeps every prefix of a dotted key: 40,000 parts took 6 GB)
    ('prompt = "x"\n' + ".".join(["a"] * 8000) + " = 1\n", [(1, None, "", "dotted keys (a.b.c) too long "
                                                               "to read: write the prompt's keys whole")]),
    # (tomllib recurses: 500 nested arrays ended the server with a traceback)
    ('prompt = "x"\na = ' + "[" * 5000 + "]" * 5000 + "\n", [(1, None, "", "invalid TOML: nested too deeply to read")]),
    # (past int()'s 4,300 digits, a ValueError from inside tomllib ended loading with a traceback)
    ('prompt = "x"\nn = ' + "1" * 4301 + "\n", [(1, None, "", "invalid TOML: an integer too long to read")]),
    ('prompt = "x"\nn = ' + "1_" * 4400 + "1\n", [(1, None, "", "invalid TOML: an integer too long to read")]),
])
def test_gemini_problems(text, expected):
    assert problems("g.toml", text) == expected


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="tomllib exists here")
def test_toml_without_tomllib_is_a_clear_problem():
    assert problems("g.toml", 'prompt = "x"\n') == [
        (1, None, "", "TOML prompt files need tomllib (Python 3.11 or later, and not python3-minimal): "
                      "run tinymcp with a fuller Python, or write this prompt as Markdown")]


# --- names ----------------------------------------------------------------------------------

@pytest.mark.parametrize("relpath, name, expected", [
    ("review.md", None, "review"),
    ("a/b/c.md", None, "a:b:c"),
    ("a/x.prompt.md", None, "a:x"),
    ("a/x.PROMPT.MD", None, "a:x"),
    ("g/commit.toml", None, "g:commit"),
    ("a/x.md", "named", "a:named"),
])
def test_prompt_names(relpath, name, expected):
    assert promptfiles.prompt_name(relpath, name) == expected


def test_a_role_marker_inside_a_code_fence_is_text():
    # Bug: a file that shows a marker in a fenced block (how to write one) was cut there,
    # and an unknown role shown so was an error
    text = ("Write a prompt file like this one:\n\n```markdown\nHello.\n<!-- role: assistant -->\n"
            "Hi.\n<!-- role: system -->\n```\n\n~~~~\n<!-- role: assistant -->\n~~~\n"
            "still fenced\n~~~~~\n<!-- role: assistant -->\nDone.\n")
    assert rendered("doc.md", text) == [
        ("user", "Write a prompt file like this one:\n\n```markdown\nHello.\n<!-- role: assistant -->"
                 "\nHi.\n<!-- role: system -->\n```\n\n~~~~\n<!-- role: assistant -->\n~~~\n"
                 "still fenced\n~~~~~"),
        ("assistant", "Done.")]


def test_in_a_code_fence_braces_naming_no_declared_argument_are_code_kept_as_text():
    # Bug: a command showing Svelte's args={{ label: 'Click' }}, or a workflow's
    # ${{ needs.build.outputs.hashes }}, in a fenced block was left out as template logic
    text = ("---\narguments:\n  - name: topic\n---\nOn {{topic}}:\n\n```svelte\n<p>{{ msg }}</p>\n"
            "<Story args={{ label: 'Click' }} />\nrun: ${{ a.b }} {{#if x}} {{ }} {{topic}}\n```\nEnd {{\n")
    result = promptfiles.parse("f.md", text)
    assert result.problems == [(12, 5, "", "'{{' opens no placeholder: write {{name}}, or \\{{ for literal braces")]
    text = text.replace("End {{", "End")
    assert rendered("f.md", text, topic="T") == [("user", text[text.index("On "):].replace("{{topic}}", "T").strip())]
    assert promptfiles.parse("f.md", text).warnings == [(8, "'{{' naming no declared argument in a fenced code "
                                                            "block is code: kept as text")]


@pytest.mark.parametrize("fence", ["    ```", "``` a`b", "`` x"])
def test_what_opens_no_code_fence_leaves_markers_as_markers(fence):
    # (indented four spaces: an indented code block's line; a backtick in a backtick
    # fence's info: inline code; two backticks: too few)
    text = "%s\nA\n<!-- role: assistant -->\nB\n" % fence
    assert rendered("f.md", text) == [("user", "%s\nA" % fence), ("assistant", "B")]


def test_an_unclosed_code_fence_runs_to_the_end_of_the_file():
    text = "A\n```\n<!-- role: assistant -->\nB\n"
    assert rendered("f.md", text) == [("user", "A\n```\n<!-- role: assistant -->\nB")]


# --- Agent Skills ---------------------------------------------------------------------------

SKILL = """\
---
name: pdf-tools
description: Work with PDF files. Use when the user mentions PDFs.
license: Apache-2.0
compatibility: Needs poppler
allowed-tools: Read Bash(pdftotext:*)
metadata:
  author: someone
argument-hint: [file] [pages]
---
# PDF tools

Extract pages $1 of $0; see references/guide.md.
"""


def test_a_skill_is_one_prompt_named_after_it_with_claude_code_arguments():
    result = parsed("pdf-tools/SKILL.md", SKILL)
    assert result.format == "skill" and result.warnings == []
    assert result.prompt["name"] == "pdf-tools"
    assert result.prompt["description"] == "Work with PDF files. Use when the user mentions PDFs."
    assert [a["name"] for a in result.prompt["arguments"]] == ["file", "pages"]  # (by position)
    assert rendered("pdf-tools/SKILL.md", SKILL, file="a.pdf", pages="2-3") == [
        ("user", "# PDF tools\n\nExtract pages 2-3 of a.pdf; see references/guide.md.")]


@pytest.mark.parametrize("given, description", [
    ("42", "42"), ("true", "true"), ("1.5", "1.5"), ("", "Check the build"), ("~", "Check the build"),
    ("[a, b]", "Check the build"), ('""', "Check the build"), ("'  Tidy  '", "Tidy")])
def test_a_description_is_read_as_claude_code_coerces_it(given, description):
    # (a number or true was refused, the file left out; null, a list or "" left out or served
    # empty, where Claude Code's coerceDescriptionToString gives "42", or none: the first line)
    for path in ("c.md", "check/SKILL.md"):
        text = "---\nallowed-tools: Bash\ndescription: %s\n---\nCheck the build\n" % given
        assert parsed(path, text).prompt["description"] == description


def test_a_skill_in_a_plugins_folder_is_namespaced_by_the_folders_above_it():
    assert parsed("plugin/skills/pdf-tools/SKILL.md", SKILL).prompt["name"] == "plugin:skills:pdf-tools"
    no_name = SKILL.replace("name: pdf-tools\n", "")
    assert parsed("x/pdf/SKILL.md", no_name).prompt["name"] == "x:pdf"  # (its folder's name)


@pytest.mark.parametrize("name, warning", [
    ("PDF_Tools", "breaks the Agent Skills rules"), ("-pdf", "breaks the Agent Skills rules"),
    ("pdf--tools", "breaks the Agent Skills rules"), ("a" * 65, "breaks the Agent Skills rules"),
    ("pdf-", "breaks the Agent Skills rules"), ("pdf", "is not its folder's name 'pdf-tools'")])
def test_a_skill_name_that_breaks_the_formats_rules_is_its_folders_with_a_warning(name, warning):
    # (as Claude Code names a skill: plugin-dev's "Hook Development" was served as
    # plugins:plugin-dev:Hook Development, a name no slash command can take)
    result = parsed("pdf-tools/SKILL.md", SKILL.replace("name: pdf-tools", "name: " + name))
    assert result.prompt["name"] == (name if name == "pdf" else "pdf-tools")  # (a valid name: as written)
    [(line, message)] = result.warnings
    assert line == 2 and warning in message
    if name != "pdf":  # (no folder to name it: as written)
        assert parsed("SKILL.md", SKILL.replace("name: pdf-tools", "name: " + name)).prompt["name"] == name


def test_a_skill_with_broken_front_matter_is_a_problem():
    assert problems("pdf-tools/SKILL.md", SKILL.replace("description: Work", "description:\n  [Work"))


def test_front_matter_yaml_refuses_is_read_again_as_claude_code_reads_it_and_told():
    # (Claude Code's frontmatterParser quotes each top-level value holding ': ' or one of
    # {}[]*&#!|>%@` and reads again: "description: Use when: ..." and "allowed-tools: *" skills were
    # left out); the line YAML refused is told, with what is wrong in it
    text = SKILL.replace("Use when", "Use when: the user asks, or").replace("name: pdf-tools", "name: pdf-tools\nk: *")
    result = parsed("pdf-tools/SKILL.md", text)
    assert result.prompt["description"] == "Work with PDF files. Use when: the user asks, or the user mentions PDFs."
    told = "read as quoted text, as Claude Code reads front matter that YAML refuses"
    # (YAML's error where it is that line's; not where another's: the line 2 of a hint named where
    # a description's ': ' was told; nor allowed-tools' "Bash(pdftotext:*)": the same text)
    assert result.warnings == [(3, told + " (aliases are not supported (quote the value))"), (4, told)]
    # (nor Claude Code's own examples' hint; a list another line had YAML read is told: now text)
    text = "---\nargument-hint: [a] [b]\narguments: [a, b]\nmodel: x\n---\n$a $b\n"
    [(line, message)] = parsed("x.md", text).warnings
    assert line == 3 and parsed("x.md", text).prompt["arguments"][0]["name"] == "arguments"
    # (one it does not quote, nested or going on over more lines: the error as written)
    for front, line in (("a: b\nmetadata:\n  c: d: e", 4), ("description: Use when: x\n  more", 2)):
        [(at, column, path, message)] = problems("x/SKILL.md", "---\n%s\n---\nBody\n" % front)
        assert (at, message) == (line, "front matter: ': ' inside a value (quote the value)")


def test_a_skill_without_a_description_takes_its_first_line_as_claude_code_does():
    text = SKILL.replace("description: Work with PDF files. Use when the user mentions PDFs.\n", "")
    prompt = parsed("pdf-tools/SKILL.md", text).prompt
    assert prompt["description"] == "PDF tools"  # (its body opens with "# PDF tools")


def test_host_defaults_for_a_missing_description_and_an_input_named_with_a_hint():
    # Claude Code shows a command's first line; Gemini CLI says "Custom command from <file>"
    assert parsed("c.md", "\n\n  Fix issue $1 now.\nMore\n").prompt["description"] == "Fix issue $1 now."
    # (37 real commands open with a heading: its text is shown, not "# ")
    assert parsed("c.md", "## Fix issue $1\nMore\n").prompt["description"] == "Fix issue $1"
    assert parsed("c.md", "#1 fix $1\n").prompt["description"] == "#1 fix $1"
    if sys.version_info >= (3, 11):  # (tomllib)
        assert parsed("g/commit.toml", 'prompt = "Commit {{args}}"\n').prompt["description"] == \
            "Custom command from commit.toml"
        assert parsed("g/commit.toml", 'description = ""\nprompt = "Commit"\n').prompt["description"] == \
            "Custom command from commit.toml"  # (Gemini CLI's FileCommandLoader: an empty one too)
    # awesome-copilot writes ${input:Timebox|1 week}: a name a client can show, then a hint
    result = parsed("plan.prompt.md", "Plan for ${input:Timebox|1 week} in ${input:team:Which team} ${input:x=y}\n")
    assert result.prompt["arguments"][:3] == [{"name": "Timebox", "required": True, "description": "1 week"},
                                              {"name": "team", "required": True, "description": "Which team"},
                                              {"name": "x", "required": True, "description": "y"}]


def test_an_argument_in_front_matter_may_carry_choices():
    text = "---\narguments:\n  - name: tone\n    choices: [calm, curt]\n    default: calm\n---\nSay it {{tone}}\n"
    assert parsed("t.md", text).prompt["arguments"] == [
        {"name": "tone", "choices": ["calm", "curt"], "default": "calm"}]
    assert rendered("t.md", text) == [("user", "Say it calm")]


@pytest.mark.parametrize("host, names", [(None, ["arguments"]), ("codex", ["arg2", "arg5"])])
def test_amounts_past_a_gap_in_the_positions_are_text_where_the_host_leaves_them(host, names):
    # (98 real skills and commands declared arg50, arg200 and arg125 from "($50 + $200) / 2 = $125";
    # Claude Code leaves a position not given as written; Codex reads $5 then 0, and makes it nothing)
    text = "---\nargument-hint: <analysis to review>\n---\nAverage ($50 + $200) / 2.\n"
    assert [a["name"] for a in parsed("s.md", text, host).prompt["arguments"]] == names
    if host is None:
        assert rendered("s.md", text, arguments="Q3") == [
            ("user", "Average ($50 + $200) / 2.\n\nARGUMENTS: Q3")]
    named = "---\nargument-hint: [a] [b] [c]\n---\nUse $1 and $3, not $9.\n"  # (named by the hint: kept)
    assert [a["name"] for a in parsed("s.md", named, host).prompt["arguments"]][:2] == ["a", "c"]
    if host is None:  # ($ARGUMENTS[5] wherever it comes, and each amount as it is written)
        both = "---\nmodel: x\n---\nCosts $5 or $ARGUMENTS[5]\n"
        assert rendered("s.md", both, arg6="7") == [("user", "Costs 7 or 7")]
        assert rendered("s.md", "Fix $1. Pay $05 then $5.\n", arg1="X") == [("user", "Fix X. Pay $05 then $5.")]


def test_an_amount_with_cents_or_thousands_is_text_not_a_position():
    # (a skill's "$0.01 per call and $1,500 a month" declared arg1 and arg2 before `arguments`: a
    # client filling them in turn gave the typed words to the prices; a `$1,` or `$1.` ending a
    # sentence is still a position)
    text = "---\ndescription: d\n---\nCosts $0.01 per call and $1,500 a month. $ARGUMENTS\n"
    assert [a["name"] for a in parsed("s.md", text).prompt["arguments"]] == ["arguments"]
    assert rendered("s.md", text, arguments="Go") == [("user", "Costs $0.01 per call and $1,500 a month. Go")]
    assert [a["name"] for a in parsed("s.md", "Fix $1, then $2.\n").prompt["arguments"]] == ["arg1", "arg2"]
    # (and a backslash before one is taken off, as Claude Code takes it off before any `$N`)
    assert rendered("s.md", "Costs \\$1.50, not \\$50: $1\n", arg1="X") == [("user", "Costs $1.50, not $50: X")]
