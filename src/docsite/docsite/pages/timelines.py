"""Every recipe's tested run drawn as a timeline (inline SVG), for its page.

The drawing is the Try-it widget's own module, ``docs/assets/tryit/timeline.mjs``, run under
Node by ``timelines.mjs`` beside this file: one Node process draws every recipe, and its
answer is kept in the cache under the hash of what it read (the module, the script and every
job), so a build whose transcripts did not change starts no Node at all (the last
:data:`KEEP` drawings are kept).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any

from docsite.paths import CACHE, DOCS
from tryit.recipe import Recipe

#: The drawing module, shared with the page.
MODULE = DOCS / "assets" / "tryit" / "timeline.mjs"
SCRIPT = MODULE.parents[3] / "src" / "docsite" / "docsite" / "pages" / "timelines.mjs"
FOLDER = CACHE / "timelines"
KEEP = 8  #: drawings kept (the latest ones: an edit loop goes back and forth)


@dataclass(frozen=True)
class Timeline:
    """A recipe's tested run, drawn: the SVG markup and its polling window (seconds), if
    known."""

    svg: str
    window: float | None

    def html(self) -> str:
        """The figure the page shows (the widget redraws it live; ``data-window`` is the
        tested code's window, which an edit of a hedron page keeps). It scrolls sideways on
        a narrow screen, so it takes the keyboard's focus and has a name."""
        window = "" if self.window is None else f' data-window="{self.window:g}"'
        return (
            f'<div class="tryit-timeline" tabindex="0" role="group"'
            f' aria-label="Timeline of the run"{window}>{self.svg}</div>'
        )


def job(recipe: Recipe) -> dict[str, Any]:
    """What the drawing needs of a recipe: its transcript; whether a page sends its requests
    (then its POSTs are the reader's clicks); its window (a page's ``[demo] window``, or the
    client code, whose ``timeout=`` the module reads)."""
    lines = recipe.transcript_path.read_text(encoding="utf-8").splitlines()
    page = recipe.driver == "page"
    client = recipe.folder / "client.py"
    code = client.read_text(encoding="utf-8") if not page and client.is_file() else None
    return {
        "name": recipe.name,
        "lines": lines,
        "page": page,
        "window": recipe.demo.window if page else None,
        "code": code,
    }


def draw(recipes: list[Recipe]) -> dict[str, Timeline]:
    """Each recorded recipe's timeline, by name (from the cache when nothing changed).

    Raises:
        RuntimeError: Node is missing or the drawing failed (its message says why).
    """
    return render([job(r) for r in recipes if r.transcript_path.is_file()])


def render(jobs: list[dict[str, Any]]) -> dict[str, Timeline]:
    """Draw ``jobs`` (as :func:`job` makes them), by name (from the cache when nothing
    changed).

    Raises:
        RuntimeError: Node is missing or the drawing failed (its message says why).
    """
    if not jobs:
        return {}
    payload = json.dumps(jobs, sort_keys=True)
    digest = hashlib.sha256()
    for part in (MODULE.read_bytes(), SCRIPT.read_bytes(), payload.encode()):
        digest.update(hashlib.sha256(part).digest())
    kept = FOLDER / f"{digest.hexdigest()}.json"
    if kept.is_file():
        drawn = json.loads(kept.read_text(encoding="utf-8"))
    else:
        node = shutil.which("node")
        if node is None:
            raise RuntimeError("Node.js is needed to draw the recipes' timelines")
        done = subprocess.run(
            [node, str(SCRIPT), str(MODULE)],
            input=payload,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"the recipes' timelines were not drawn:\n{done.stderr}")
        drawn = json.loads(done.stdout)
        FOLDER.mkdir(parents=True, exist_ok=True)
        for old in sorted(FOLDER.glob("*.json"), key=lambda p: p.stat().st_mtime)[:-KEEP]:
            old.unlink(missing_ok=True)
        staging = kept.with_suffix(f".{os.getpid()}.new")
        staging.write_text(done.stdout, encoding="utf-8")
        staging.replace(kept)
    return {name: Timeline(d["svg"], d["window"]) for name, d in drawn.items()}
