"""Portability and distribution: a vendored (renamed) copy, the single-file zipapp, the
installed wheel, and importing on a platform without the POSIX-only modules.

Every server here is a real subprocess answering initialize, prompts/list and prompts/get
over its pipes. Waits are for process exit only (``GUARD`` is a failure guard).
"""

import importlib
import json
import os
import pkgutil
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import (PACKAGE, PACKAGE_DIR, ROOT, VENDORED, VENDORED_NAME, line, make_vendored_copy,
                      server_env)

GUARD = 60.0
BUILD_PYZ = ROOT / "scripts" / "build-pyz"
PROMPTS = {"server": {"name": "portable", "version": "9.9"}, "prompts": [
    {"name": "greet", "description": "Say hello",
     "arguments": [{"name": "who", "required": True}],
     "messages": [{"role": "user", "text": "Hello {who}"}]},
    {"name": "bye", "messages": [{"role": "user", "text": "Goodbye"}]},
]}

not_vendored = pytest.mark.skipif(
    VENDORED, reason="builds from the repository's tinymcp/; the normal run covers it")


CONVERSATION = b"".join(line(m) for m in [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "portability", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "prompts/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "prompts/get",
     "params": {"name": "greet", "arguments": {"who": "portable world"}}},
])


def converse(cmd, cwd, env=None):
    """Send CONVERSATION then EOF; return the three replies (initialize, list, get)."""
    proc = subprocess.run(cmd, cwd=str(cwd), env=env, input=CONVERSATION, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=GUARD)
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    replies = [json.loads(raw) for raw in proc.stdout.splitlines()]
    assert [r.get("id") for r in replies] == [1, 2, 3], (replies, err)
    for reply in replies:
        assert "result" in reply, reply
    return replies


def assert_serves_prompts(replies):
    init, listed, got = replies
    assert init["result"]["serverInfo"]["name"] == "portable"
    assert sorted(p["name"] for p in listed["result"]["prompts"]) == ["bye", "greet"]
    assert got["result"]["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Hello portable world"}}]


def clean_env(**extra):
    """This environment without PYTHONPATH (a host's spawn knows nothing of this repo)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(extra)
    return env


@pytest.fixture
def config_file(tmp_path):
    path = tmp_path / "prompts.json"
    path.write_text(json.dumps(PROMPTS), encoding="utf-8")
    return path


# --- vendoring -------------------------------------------------------------------------

def test_the_suite_imports_the_copy_it_names_and_every_submodule_once():
    import tinymcp
    assert tinymcp.__name__ == PACKAGE
    assert Path(tinymcp.__file__).resolve().parent == PACKAGE_DIR
    for info in pkgutil.walk_packages(tinymcp.__path__, "tinymcp."):
        module = importlib.import_module(info.name)
        assert module.__name__ == PACKAGE + info.name[len("tinymcp"):]
        assert PACKAGE_DIR in Path(module.__file__).resolve().parents
    stray = [name for name, module in list(sys.modules.items())
             if name.startswith(("tinymcp.", PACKAGE + "."))
             and getattr(module, "__file__", None)
             and PACKAGE_DIR not in Path(module.__file__).resolve().parents]
    assert stray == []


# Blocks importing the top-level name ``tinymcp`` in a vendored server process: a copy that
# reached for "tinymcp" (an absolute import, importlib with a hard-coded name) would fail.
NO_TOP_LEVEL_TINYMCP = r"""
import runpy, sys
class NoTinymcp:
    def find_spec(self, name, path=None, target=None):
        if name == "tinymcp" or name.startswith("tinymcp."):
            raise ModuleNotFoundError("blocked: %s (the vendored copy must not need it)" % name)
        return None
sys.meta_path.insert(0, NoTinymcp())
sys.argv[0] = "-m"
runpy.run_module(sys.argv.pop(1), run_name="__main__", alter_sys=True)
"""


def test_a_renamed_copy_serves_as_python_m_sometool_vendor_tinymcp(tmp_path, config_file):
    root = make_vendored_copy(tmp_path / "app", src=PACKAGE_DIR)
    env = clean_env(PYTHONPATH=str(root))
    replies = converse([sys.executable, "-m", VENDORED_NAME, "--config", str(config_file)],
                       cwd=tmp_path, env=env)
    assert_serves_prompts(replies)
    replies = converse([sys.executable, "-c", NO_TOP_LEVEL_TINYMCP, VENDORED_NAME,
                        "--config", str(config_file)], cwd=tmp_path, env=env)
    assert_serves_prompts(replies)


@pytest.mark.parametrize("leftover", [False, True], ids=["deleted", "pycache-left"])
def test_a_copy_without_its_optional_parts_says_so_for_their_options(tmp_path, leftover):
    # (--socket and --connect ended in a ModuleNotFoundError traceback where socket/ was
    # deleted, or only its __pycache__ was left; load_files() and serve() with prompt_dirs too)
    root = make_vendored_copy(tmp_path / "app", src=PACKAGE_DIR, core_only=True)
    if leftover:
        (root / "sometool" / "_vendor" / "tinymcp" / "socket" / "__pycache__").mkdir(parents=True)
    api = "import %s as t; t.%s" % (VENDORED_NAME, "%s")
    for args, status, says in ((["-m", VENDORED_NAME, "--socket", "s"], 2, "--socket needs the socket/ part"),
                               (["-m", VENDORED_NAME, "--connect", "s"], 2, "--connect needs the socket/ part"),
                               (["-m", VENDORED_NAME, "--prompts", "."], 2, "--prompts needs the files/ part"),
                               (["-c", api % "load_files(None, None, ['.'])"], 1,
                                "ConfigError: prompt_dirs: prompt folders are read by the files/ part"),
                               (["-c", api % "serve({'prompts': [], 'prompt_dirs': ['.']})"], 1,
                                "ConfigError: prompt_dirs: prompt folders are read by the files/ part")):
        done = subprocess.run([sys.executable] + args, cwd=str(tmp_path),
                              env=clean_env(PYTHONPATH=str(root)), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        assert (done.returncode, done.stdout) == (status, "") and says in done.stderr, done.stderr
        assert "ModuleNotFoundError" not in done.stderr and (args[0] == "-c" or "Traceback" not in done.stderr)


def test_main_run_by_its_path_serves_without_runpy_whatever_the_folder_is_called(tmp_path, config_file):
    # python3 path/to/tinymcp/__main__.py: no -m, so none of runpy's imports (it costs
    # PyPy some 25 ms at every start); the folder is imported under its own name
    copy = tmp_path / "tool" / "_vendor" / "prompts_lib"
    shutil.copytree(str(PACKAGE_DIR), str(copy), ignore=shutil.ignore_patterns("__pycache__"))
    for folder in (PACKAGE_DIR, copy):
        main = str(Path(folder) / "__main__.py")
        replies = converse([sys.executable, main, "--config", str(config_file)], cwd=tmp_path,
                           env=clean_env())
        assert_serves_prompts(replies)
        done = subprocess.run([sys.executable, "-X", "importtime", main, "--version"], cwd=str(tmp_path),
                              env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=60)
        assert done.returncode == 0 and done.stdout.startswith("tinymcp ")
        imported = [row.rsplit("|", 1)[-1].strip() for row in done.stderr.splitlines() if "|" in row]
        if sys.implementation.name == "cpython":  # (PyPy has no -X importtime)
            assert "%s.cli" % Path(folder).name in imported and "runpy" not in imported, imported
        done = subprocess.run([sys.executable, main, "--nope"], cwd=str(tmp_path), env=clean_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                              timeout=60)
        assert "Try 'python3 %s --help'" % main in done.stderr


def test_a_renamed_copy_imports_without_anything_named_tinymcp(tmp_path):
    root = make_vendored_copy(tmp_path / "app", src=PACKAGE_DIR)
    code = NO_TOP_LEVEL_TINYMCP.split("sys.argv[0]")[0] + (
        "import importlib, pkgutil\n"
        "pkg = importlib.import_module(%r)\n"
        "for info in pkgutil.iter_modules(pkg.__path__):\n"
        "    importlib.import_module(pkg.__name__ + '.' + info.name)\n"
        "from sometool._vendor.tinymcp import Server, Session, serve, load_config\n"
        "print(pkg.__version__)\n" % VENDORED_NAME)
    proc = subprocess.run([sys.executable, "-c", code], cwd=str(tmp_path),
                          env=clean_env(PYTHONPATH=str(root)), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=GUARD)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    import tinymcp
    assert proc.stdout.decode().strip() == tinymcp.__version__


# --- platforms without the POSIX-only modules ----------------------------------------------

# Makes fcntl, termios, pwd, grp and resource unimportable and removes socket.AF_UNIX,
# as on a platform that has none of them, then imports the package and every submodule.
NO_POSIX_EXTRAS = r"""
import importlib, pkgutil, socket, sys
BLOCKED = {"fcntl", "termios", "pwd", "grp", "resource"}
class Unavailable:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError("No module named %r" % name, name=name)
        return None
for name in [n for n in sys.modules if n.split(".")[0] in BLOCKED]:
    del sys.modules[name]
sys.meta_path.insert(0, Unavailable())
del socket.AF_UNIX
PACKAGE = sys.argv.pop(1)
PLATFORM = sys.argv.pop(1)
WINDOWS_LIKE = PLATFORM == "windows-like"
if PLATFORM == "no-poll":  # (the loop polls with selectors, as on macOS)
    import select
    del select.poll
if WINDOWS_LIKE:  # no SIGHUP, and pipes that cannot be polled
    import signal
    del signal.SIGHUP
package = importlib.import_module(PACKAGE)
for info in pkgutil.walk_packages(package.__path__, PACKAGE + "."):
    importlib.import_module(info.name)
loaded = sorted(n for n in sys.modules if n.split(".")[0] in BLOCKED)
assert loaded == [], loaded
if WINDOWS_LIKE:
    importlib.import_module(PACKAGE + ".io.stdio").CAN_POLL_PIPES = False
cli = importlib.import_module(PACKAGE + ".cli")
sys.exit(cli.main(sys.argv[1:]))
"""


def run_without_posix_extras(args, cwd, stdin=b"", platform="posix"):
    proc = subprocess.run([sys.executable, "-c", NO_POSIX_EXTRAS, PACKAGE, platform] + list(args),
                          cwd=str(cwd), env=server_env(), input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=GUARD)
    return proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace")


@pytest.mark.parametrize("platform", ["posix", "windows-like", "no-poll"])
def test_every_module_imports_and_stdio_serves_without_fcntl_termios_pwd_grp_resource_af_unix(
        tmp_path, config_file, platform):
    # windows-like: also no SIGHUP, and stdio served by the blocking loop (no pipe polling);
    # no-poll: served on the selectors fallback
    rc, out, err = run_without_posix_extras(["--config", str(config_file)], tmp_path,
                                            stdin=CONVERSATION, platform=platform)
    assert rc == 0, err
    assert "Traceback" not in err
    replies = [json.loads(raw) for raw in out.splitlines()]
    assert_serves_prompts(replies)
    # a config file can be reloaded where pipes can be polled; the blocking loop cannot
    # deliver a change, so it never promises one
    assert replies[0]["result"]["capabilities"]["prompts"] == {"listChanged": platform != "windows-like"}



@pytest.mark.parametrize("platform", ["posix", "windows-like"])
def test_watch_where_pipes_cannot_be_polled_serves_and_says_it_never_reloads(tmp_path, config_file, platform):
    rc, out, err = run_without_posix_extras(["--config", str(config_file), "--watch"], tmp_path,
                                            stdin=CONVERSATION, platform=platform)
    assert rc == 0 and "Traceback" not in err, err
    assert_serves_prompts([json.loads(raw) for raw in out.splitlines()])
    said = "--watch: pipes cannot be polled here, so the prompts are never reloaded"
    assert (said in err) == (platform == "windows-like"), err

@pytest.mark.needs("socket")
def test_socket_transport_where_unix_sockets_are_unavailable_says_so_and_exits_1(tmp_path):
    path = tmp_path / "s"
    rc, out, err = run_without_posix_extras(["--socket", str(path)], tmp_path)
    assert "Traceback" not in err, err
    assert rc == 1, err
    assert out == b""
    assert "unix socket" in err.lower(), err
    assert not path.exists()


# --- the zipapp --------------------------------------------------------------------------

def build_pyz(out, *args):
    proc = subprocess.run([sys.executable, str(BUILD_PYZ), "-o", str(out)] + [str(a) for a in args],
                          cwd=str(ROOT), env=clean_env(), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=GUARD)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode("utf-8", "replace")


@not_vendored
def test_zipapp_serves_a_config_file(tmp_path, config_file):
    pyz = tmp_path / "out" / "tinymcp.pyz"
    rc, out, err = build_pyz(pyz)
    assert rc == 0, err
    with zipfile.ZipFile(str(pyz)) as archive:
        names = set(archive.namelist())
    assert {"__main__.py", "tinymcp/__init__.py", "tinymcp/cli.py"} <= names
    assert "tinymcp_embedded_config.json" not in names
    # bytecode beside each module (where zipimport looks), never a __pycache__
    modules = sorted(n for n in names if n.startswith("tinymcp/") and n.endswith(".py"))
    assert sorted(n for n in names if n.endswith(".pyc")) == [m + "c" for m in modules]
    assert not [n for n in names if "__pycache__" in n]
    assert pyz.read_bytes().startswith(b"#!/usr/bin/env python3\n")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(pyz.stat().st_mode) == 0o777 & ~umask  # readable by whoever runs it
    # this Python loads the bytecode (not the source) from the archive
    loaded = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                             "import tinymcp.cli; print(tinymcp.cli.__file__); "
                             "print(tinymcp.cli.main.__code__.co_filename)", str(pyz)],
                            env=clean_env(), stdout=subprocess.PIPE, timeout=GUARD).stdout.decode()
    file_, code_file = loaded.split()
    assert file_.endswith("cli.pyc"), loaded
    # tracebacks name the module inside the archive (not the build's staging copy)
    assert code_file == os.path.join(str(pyz), "tinymcp", "cli.py"), loaded

    # run from elsewhere, with nothing on PYTHONPATH: the one file is the whole program
    assert_serves_prompts(converse([sys.executable, str(pyz), "--config", str(config_file)],
                                   cwd=tmp_path, env=clean_env()))
    version = subprocess.run([sys.executable, str(pyz), "--version"], env=clean_env(),
                             stdout=subprocess.PIPE, timeout=GUARD).stdout.decode()
    import tinymcp
    assert version == "tinymcp %s\n" % tinymcp.__version__
    # its entry point pauses the cycle collector as python3 -m tinymcp does, and has it back on
    # once the prompts are loaded (it was off for the server's whole life)
    entry = ("import gc, runpy, sys; sys.argv = [sys.argv[1], '--check']; "
             "rc = runpy.run_path(sys.argv[0], run_name='entry')['main'](); print(rc, gc.isenabled())")
    checked = subprocess.run([sys.executable, "-c", entry, str(pyz)], env=clean_env(), stdout=subprocess.PIPE,
                             timeout=GUARD).stdout.decode()
    assert checked.split()[-2:] == ["0", "True"], checked


@not_vendored
def test_zipapp_without_bytecode_holds_sources_only_and_serves(tmp_path, config_file):
    pyz = tmp_path / "src.pyz"
    rc, out, err = build_pyz(pyz, "--no-bytecode")
    assert rc == 0, err
    with zipfile.ZipFile(str(pyz)) as archive:
        assert not [n for n in archive.namelist() if n.endswith(".pyc")]
    assert_serves_prompts(converse([sys.executable, str(pyz), "--config", str(config_file)],
                                   cwd=tmp_path, env=clean_env()))


@not_vendored
def test_zipapp_with_an_embedded_config_serves_it_without_any_file(tmp_path, config_file):
    pyz = tmp_path / "embedded.pyz"
    rc, out, err = build_pyz(pyz, "--embed-config", config_file)
    assert rc == 0, err
    with zipfile.ZipFile(str(pyz)) as archive:
        assert json.loads(archive.read("tinymcp_embedded_config.json")) == PROMPTS
    config_file.unlink()  # the archive no longer needs it
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert_serves_prompts(converse([sys.executable, str(pyz)], cwd=elsewhere, env=clean_env()))

    # --config still wins over the embedded one
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"prompts": [
        {"name": "only", "messages": [{"role": "user", "text": "x"}]}]}))
    proc = subprocess.run([sys.executable, str(pyz), "--check", "--config", str(other)],
                          env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=GUARD)
    assert (proc.returncode, proc.stdout.decode()) == (0, "%s: ok, 1 prompt\n" % other)
    proc = subprocess.run([sys.executable, str(pyz), "--check"], env=clean_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=GUARD)
    assert proc.returncode == 0 and "2 prompts" in proc.stdout.decode()
    # its help names the archive and what it serves without --config
    out = subprocess.run([sys.executable, str(pyz), "--help"], env=clean_env(),
                         stdout=subprocess.PIPE, timeout=GUARD).stdout.decode()
    assert out.startswith("usage: python3 %s [--config" % pyz)
    assert "without it, the embedded config." in out


@not_vendored
def test_build_pyz_refuses_to_embed_an_invalid_config(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"prompts": [{"name": "x", "descripton": "typo",
                                            "messages": [{"role": "user", "text": "{nope}"}]}]}))
    pyz = tmp_path / "never.pyz"
    rc, out, err = build_pyz(pyz, "--embed-config", bad)
    assert rc == 1
    assert "prompts[0].descripton" in err
    assert "nothing written" in err
    assert not pyz.exists()
    assert list(tmp_path.iterdir()) == [bad]  # no temporary archive left behind


@not_vendored
def test_an_embedded_config_is_stored_as_tinymcp_read_it(tmp_path):
    # (a byte order mark passed the build's check and then failed the archive at every start)
    cfg = tmp_path / "bom.json"
    cfg.write_bytes(b"\xef\xbb\xbf" + json.dumps({"prompts": [
        {"name": "a", "description": "\ud800 \u00e9", "messages": [{"role": "user", "text": "hi"}]}]}).encode())
    pyz = tmp_path / "bom.pyz"
    rc, out, err = build_pyz(pyz, "--embed-config", cfg)
    assert rc == 0, err
    proc = subprocess.run([sys.executable, str(pyz), "--check"], env=clean_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=GUARD)
    assert (proc.returncode, proc.stdout.decode(), proc.stderr.decode()) == (0, "embedded config: ok, 1 prompt\n", "")


@not_vendored
def test_build_pyz_refuses_to_embed_a_config_that_names_prompt_folders(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "a.md").write_text("Say hi\n")
    cfg = tmp_path / "dirs.json"
    cfg.write_text(json.dumps({"prompts": [], "prompt_dirs": ["p"]}))
    pyz = tmp_path / "never.pyz"
    rc, out, err = build_pyz(pyz, "--embed-config", cfg)
    assert rc == 1 and not pyz.exists() and out == ""  # (no "ok" from --check before the refusal)
    assert "%s: prompt_dirs: an embedded config cannot name prompt folders" % cfg in err, err


# --- the wheel and the console script --------------------------------------------------------

def _has_wheel_backend():
    try:
        from setuptools.command import bdist_wheel  # noqa: F401  (setuptools >= 70.1)
    except ImportError:
        return False
    return True


def _source_copy(tmp_path):
    """What a distribution is built from, copied: no build/ or *.egg-info in the work tree."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        (src / name).write_bytes((ROOT / name).read_bytes())
    shutil.copytree(str(ROOT / "tinymcp"), str(src / "tinymcp"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return src


def test_the_license_is_mit_and_a_copied_package_folder_carries_it():
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License\n\nCopyright (c) 2026 the tinymcp authors\n")
    doc = importlib.import_module(PACKAGE).__doc__
    assert "Copyright (c) 2026 the tinymcp authors. MIT License" in doc


@not_vendored
@pytest.mark.skipif(not _has_wheel_backend(), reason=(
    "needs setuptools >= 70.1 in this environment (scripts/test installs it)"))
def test_sdist_holds_the_license(tmp_path):
    import tarfile
    src = _source_copy(tmp_path)
    out = tmp_path / "sdist"
    proc = subprocess.run([sys.executable, "-c", "import sys, setuptools.build_meta as b; "
                           "print(b.build_sdist(sys.argv[1]))", str(out)],
                          cwd=str(src), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=GUARD)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    name = proc.stdout.decode().split()[-1]
    assert name.startswith("tinymcp_prompts-") and name.endswith(".tar.gz")
    with tarfile.open(str(out / name)) as archive:
        [member] = [m for m in archive.getnames() if m.count("/") == 1 and m.endswith("/LICENSE")]
        assert archive.extractfile(member).read() == (ROOT / "LICENSE").read_bytes()


@not_vendored
@pytest.mark.skipif(not _has_wheel_backend(), reason=(
    "needs setuptools >= 70.1 in this environment (scripts/test installs it): the wheel is "
    "built offline with --no-build-isolation"))
def test_wheel_has_the_license_and_every_module_and_installs_the_tinymcp_command(tmp_path, config_file):
    src = _source_copy(tmp_path)
    dist = tmp_path / "dist"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    proc = subprocess.run(pip + ["wheel", "--no-deps", "--no-build-isolation", "--no-index",
                                 "-q", "-w", str(dist), str(src)],
                          cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=GUARD)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    # the distribution's own name ("tinymcp" on PyPI is an unrelated project); the import
    # name and the command stay tinymcp
    [wheel] = list(dist.glob("tinymcp_prompts-*-py3-none-any.whl"))
    license_text = (ROOT / "LICENSE").read_bytes()
    with zipfile.ZipFile(str(wheel)) as archive:
        names = set(archive.namelist())
        [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        assert "tinymcp = tinymcp.cli:main" in archive.read(entry_points).decode()
        [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = archive.read(metadata).decode()
        assert "\nName: tinymcp-prompts\n" in metadata
        assert "\nClassifier: License :: OSI Approved :: MIT License\n" in metadata
        # (dist-info/LICENSE, or dist-info/licenses/LICENSE from setuptools 77 on)
        [license_name] = [n for n in names if ".dist-info/" in n and n.endswith("/LICENSE")]
        assert archive.read(license_name) == license_text
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tinymcp").rglob("*.py")}
    assert modules <= names

    # a pipx-style install: a fresh venv with only this wheel, then the command on its own
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=GUARD)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    proc = subprocess.run(pip + ["--python", str(python), "install", "--no-deps", "--no-index",
                                 "-q", str(wheel)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=GUARD)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    command = bindir / "tinymcp"
    assert command.exists()
    assert_serves_prompts(converse([str(command), "--config", str(config_file)],
                                   cwd=tmp_path, env=clean_env()))
    out = subprocess.run([str(command), "--help"], env=clean_env(), stdout=subprocess.PIPE,
                         timeout=GUARD).stdout.decode()
    assert out.startswith("usage: tinymcp [--config"), out
