"""Where things are in the repository this package builds the site of.

``docsite`` is private to the repository (installed in editable mode by ``scripts/bootstrap``),
so the repository is found from this file.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
RECIPES = REPO / "recipes"
DOCS = REPO / "docs"
SRC = REPO / "src"
MKDOCS_YML = REPO / "mkdocs.yml"
CACHE = REPO / ".cache"
REQUIREMENTS = REPO / "scripts" / "requirements"
