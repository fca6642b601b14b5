"""``python3 -m tinymcp``: see ``tinymcp.cli``."""

import os
import sys


def _valid_std_fds():
    """Started with ``0<&-``, ``1>&-`` or ``2>&-``, the process has a free fd 0, 1 or 2 that
    the next file opened would take (the config file, the socket, the protocol stream):
    each one closed is made ``/dev/null`` first, and ``sys.stdin/stdout/stderr`` with it."""
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            setattr(sys, name, open(fd, mode, closefd=False))
            setattr(sys, "__%s__" % name, getattr(sys, name))


if __name__ == "__main__":
    import gc
    gc.disable()  # (until the prompts are loaded: cli.main says why)
    _valid_std_fds()
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
