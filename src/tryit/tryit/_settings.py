"""A recipe's ``[demo]`` settings checked against its code, where the two can disagree.

``[demo] interval`` says how far apart the recipe's polls are: a transcript shows each
request's time as its poll slot, a multiple of it. The code says it too: a resq client's
``delay=``, a hedron page's ``poll_interval_ms=`` (``TaskFlow``) or ``interval_ms=``
(``Poll``), or an ``hx-trigger`` of ``every 2s``. When one changes without the other, the
transcript shows false times (a request made at 3 s recorded at ``t=2s``); this check names
both values, the file and line, and the fix.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from tryit.recipe import Recipe

# keyword argument -> how many of it make a second
_KEYWORDS = {"delay": 1.0, "poll_interval_ms": 1000.0, "interval_ms": 1000.0}
_EVERY = re.compile(r"^\s*every\s+(\d+(?:\.\d+)?)(ms|s)\b")


@dataclass(frozen=True)
class Stated:
    """One place in the code that states the poll interval."""

    line: int
    what: str  #: as written: ``delay=2``, ``poll_interval_ms=2000``, ``"every 2s"``
    seconds: float


def _number(node: ast.expr) -> float | None:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return float(node.value)
    return None


def stated_intervals(source: str) -> list[Stated]:
    """Every poll interval ``source`` states as a literal (a computed one is not read)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.keyword) and node.arg in _KEYWORDS:
            value = _number(node.value)
            if value is not None:
                seconds = value / _KEYWORDS[node.arg]
                found.append(Stated(node.value.lineno, f"{node.arg}={value:g}", seconds))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = _EVERY.match(node.value)
            if match:
                amount, unit = float(match.group(1)), match.group(2)
                seconds = amount / 1000 if unit == "ms" else amount
                found.append(Stated(node.lineno, f'"{match.group(0).strip()}"', seconds))
    return sorted(found, key=lambda s: s.line)


def check_demo_settings(recipe: Recipe) -> None:
    """Refuse a ``[demo] interval`` that the code the demo runs contradicts.

    The code is the file that sends the polls: ``client.py`` for a recipe driven by its
    client, the app for a page (its ``Poll`` regions).

    Raises:
        ValueError: naming the file and line, both values, and the fix.
    """
    filename = "client.py" if recipe.driver == "client" else recipe.app_file
    path = recipe.folder / filename
    source = recipe.sources.get(filename) or path.read_text(encoding="utf-8")
    interval = recipe.demo.interval
    for stated in stated_intervals(source):
        if abs(stated.seconds - interval) > 1e-9:
            raise ValueError(
                f"recipes/{recipe.name}/{filename}:{stated.line}: {stated.what} polls every "
                f"{stated.seconds:g} s, but recipes/{recipe.name}/recipe.toml has [demo] "
                f"interval = {interval:g}: transcript times would be rounded to the wrong "
                f"slot. Set [demo] interval = {stated.seconds:g} (or change the code back), "
                f"then run scripts/recipe sync {recipe.name}"
            )
