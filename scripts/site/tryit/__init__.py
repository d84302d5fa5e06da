"""The "Try it" driver: runs a recipe's real code one step (one request) at a time.

The same driver runs under pytest on CPython (straight to the end, to produce and check the
committed ``transcript.txt``) and inside Pyodide in the site's Web Worker (one step per click).

Example:
    >>> from tryit import run_to_end
    >>> lines = run_to_end("resq-sync-poll")  # doctest: +SKIP
"""

from __future__ import annotations

from tryit._recipes import Recipe, load_recipe, recipe_names, recipes_root
from tryit._stepper import Stepper, StepResult, open_demo, run_blocking, run_to_end

__all__ = [
    "Recipe",
    "StepResult",
    "Stepper",
    "load_recipe",
    "open_demo",
    "recipe_names",
    "recipes_root",
    "run_blocking",
    "run_to_end",
]
