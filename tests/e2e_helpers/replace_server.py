"""Serve stdio through the Python API while another thread replaces the prompt set.

Used by tests/test_reload.py (run with the repo root on PYTHONPATH). Calling prompt
``swap`` wakes a worker thread, which first tries an invalid config (it must raise in
that thread and change nothing), then replaces the prompts with ``fresh`` -- from a
thread that is not the loop's, as an embedding application would.
"""

import sys
import threading

import tinymcp
from tinymcp.stdio import serve_stdio

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
