"""``python3 -m tinymcp``: see ``tinymcp.cli``."""

import sys


def _valid_std_fds():
    """Started with ``0<&-``, ``1>&-`` or ``2>&-``, the process has a free fd 0, 1 or 2 that
    the next file opened would take (the config file, the socket, the protocol stream):
    each one closed is made ``/dev/null`` first, and ``sys.stdin/stdout/stderr`` with it."""
    import os
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        setattr(sys, name, open(fd, mode, closefd=False))
        setattr(sys, "__%s__" % name, getattr(sys, name))


def _main_of_this_folder():
    """``cli.main`` when this file is run by its path (``python3 path/to/tinymcp/__main__.py``:
    no ``-m``, so none of runpy's imports, some 4 to 5 ms on CPython and 20 to 35 ms on PyPy): the
    folder is imported as the package it is, under its own name, from its parent."""
    import os
    folder = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == folder:
        del sys.path[0]  # (its modules are not top-level ones)
    sys.path.insert(0, os.path.dirname(folder))
    return __import__(os.path.basename(folder) + ".cli", fromlist=["main"]).main


if __name__ == "__main__":
    # Before any other module of the package loads: what start-up makes (the modules, then
    # the prompts) lives as long as the server, and a collection while it is made re-scans
    # it all (~0.7 ms at 100 prompts, most of it one collection of the older generation
    # under runpy's imports); cli._ready_to_serve() freezes it all and turns collection
    # back on. (The package's __init__ imports nothing, so -m gets here first.)
    import gc
    gc.disable()
    _valid_std_fds()
    if __package__:
        from .cli import main
    else:
        main = _main_of_this_folder()
    sys.exit(main())
