"""Serve prompts whose ``render`` callables misbehave, through ``tinymcp.serve``.

Used by tests/test_e2e.py (run with ``conftest.server_env()``: the package under test is
on PYTHONPATH and named by TINYMCP_PACKAGE, ``tinymcp`` or a vendored copy's module path):

- ``noisy``: writes to stdout every way it can (``print()``, ``os.write(1, ...)``, a
  child process inheriting fd 1), then returns normally.
- ``broken``: raises; the exception text must reach stderr only.
- ``exit``, ``interrupt``, ``generator_exit``: raise ``SystemExit(3)``, ``KeyboardInterrupt``
  and ``GeneratorExit``; ``exit_complete``: a ``complete`` callable that raises
  ``SystemExit(3)``. Each fails its request only.
"""

import importlib
import os
import subprocess
import sys

tinymcp = importlib.import_module(os.environ.get("TINYMCP_PACKAGE") or "tinymcp")


def noisy(args):
    # no flush: a buffered print must not surface on the wire later either (e.g. at exit)
    print("PRINTED-BY-RENDER", args["word"])
    sys.stdout.write("SYS-STDOUT-WRITE-BY-RENDER\n")
    os.write(1, b"OS-WRITE-BY-RENDER\n")
    subprocess.run([sys.executable, "-c", "print('CHILD-PROCESS-OUTPUT')"], check=True)
    return "noisy says " + args["word"]


def broken(args):
    raise RuntimeError("render exploded: secret-detail-42")


def raising(exc):
    def render(*args):
        raise exc
    return render


CONFIG = {
    "server": {"name": "render-e2e"},
    "prompts": [
        {"name": "noisy", "arguments": [{"name": "word", "required": True}], "render": noisy},
        {"name": "broken", "render": broken},
        {"name": "exit", "render": raising(SystemExit(3))},
        {"name": "interrupt", "render": raising(KeyboardInterrupt())},
        {"name": "generator_exit", "render": raising(GeneratorExit())},
        {"name": "exit_complete", "arguments": [{"name": "a", "complete": raising(SystemExit(3))}],
         "messages": [{"role": "user", "text": "{a}"}]},
    ],
}

if __name__ == "__main__":
    sys.exit(tinymcp.serve(CONFIG))
