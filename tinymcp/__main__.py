"""``python3 -m tinymcp``: see ``tinymcp.cli``."""

import os
import sys

if __name__ == "__main__":
    import gc
    gc.disable()  # (until the prompts are loaded: cli.main says why)
    import signal
    if hasattr(signal, "SIGHUP"):  # (outside serving, one racing a SIGTERM's exit ended the
        signal.signal(signal.SIGHUP, signal.SIG_IGN)  # process; serving, it reloads)
    if not __package__:  # (run by its path: the folder is imported as the package it is)
        folder = os.path.dirname(os.path.abspath(__file__))
        if sys.path and os.path.abspath(sys.path[0] or ".") == folder:
            del sys.path[0]  # (its modules are not top-level ones)
        sys.path.insert(0, os.path.dirname(folder))
        __package__ = os.path.basename(folder)
    __import__(__package__ + ".cli")
    sys.exit(sys.modules[__package__ + ".cli"].main(gc_paused=True))
