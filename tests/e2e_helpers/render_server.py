"""Serve prompts whose ``render`` callables misbehave, through ``tinymcp.serve``.

Used by tests/test_e2e.py (run with ``conftest.server_env()``: the package under test is
on PYTHONPATH and named by TINYMCP_PACKAGE, ``tinymcp`` or a vendored copy's module path):

- ``noisy``: writes to stdout every way it can (``print()``, ``os.write(1, ...)``, a
  child process inheriting fd 1), then returns normally.
- ``broken``: raises; the exception text must reach stderr only.
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


CONFIG = {
    "server": {"name": "render-e2e"},
    "prompts": [
        {"name": "noisy", "arguments": [{"name": "word", "required": True}], "render": noisy},
        {"name": "broken", "render": broken},
    ],
}

if __name__ == "__main__":
    sys.exit(tinymcp.serve(CONFIG))
