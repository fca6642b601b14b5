"""The command line: --check, --version, --help, options, usage errors and exit codes (the server as a subprocess)."""

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import PACKAGE, PACKAGE_DIR, initialize, line, req, server_command, server_env
from transport_helpers import DEFAULT_PROMPTS, EOF, run


def _version():
    with open(os.path.join(str(PACKAGE_DIR), "__init__.py")) as f:
        return re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)


# --- --version, --help -----------------------------------------------------------------------

def test_version_prints_name_and_version_and_exits_0():
    rc, out, err = run(["--version"])
    assert (rc, out, err) == (0, "tinymcp %s\n" % _version(), "")


def test_help_names_the_module_it_was_started_as():
    rc, out, err = run(["--help"])
    assert (rc, err) == (0, "")
    first, second = out.splitlines()[:2]
    prog = "python3 -m %s" % PACKAGE  # tinymcp, or sometool._vendor.tinymcp for a vendored copy
    assert first.startswith("usage: %s [--config FILE.json]" % prog)
    assert second.startswith(" " * len("usage: %s " % prog) + "[--list [--json] | --render NAME")
    assert "without it, a built-in default prompt set" in out


@pytest.mark.parametrize("args", [["--list"], ["--render", "p0"]])
def test_a_reader_that_stops_early_ends_a_printout_quietly(tmp_path, args):
    # (python3 -m tinymcp --list | head -1 printed a BrokenPipeError traceback)
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"prompts": [  # (each printout more than a pipe's 64 KiB)
        {"name": "p%d" % i, "description": "x" * 200, "messages": [{"role": "user", "text": "y" * 200}] * (
            1000 if i == 0 else 1)} for i in range(400)]}))
    proc = subprocess.Popen(server_command("--config", path, *args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=server_env())
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=30) == 1 and first
    assert err == ""


@pytest.mark.parametrize("args", [["--list"], ["--render", "s"]])
def test_a_printout_shows_what_stdout_cannot_encode_escaped(tmp_path, args):
    # Bug: a lone surrogate in a title, description or text (JSON's "\ud800") ended
    # --list and --render with a UnicodeEncodeError traceback
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"prompts": [{"name": "s", "title": "t\ud800", "description": "d\udfff",
                                            "messages": [{"role": "user", "text": "x\ud800y"}]}]}))
    rc, out, err = run(["--config", str(path)] + args)
    assert (rc, err) == (0, "")
    assert out == ("s  (t\\ud800)\n    from %s (json)\n    d\\udfff\n" % path if args == ["--list"]
                   else "x\\ud800y\n")


@pytest.mark.parametrize("limits, args", [({"max_depth": 2}, ["--list"]), ({"max_line_bytes": 64}, ["--list"]),
                                          ({"max_line_bytes": 200}, ["--render", "p", "--arg", "a=" + "x" * 300])])
def test_a_preview_the_configs_limits_refuse_says_so_without_a_traceback(tmp_path, limits, args):
    # Bug: a config whose limits (valid: --check said ok) refused the preview's own request unread
    # ended --list and --render in "RuntimeError: no answer to initialize"
    path = tmp_path / "tight.json"
    path.write_text(json.dumps({"limits": limits, "prompts": [{"name": "p", "arguments": [{"name": "a"}],
                                                               "messages": [{"role": "user", "text": "{a}"}]}]}))
    rc, out, err = run(["--config", str(path)] + args)
    assert (rc, out) == (1, "") and "Traceback" not in err
    assert re.fullmatch(r"tinymcp: limits: the preview's (initialize|prompts/get) refused: Invalid Request: .*"
                        r"\((max_depth|max_line_bytes)\)\n", err), err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("args", [["--list"], ["--version"], ["--check"]])
def test_a_printout_to_a_full_stdout_says_so_without_a_traceback(args):
    with open("/dev/full", "w") as full:
        proc = subprocess.run(server_command(*args), stdout=full, stderr=subprocess.PIPE, env=server_env(),
                              timeout=30)
    assert (proc.returncode, proc.stderr.decode()) == (1, "tinymcp: stdout: [Errno 28] No space left on device\n")


def test_list_shows_every_page_of_prompts(tmp_path):
    path = tmp_path / "paged.json"
    path.write_text(json.dumps({"page_size": 1, "prompts": [
        {"name": name, "messages": [{"role": "user", "text": "x"}]} for name in "abc"]}))
    rc, out, err = run(["--config", str(path), "--list", "--json"])
    assert (rc, err) == (0, "")
    assert [p["name"] for p in json.loads(out)] == ["a", "b", "c"]


# --- --check, and an invalid config --------------------------------------------------------

@pytest.mark.needs("files")
@pytest.mark.parametrize("args", [["--check"], []])
def test_a_file_name_that_would_drive_the_terminal_is_told_escaped(tmp_path, args):
    # (a file named "a<ESC>[31mRED.md" turned the terminal red: --check and the leniency
    # warning printed its name as it is)
    (tmp_path / "a\x1b[31m\u202eRED.md").write_text("Hi\n")
    (tmp_path / "good.md").write_text("ok\n")
    rc, out, err = run(["--prompts", str(tmp_path)] + args)
    assert rc == (1 if args else 0) and "\x1b" not in err and "\u202e" not in err
    assert "a\\x1b[31m\\u202eRED.md:1: name: expected a printable name" in err

@pytest.mark.needs("files")
@pytest.mark.parametrize("args", [["--check"], [], ["--list"]])
def test_a_file_name_with_a_line_break_cannot_fake_a_line_of_its_own(tmp_path, args):
    # Bug: a file named "x<LF>tinymcp: error: ..." told its name on two lines, the second
    # one read as a line of the log (or, under --list, as a prompt of its own)
    (tmp_path / "x\ntinymcp: info: fine.md").write_text("---\nname: %s\n---\nHi\n" % ("ok" if args == ["--list"] else "3"))
    rc, out, err = run(["--prompts", str(tmp_path)] + args)
    assert rc == (0 if args == ["--list"] else 1 if args else 0)
    lines = (out if args == ["--list"] else err).splitlines()
    assert [line for line in lines if "fine.md" in line] and not [line for line in lines if line.startswith("tinymcp: info")]


@pytest.mark.parametrize("args", [["--check"], ["--check", "--config"], pytest.param(["--socket"],
                                                                               marks=pytest.mark.needs("socket"))])
def test_a_config_or_socket_path_that_would_drive_the_terminal_is_told_escaped(tmp_path, args):
    # (the --check line, the heading of a config's problems and a refused socket path told it as it is:
    # an ESC drove the terminal, a line break faked a line of its own)
    path = tmp_path / "x\x1b[31m\nfake: ok.json"
    path.write_text(json.dumps({"prompts": []} if args == ["--check"] else {"prompts": [1, 2]}))
    rc, out, err = run(args + [str(path)] if args != ["--check"] else ["--check", "--config", str(path)])
    assert rc == (0 if args == ["--check"] else 1) and "\x1b" not in out + err
    assert not [line for line in (out + err).splitlines() if line.startswith("fake")]


@pytest.mark.parametrize("args", [["--check"], pytest.param(["--connect", "/nonexistent/tinymcp.sock"],
                                                             marks=pytest.mark.needs("socket"))])
def test_the_cycle_collector_paused_at_start_is_back_on_after_the_load(args):
    # (python -m tinymcp starts with it off; left off, a long-running server or bridge
    # would never free a reference cycle)
    code = ("import gc, sys; gc.disable(); from %s import cli; "
            "rc = cli.main(%r, gc_paused=True); print(rc, gc.isenabled())" % (PACKAGE, args))
    out = subprocess.run([sys.executable, "-c", code], env=server_env(), capture_output=True,
                         text=True, timeout=60).stdout
    assert out.split()[-2:] == ["0" if args == ["--check"] else "1", "True"]


def test_check_without_config_accepts_the_default_prompts():
    rc, out, err = run(["--check"])
    assert rc == 0, err
    assert "ok" in out and "4 prompts" in out


def test_check_on_a_valid_config_file_exits_0(tmp_path):
    path = tmp_path / "good.json"
    path.write_text(json.dumps({
        "server": {"name": "e2e", "version": "1.2.3"},
        "prompts": [{"name": "greet", "arguments": [{"name": "who", "required": True}],
                     "messages": [{"role": "user", "text": "Hello {who}"}]}],
    }))
    rc, out, err = run(["--check", "--config", str(path)])
    assert rc == 0, err
    assert out == "%s: ok, 1 prompt\n" % path
    assert err == ""


def test_check_on_an_invalid_config_exits_1_listing_every_problem_with_its_path(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"prompts": [
        {"name": "greet", "messages": [{"role": "user", "text": "hi"}]},
        {"name": "greet", "messages": [{"role": "user", "text": "hello"}]},
        {"name": "other", "arguments": [{"name": 3}],
         "messages": [{"role": "user", "text": "x"}]},
    ]}))
    rc, out, err = run(["--check", "--config", str(path)])
    assert rc == 1
    assert out == ""
    assert str(path) in err
    assert "prompts[1].name: duplicate prompt name 'greet'" in err
    assert "prompts[2].arguments[0].name: expected a string" in err


def test_check_reports_a_duplicate_of_a_prompt_that_itself_has_a_problem(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"prompts": [
        {"name": "greet", "arguments": [{"name": 3}],
         "messages": [{"role": "user", "text": "hi"}]},
        {"name": "greet", "messages": [{"role": "user", "text": "hello"}]},
    ]}))
    rc, out, err = run(["--check", "--config", str(path)])
    assert rc == 1
    assert "prompts[0].arguments[0].name" in err
    assert "prompts[1].name" in err


@pytest.mark.needs("files")
def test_check_on_a_config_nested_too_deeply_to_parse_is_a_config_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"prompts": [], "x": ' + "[" * 100000 + "]" * 100000 + "}")
    rc, out, err = run(["--check", "--config", str(path)])
    assert (rc, out) == (1, "")
    assert err == "tinymcp: %s:1:521: nested too deeply to parse (more than 500 levels of [ and { " \
                  "by here)\n" % path


@pytest.mark.needs("files")
def test_check_on_a_file_that_is_not_json_exits_1_naming_the_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"prompts": [')
    rc, out, err = run(["--check", "--config", str(path)])
    assert (rc, out) == (1, "")
    assert err == "tinymcp: %s:1:14: the file ends before the '[' opened at line 1, column 13 is " \
                  "closed: ']}' is missing\n" % path


def test_missing_config_file_exits_1_naming_the_file(tmp_path):
    path = tmp_path / "nope.json"
    rc, out, err = run(["--check", "--config", str(path)])
    assert rc == 1
    assert str(path) in err
    assert "Traceback" not in err


def test_invalid_config_also_refuses_to_serve_with_exit_1(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"prompts": [{"name": ""}]}))
    rc, out, err = run(["--config", str(path)], stdin=line(initialize()))
    assert rc == 1
    assert out == ""
    assert "prompts[0].name" in err


# --- options and usage errors ---------------------------------------------------------------

def test_unknown_argument_exits_2_with_usage_on_stderr():
    rc, out, err = run(["--bogus"])
    assert rc == 2
    assert out == ""
    assert "--bogus" in err
    assert "usage:" in err


@pytest.mark.parametrize("args", [["--config", "a.json", "--config", "b.json"], ["--page-size", "2", "--page-size=3"]])
def test_an_option_given_twice_is_a_usage_error(args):
    rc, out, err = run(args)
    assert (rc, out) == (2, "")
    assert "%s given twice" % args[0] in err


@pytest.mark.parametrize("args, message", [
    pytest.param(["--socket", "/tmp/x", "--allow-uid", "bob"], "--allow-uid needs numeric uids",
                 marks=pytest.mark.needs("socket")),  # (read by socket/: a copy without it says so)
    pytest.param(["--socket", "/tmp/x", "--allow-uid", "1,,2"], "--allow-uid needs numeric uids",
                 marks=pytest.mark.needs("socket")),
    pytest.param(["--socket", "/tmp/x", "--allow-uid", "-1"], "--allow-uid needs numeric uids",
                 marks=pytest.mark.needs("socket")),
    (["--allow-uid", "1000"], "--allow-uid needs --socket PATH"),
    (["--max-clients", "2"], "--max-clients needs --socket PATH"),
    (["--socket", "/tmp/x", "--max-clients", "0"], "--max-clients must be 1 or more"),
    (["--socket", "/tmp/x", "--max-clients", "many"], "--max-clients needs a whole number"),
    (["--socket"], "--socket needs a socket path"),
])
def test_bad_socket_options_are_usage_errors_exit_2(args, message):
    rc, out, err = run(args, stdin=subprocess.DEVNULL)
    assert rc == 2
    assert err.startswith("tinymcp: " + message), err


def test_watch_needs_a_config_file_usage_error_2(world):
    proc = world.server("--watch")
    rc, err, out = proc.finish(None)
    assert rc == 2
    assert err.startswith("tinymcp: --watch needs --config FILE or --prompts DIR\n")


@pytest.mark.needs("socket")
def test_allow_uid_takes_commas_and_repeats(monkeypatch):
    from tinymcp.cli import parse_args
    from tinymcp.errors import UsageError
    from tinymcp.socket import unix
    served = []
    monkeypatch.setattr(unix, "serve_unix", lambda server, path, **options: served.append(options))
    for argv, uids in ((["--allow-uid", "1000, 1001", "--allow-uid=7"], {1000, 1001, 7}), ([], set())):
        unix.serve_options(parse_args(["--socket", "/tmp/x"] + argv), None, None)
        assert served.pop()["allow_uids"] == uids
    with pytest.raises(UsageError, match="--allow-uid needs numeric uids"):
        unix.serve_options(parse_args(["--socket", "/tmp/x", "--allow-uid", "10,me"]), None, None)


def test_page_size_option_paginates_the_default_prompts(world):
    server = world.stdio("--page-size", "2")
    server.initialize()
    first = server.call(req(2, "prompts/list"))["result"]
    assert len(first["prompts"]) == 2
    cursor = first["nextCursor"]
    assert isinstance(cursor, str) and cursor

    second = server.call(req(3, "prompts/list", {"cursor": cursor}))["result"]
    assert len(second["prompts"]) == 2
    assert "nextCursor" not in second
    names = [p["name"] for p in first["prompts"] + second["prompts"]]
    assert set(names) == DEFAULT_PROMPTS and len(names) == 4

    rc, err, rest = server.finish(EOF)
    assert (rc, rest) == (0, b""), err


# --- at a terminal --------------------------------------------------------------------------

def test_at_a_terminal_it_says_what_it_is_on_stderr_only(world):
    import pty
    try:
        master, slave = pty.openpty()
    except OSError as exc:  # a sandbox without /dev/pts
        pytest.skip("no pseudo-terminal here: %s" % exc)
    proc = world.server(stdin=slave)
    os.close(slave)
    try:
        line_ = proc.stderr_line()
        assert line_.startswith("tinymcp: serving MCP on stdio") and "Ctrl-D" in line_
    finally:
        os.write(master, b"\x04")  # Ctrl-D: end of input at the terminal
        rc, _, out = proc.finish(None)
        os.close(master)
    assert rc == 0 and out == b""


# --- the collector at start-up ---------------------------------------------------------------

#: records whether the collector was on as each module of the package was imported, then runs
#: ``python3 -m PACKAGE ARGV...`` as the interpreter's -m does (runpy, the package first)


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGHUP"), reason="no SIGHUP")
def test_a_sighup_once_serving_has_ended_ends_nothing():
    # (the loop gives SIGHUP back as it closes: one racing a SIGTERM's exit ended the
    # process by SIGHUP, 15 times in 40; the command line ignores it outside serving)
    code = ("import runpy, signal, sys\n"
            "sys.argv = [%r, '--version']\n"
            "try:\n    runpy.run_module(%r, run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "print(signal.getsignal(signal.SIGHUP) == signal.SIG_IGN)\n" % (PACKAGE, PACKAGE))
    out = subprocess.run([sys.executable, "-c", code], env=server_env(), capture_output=True, text=True)
    assert out.stdout.split()[-1] == "True", out.stderr


@pytest.mark.needs("socket")
def test_version_and_help_go_with_connect():
    # (they say what this is, and reach no server: not "an other option")
    rc, out, err = run(["--connect", "nowhere.sock", "--version"])
    assert (rc, out, err) == (0, "tinymcp %s\n" % _version(), "")


def test_a_configs_prompts_as_tools_holds_without_the_option(tmp_path):
    # (no --prompts-as-tools given is no "off": the config's own true stands)
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"prompts_as_tools": True, "prompts": [
        {"name": "p", "messages": [{"role": "user", "text": "hi"}]}]}))
    rc, out, err = run(["--config", str(path)], stdin=line(initialize()) + line(
        {"jsonrpc": "2.0", "method": "notifications/initialized"}) + line(req(2, "tools/list")))
    assert (rc, err) == (0, "")
    replies = [json.loads(x) for x in out.splitlines()]
    assert "tools" in replies[0]["result"]["capabilities"]
    assert replies[1]["result"]["tools"]
