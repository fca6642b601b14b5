"""Serve prompts whose ``render`` callables misbehave, through ``tinymcp.serve``.

Used by tests/test_e2e.py (run with the repo root on PYTHONPATH):

- ``noisy``: writes to stdout every way it can (``print()``, ``os.write(1, ...)``, a
  child process inheriting fd 1), then returns normally.
- ``broken``: raises; the exception text must reach stderr only.
"""

import os
import subprocess
import sys

import tinymcp


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
