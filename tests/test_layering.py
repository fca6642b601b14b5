"""The package's shape, as its folders say it: a sans-I/O core under thin transports, every
import pointing down a layer, optional parts that nothing below them needs."""

import ast
import importlib
import subprocess
import sys

import pytest

from conftest import PACKAGE, PACKAGE_DIR, server_env

#: each folder and its layer: a module imports only from layers below its own, or from
#: its own folder ("bottom" and "top": the modules beside the folders)
LAYERS = {"bottom": 0, "model": 1, "protocol": 2, "io": 3, "socket": 4, "files": 4, "top": 5}
BOTTOM, TOP = {"errors", "codec", "jsonlite"}, {"__init__", "__main__", "cli", "source", "preview", "watch"}
SANS_IO = ("bottom", "model", "protocol")
IO_MODULES = {"os", "sys", "socket", "selectors", "select", "signal", "time", "io", "threading",
              "asyncio", "gc", "subprocess"}


def modules():
    """``{dotted name within the package: its path}`` of every module of the copy under test."""
    found = {}
    for path in PACKAGE_DIR.rglob("*.py"):
        parts = path.relative_to(PACKAGE_DIR).with_suffix("").parts
        found[".".join(parts)] = path
    return found


def home(name):
    """The folder of a module (``model.prompt`` -> ``model``)."""
    first = name.split(".")[0]
    return "bottom" if first in BOTTOM else "top" if first in TOP else first


def imports(name, path):
    """``(absolute top-level names, package modules)`` that module ``name`` imports anywhere,
    lazily inside functions too."""
    package = name.split(".")[:-1] if not path.name == "__init__.py" else name.split(".")
    absolute, ours = set(), set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            absolute.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if not node.level:
                absolute.add(node.module.split(".")[0])
                continue
            base = package[:len(package) - node.level + 1] if node.level > 1 else package
            target = base + (node.module.split(".") if node.module else [])
            if node.module is None:  # (from . import x: x may be a module)
                ours.update(".".join(target + [a.name]) for a in node.names)
            else:
                ours.add(".".join(target) or "__init__")
    return absolute, {m if m in modules() else m.rpartition(".")[0] or "__init__" for m in ours}


MODULES = modules()


def test_every_module_lives_in_a_layer():
    assert {home(name) for name in MODULES} <= set(LAYERS)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_point_down_a_layer_or_stay_in_the_folder(name):
    _, ours = imports(name, MODULES[name])
    wrong = [m for m in ours if m != "__init__" and home(m) != home(name) and LAYERS[home(m)] >= LAYERS[home(name)]]
    assert wrong == []


@pytest.mark.parametrize("name", sorted(n for n in MODULES if home(n) in SANS_IO))
def test_the_core_touches_no_io_clock_signal_or_thread(name):
    absolute, _ = imports(name, MODULES[name])
    if name == "protocol.state":  # (its threading.local stands in for contextvars where that is missing)
        absolute = absolute - {"threading"}
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    used = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name) and node.value.id == "sys"}
    if used <= {"version_info"} and not any(isinstance(node, ast.ImportFrom) and node.module == "sys"
                                            for node in ast.walk(tree)):  # (which Python this is: no I/O)
        absolute = absolute - {"sys"}
    assert not absolute & IO_MODULES
    # (the package root is imported only for its literal version)
    roots = [a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level
             and node.module is None and node.level == len(name.split(".")) for a in node.names]
    assert set(roots) <= {"__version__", "codec", "jsonlite"}


def test_there_is_no_import_cycle():
    graph = {name: imports(name, path)[1] - {"__init__"} for name, path in MODULES.items()
             if name != "__init__"}
    done, stack = set(), []

    def visit(name):
        if name in stack:
            raise AssertionError("cycle: " + " -> ".join(stack[stack.index(name):] + [name]))
        if name in done:
            return
        stack.append(name)
        for other in graph.get(name, ()):
            visit(other)
        stack.pop()
        done.add(name)

    for name in graph:
        visit(name)


def test_the_loop_knows_nothing_of_mcp():
    assert imports("io.loop", MODULES["io.loop"])[1] <= {"io.selector"}
    assert imports("io.selector", MODULES["io.selector"])[1] == set()


@pytest.mark.parametrize("name", sorted(MODULES))
def test_only_stdlib_and_relative_imports(name):
    absolute, _ = imports(name, MODULES[name])
    assert "tinymcp" not in absolute
    stdlib = getattr(sys, "stdlib_module_names", None)
    if stdlib is None:
        pytest.skip("sys.stdlib_module_names needs Python 3.10")
    assert absolute <= set(stdlib) | {"__future__", "tomllib"}
    assert not [m for m in absolute if m.startswith("_") and m != "__future__"]  # (no private modules)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_function_over_80_lines_and_no_class_over_300(name):
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    too_long = ["%s (%d lines)" % (node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
                if isinstance(node, (ast.ClassDef, ast.FunctionDef))
                and node.end_lineno - node.lineno + 1 > (300 if isinstance(node, ast.ClassDef) else 80)]
    assert too_long == []


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n != "protocol.revisions"))
def test_only_the_revision_table_names_a_protocol_version(name):
    # "does this revision have X" is asked of revisions.py; nobody else compares or orders
    # version strings (docstrings and comments may cite revisions)
    import re
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    assert [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", node.value)] == []


def test_version_is_a_literal():
    tree = ast.parse(MODULES["__init__"].read_text(encoding="utf-8"))
    [value] = [n.value for n in tree.body if isinstance(n, ast.Assign)
               and any(getattr(t, "id", None) == "__version__" for t in n.targets)]
    assert isinstance(value, ast.Constant) and isinstance(value.value, str)


def test_every_exception_the_package_defines_is_a_tinymcp_error():
    root = importlib.import_module(PACKAGE + ".errors").TinyMCPError
    found = []
    for name in MODULES:
        if name in ("__main__", "__init__"):
            continue
        mod = importlib.import_module(PACKAGE + "." + name)
        found += [obj for obj in vars(mod).values() if isinstance(obj, type)
                  and issubclass(obj, BaseException) and obj.__module__ == mod.__name__]
    assert len(found) >= 10
    assert [e.__name__ for e in found if not issubclass(e, root)] == []


def test_import_is_cheap_and_quiet():
    # -S: no site, so no .pth file of the interpreter's has loaded anything before the import
    code = ("import sys; before = set(sys.modules); import %s\n"
            "print(' '.join(sorted(set(sys.modules) - before)))" % PACKAGE)
    out = subprocess.run([sys.executable, "-S", "-c", code], env=server_env(), capture_output=True,
                         text=True, check=True)
    assert out.stderr == ""
    loaded = set(out.stdout.split())
    assert not loaded & {"re", "enum", "base64", "json", "threading", "socket", "selectors"}
    assert not [m for m in loaded if m.startswith((PACKAGE + ".io", PACKAGE + ".socket", PACKAGE + ".files"))]


def test_the_public_api_is_the_modules_own_objects():
    package = importlib.import_module(PACKAGE)
    for name in package.__all__:
        value = getattr(package, name)
        assert getattr(value, "__module__", PACKAGE).startswith(PACKAGE), name
    assert package.Server is importlib.import_module(PACKAGE + ".protocol.session").Server
    assert package.ConfigError is importlib.import_module(PACKAGE + ".errors").ConfigError
