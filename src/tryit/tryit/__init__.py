"""The "Try it" driver: runs a recipe's real code one step (one request) at a time.

The same driver runs under pytest on CPython and inside Pyodide in the site's Web Worker. It
plays the server (the recipe's app, in-process, on virtual time, recorded as a transcript);
the requests come from the recipe's own client (resq) or from the real htmx in the page's
demo panel (hedron, ``docs/assets/tryit/panel.mjs``).

Example:
    >>> from tryit import run_to_end
    >>> lines = run_to_end("resq-sync-poll")  # doctest: +SKIP
"""

from __future__ import annotations

from tryit._resq_demo import open_demo, run_to_end
from tryit._stepper import Stepper, StepResult, run_blocking
from tryit.recipe import Demo, Recipe, load_recipe, load_recipes, recipe_names, recipes_root

__all__ = [
    "Demo",
    "Recipe",
    "StepResult",
    "Stepper",
    "load_recipe",
    "load_recipes",
    "open_demo",
    "recipe_names",
    "recipes_root",
    "run_blocking",
    "run_to_end",
]
