#!/usr/bin/env python
"""Check or regenerate the recipes' committed transcripts (``--update``, ``--real``, names).
See ``docsite.transcripts``."""

import sys

from docsite.transcripts import main

raise SystemExit(main(sys.argv[1:]))
