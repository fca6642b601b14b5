"""``python3 -m tinymcp``: see ``tinymcp.cli``."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
