"""Serve stdio with ``tinymcp.serve(Server)`` (no config file): the ``hup`` prompt's
``render`` sends SIGHUP to its own process, as a callable that runs a tool may.

Used by tests/test_e2e.py (TINYMCP_PACKAGE names the package under test).
"""

import importlib
import os
import signal
import sys

tinymcp = importlib.import_module(os.environ.get("TINYMCP_PACKAGE") or "tinymcp")


def hup(arguments):
    os.kill(os.getpid(), signal.SIGHUP)
    return "still here"


sys.exit(tinymcp.serve(tinymcp.Server({"prompts": [{"name": "hup", "render": hup}]})))
