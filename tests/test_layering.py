"""The package's shape: sans-I/O core, dependency direction, vendorability, import cost."""

import ast
import importlib
import json
import subprocess
import sys

import pytest

from conftest import INITIALIZED, PACKAGE, PACKAGE_DIR, initialize, line, req, server_env

#: The package under test: the repo's tinymcp/, or a vendored copy (see conftest).
PKG = PACKAGE_DIR
CORE = ["errors", "revisions", "validate", "jsonrpc", "template", "uri", "content", "models", "limits", "inbox",
        "prompts", "config", "call", "state", "methods", "outbox", "server", "session", "defaults",
        "yamlish", "promptfiles", "jsonfile"]
TRANSPORTS = ["loop", "pump", "workers", "stdio", "unix", "bridge", "reload", "promptdirs", "preview", "cli",
              "__main__"]
FORBIDDEN_IN_CORE = {"os", "sys", "socket", "selectors", "signal", "time", "io", "threading", "asyncio",
                     "gc"}


def imports(module):
    """(absolute top-level names, relative module names) imported anywhere in a module."""
    tree = ast.parse((PKG / (module + ".py")).read_text(encoding="utf-8"))
    absolute, relative = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            absolute.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if node.module:
                    relative.add(node.module.split(".")[0])
                else:
                    relative.update(a.name for a in node.names)
            else:
                absolute.add(node.module.split(".")[0])
    return absolute, relative


def test_every_module_is_classified():
    found = {p.stem for p in PKG.glob("*.py")} - {"__init__"}
    assert found == set(CORE) | set(TRANSPORTS)


@pytest.mark.parametrize("module", CORE)
def test_core_touches_no_io_clock_or_signals(module):
    absolute, _ = imports(module)
    assert not absolute & FORBIDDEN_IN_CORE


@pytest.mark.parametrize("module", CORE)
def test_core_never_imports_transports(module):
    _, relative = imports(module)
    assert not relative & set(TRANSPORTS)


def _definitions(module):
    tree = ast.parse((PKG / (module + ".py")).read_text(encoding="utf-8"))
    return [node for node in ast.walk(tree) if isinstance(node, (ast.ClassDef, ast.FunctionDef))]


@pytest.mark.parametrize("module", CORE + TRANSPORTS)
def test_no_class_over_300_lines_and_no_function_over_60(module):
    too_long = ["%s (%d lines)" % (node.name, node.end_lineno - node.lineno + 1)
                for node in _definitions(module)
                if node.end_lineno - node.lineno + 1 > (300 if isinstance(node, ast.ClassDef) else 60)]
    assert too_long == []


@pytest.mark.parametrize("module", [m for m in CORE + TRANSPORTS if m != "revisions"])
def test_only_the_revision_table_names_a_protocol_version(module):
    # "does this revision have X" is asked of revisions.py; nobody else compares or
    # orders version strings (docstrings and comments may cite revisions)
    import re
    tree = ast.parse((PKG / (module + ".py")).read_text(encoding="utf-8"))
    versions = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
                and isinstance(node.value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", node.value)]
    assert versions == []


def test_every_exception_the_package_defines_is_a_tinymcp_error():
    import importlib
    root = importlib.import_module(PACKAGE + ".errors").TinyMCPError
    found = []
    for module in CORE + TRANSPORTS:
        if module == "__main__":
            continue
        mod = importlib.import_module(PACKAGE + "." + module)
        found += [obj for obj in vars(mod).values() if isinstance(obj, type)
                  and issubclass(obj, BaseException) and obj.__module__ == mod.__name__]
    assert len(found) >= 10
    assert [e.__name__ for e in found if not issubclass(e, root)] == []


def test_loop_knows_nothing_of_mcp():
    _, relative = imports("loop")
    assert relative == set()


@pytest.mark.parametrize("module", CORE + TRANSPORTS + ["__init__"])
def test_only_stdlib_and_relative_imports(module):
    absolute, _ = imports(module)
    assert "tinymcp" not in absolute
    stdlib = getattr(sys, "stdlib_module_names", None)
    if stdlib is None:
        pytest.skip("sys.stdlib_module_names needs Python 3.10")
    assert absolute <= set(stdlib) | {"__future__"}


def test_version_is_a_literal():
    tree = ast.parse((PKG / "__init__.py").read_text(encoding="utf-8"))
    [value] = [n.value for n in tree.body if isinstance(n, ast.Assign)
               and any(getattr(t, "id", None) == "__version__" for t in n.targets)]
    assert isinstance(value, ast.Constant) and isinstance(value.value, str)


#: the only modules outside the package that ``import tinymcp`` may load: C modules that load
#: nothing else (``json`` would bring ``re`` and ``enum``; ``collections`` its five imports)
IMPORT_MAY_LOAD = {"_json", "_collections"}


def test_import_is_cheap_and_quiet():
    # -S: no site, so no .pth file of the interpreter's has loaded anything before the import.
    # The package itself imports nothing (python3 -m runs __main__ first); its whole API,
    # loaded by first use, loads the core without the transports.
    code = ("import sys; before = set(sys.modules); import %s as p; "
            "print(' '.join(sorted(set(sys.modules) - before)))\n"
            "api = [getattr(p, name) for name in p.__all__]; "
            "print(' '.join(sorted(set(sys.modules) - before)))" % PACKAGE)
    out = subprocess.run([sys.executable, "-S", "-c", code], env=server_env(), capture_output=True,
                         text=True, check=True)
    bare, api = [set(line.split()) for line in out.stdout.splitlines()]
    assert out.stderr == ""
    parents = {m for m in bare if PACKAGE.startswith(m + ".")}  # (a vendored copy's parents)
    assert bare == parents | {PACKAGE}
    ours = {m for m in api if m == PACKAGE or m.startswith(PACKAGE + ".")} | parents
    assert {PACKAGE + ".server", PACKAGE + ".session", PACKAGE + ".config"} <= ours
    assert not ours & {PACKAGE + ".stdio", PACKAGE + ".cli"}
    assert api - ours <= IMPORT_MAY_LOAD


def test_a_config_file_is_loaded_and_served_without_json_or_re(tmp_path):
    # (the C accelerator json wraps, used directly; NaN and Infinity in strings are text,
    # not the constants only json's decoder refuses. PyPy has no _json: json serves there)
    pytest.importorskip("_json")
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"prompts": [
        {"name": "a", "arguments": [{"name": "x"}], "messages": [{"role": "user", "text": "hi {x}"}]},
        {"name": "b", "description": "NaN or -Infinity", "messages": [{"role": "assistant", "text": "plain"}]}]}))
    code = ("import sys; from %s.cli import main; main(['--config', sys.argv[1]]); "
            "sys.stderr.write(' '.join(sorted(sys.modules)))" % PACKAGE)
    requests = [initialize(), INITIALIZED, req(2, "prompts/list"),
                req(3, "prompts/get", {"name": "a", "arguments": {"x": "Infinity"}}),
                req(4, "prompts/get", {"name": "b"}), req(5, "prompts/get", {"name": "c"})]
    out = subprocess.run([sys.executable, "-S", "-c", code, str(config)], env=server_env(),
                         input=b"".join(map(line, requests)), capture_output=True, check=True)
    replies = [json.loads(reply) for reply in out.stdout.splitlines()]
    assert [r["id"] for r in replies] == [1, 2, 3, 4, 5]
    assert [p["name"] for p in replies[1]["result"]["prompts"]] == ["a", "b"]
    assert replies[2]["result"]["messages"][0]["content"]["text"] == "hi Infinity"
    assert replies[3]["result"]["description"] == "NaN or -Infinity" and replies[4]["error"]["code"] == -32602
    loaded = set(out.stderr.decode().split())
    assert PACKAGE + ".jsonfile" in loaded and not loaded & {"json", "re", "enum"}


def test_the_public_api_is_the_modules_own_objects():
    # (each name of __all__ loads on first use, from the module that defines it)
    package = importlib.import_module(PACKAGE)
    for name in package.__all__:
        value = getattr(package, name)
        home = getattr(value, "__module__", None)
        assert home is None or home.startswith(PACKAGE), name
        assert name in dir(package)
    assert package.Server is importlib.import_module(PACKAGE + ".server").Server
    assert package.ConfigError is importlib.import_module(PACKAGE + ".errors").ConfigError
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        package.nothing


def test_the_names_type_checkers_see_are_the_names_loaded_at_first_use():
    # (__init__ writes where each public name lives twice: _HOMES for __getattr__, and
    # imports under TYPE_CHECKING for type checkers; they must not drift apart)
    tree = ast.parse((PKG / "__init__.py").read_text(encoding="utf-8"))
    [block] = [n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", None) == "TYPE_CHECKING"]
    seen = {a.name: node.module for node in block.body for a in node.names}
    assert seen == importlib.import_module(PACKAGE)._HOMES


def test_content_blocks_and_uris_are_loaded_by_the_first_prompt_that_has_them_and_not_before():
    # (start-up cost: a config of plain text prompts is served without either module)
    code = ("import sys; from %s import load_config\n"
            "def loaded(): return [m in sys.modules for m in ('%s.content', '%s.uri')]\n"
            "print(loaded())\n"
            "load_config({'prompts': [{'name': 'a', 'messages': [{'role': 'user', 'text': 'hi {x}'}],"
            " 'arguments': [{'name': 'x'}]}]})\n"
            "print(loaded())\n"
            "load_config({'prompts': [{'name': 'b', 'messages': [{'role': 'user', 'content':"
            " {'type': 'text', 'text': 'hi'}}]}]})\n"
            "print(loaded())\n"
            "load_config({'prompts': [{'name': 'c', 'messages': [{'role': 'user', 'content':"
            " {'type': 'resource_link', 'name': 'n', 'uri': 'file:///x'}}]}]})\n"
            "print(loaded())\n" % (PACKAGE, PACKAGE, PACKAGE))
    out = subprocess.run([sys.executable, "-S", "-c", code], env=server_env(), capture_output=True,
                         text=True, check=True)
    assert out.stdout.splitlines() == ["[False, False]", "[False, False]", "[True, False]", "[True, True]"]


def test_text_prompts_are_got_under_every_revision_without_the_content_module():
    # (a get under a revision that reshapes some blocks asks only whether these need it:
    # the first get of a server of text prompts once paid for importing ``content``)
    from conftest import INITIALIZED, META_CAPS, META_VERSION, initialize, line, req
    from tinymcp.revisions import HANDSHAKE_VERSIONS, STATELESS_VERSIONS
    get = {"name": "a", "arguments": {"x": "there"}}
    sessions = [[initialize(version=v), INITIALIZED, req(2, "prompts/get", get), req(3, "prompts/get", get)]
                for v in HANDSHAKE_VERSIONS]
    sessions += [[req(i, "prompts/get", dict(get, _meta={META_VERSION: v, META_CAPS: {}})) for i in (1, 2)]
                 for v in STATELESS_VERSIONS]
    code = ("import sys, json; from %s import Server\n"
            "server = Server({'prompts': [{'name': 'a', 'arguments': [{'name': 'x'}], 'messages': ["
            "{'role': 'user', 'text': 'hi {x}'}, {'role': 'assistant', 'text': 'plain'}]}]})\n"
            "for lines in json.loads(sys.stdin.read()):\n"
            "    out = server.session().receive_data(''.join(lines).encode())\n"
            "    texts = [[m['content']['text'] for m in r['result']['messages']]\n"
            "             for r in map(json.loads, out.splitlines()) if 'messages' in r.get('result', {})]\n"
            "    print(texts, '%s.content' in sys.modules)\n" % (PACKAGE, PACKAGE))
    sent = [[line(m).decode() for m in s] for s in sessions]
    out = subprocess.run([sys.executable, "-S", "-c", code], input=json.dumps(sent),
                         env=server_env(), capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["[['hi there', 'plain'], ['hi there', 'plain']] False"] * len(sessions)
