"""Where things are in the repository this package builds the site of.

``docsite`` is private to the repository (installed in editable mode by ``scripts/bootstrap``),
so the repository is found from this file.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
RECIPES = REPO / "recipes"
DOCS = REPO / "docs"
SRC = REPO / "src"
MKDOCS_YML = REPO / "mkdocs.yml"
#: What builds keep between runs (git-ignored); ``DOCSITE_CACHE`` names another folder.
CACHE = Path(os.environ.get("DOCSITE_CACHE") or REPO / ".cache")
REQUIREMENTS = REPO / "scripts" / "requirements"
