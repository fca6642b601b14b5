"""Serve a Unix socket (argv[1]) whose ``slow`` prompt's ``render`` blocks until a line
can be read from the FIFO at argv[2]: a test holds it mid-run for as long as it likes.

Used by tests/test_unix.py (run with ``conftest.server_env()``; TINYMCP_PACKAGE names
the package under test).
"""

import importlib
import os
import sys

tinymcp = importlib.import_module(os.environ.get("TINYMCP_PACKAGE") or "tinymcp")
unix = importlib.import_module((os.environ.get("TINYMCP_PACKAGE") or "tinymcp") + ".socket.unix")


def slow(arguments):
    tinymcp.progress(1)
    with open(sys.argv[2]) as fifo:  # (blocks until the test opens it for writing)
        return "released: " + fifo.readline().strip()


sys.exit(unix.serve_unix(tinymcp.Server({"prompts": [{"name": "slow", "render": slow}]}), sys.argv[1]))
