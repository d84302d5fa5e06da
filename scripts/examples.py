#!/usr/bin/env python
"""Regenerate the standalone example tree ``docs/examples/`` from ``recipes/`` (``--check``:
only say what is stale; ``--lock``: re-resolve the hash lock first). See ``docsite.examples``."""

from docsite.examples.tree import main

raise SystemExit(main())
