"""Run a documentation snippet file (``docs/<page>/<snippet>.py``, which its page includes byte
for byte) as a script: its globals once it has run. The one place the tests load a file by its
path; a recipe's files are loaded by the recipe model (``tryit.recipe.Recipe.load``)."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any


def run_snippet(path: Path) -> dict[str, Any]:
    """Run ``path`` as ``__main__``-less module code; return its globals."""
    return runpy.run_path(str(path))
