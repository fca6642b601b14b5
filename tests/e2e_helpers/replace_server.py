"""Serve stdio through the Python API while another thread replaces the prompt set.

Used by tests/test_reload.py (run with ``conftest.server_env()``: the package under test
is on PYTHONPATH and named by TINYMCP_PACKAGE). Calling prompt
``swap`` wakes a worker thread, which first tries an invalid config (it must raise in
that thread and change nothing), then replaces the prompts with ``fresh`` -- from a
thread that is not the loop's, as an embedding application would.
"""

import importlib
import os
import sys
import threading

PACKAGE = os.environ.get("TINYMCP_PACKAGE") or "tinymcp"
tinymcp = importlib.import_module(PACKAGE)
serve_stdio = importlib.import_module(PACKAGE + ".io.stdio").serve_stdio

swap = threading.Event()


def render(arguments):
    swap.set()
    return "swapping"


OLD = {"prompts": [{"name": "swap", "render": render},
                   {"name": "stale", "messages": [{"role": "user", "text": "old"}]}]}
NEW = {"prompts": [{"name": "fresh", "messages": [{"role": "user", "text": "new"}]}]}

server = tinymcp.Server(OLD, list_changed=True)


def worker():
    swap.wait()
    try:
        server.replace_config({"prompts": "not a list"})
    except tinymcp.ConfigError as exc:
        sys.stderr.write("worker: invalid config refused: %s\n" % (exc.problems,))
    server.replace_config(NEW)
    sys.stderr.write("worker: replaced\n")


threading.Thread(target=worker, daemon=True).start()
sys.exit(serve_stdio(server))
