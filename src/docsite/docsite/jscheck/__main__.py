"""``python -m docsite.jscheck [PROGRAM ...]``: type-check the JavaScript (every program by
default)."""

import sys

from docsite.jscheck import main

raise SystemExit(main(sys.argv[1:]))
