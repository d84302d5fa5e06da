"""Regenerate everything derived from a recipe, in the right order, and say what changed.

``scripts/recipe sync NAME [NAME ...]`` (``python -m docsite.sync``):

1. the recipe is read and checked (``tryit.recipe``): a wrong ``recipe.toml`` stops here;
2. its transcript is recorded again (``docsite.transcripts``): the demo's run, or for a recipe
   that cannot run in a browser (``[real]``) a real run;
3. the standalone example tree is written again (``docsite.examples.tree``): the example's
   README quotes the transcript, so it comes after it.

The pages and the Try-it demo read the recipe's files as they are: nothing else is derived.
"""

from __future__ import annotations

import sys

from docsite import transcripts
from docsite.examples import tree
from tryit.recipe import load_recipe, recipe_names

USAGE = "usage: scripts/recipe sync NAME [NAME ...]  (or --all)"


def sync(names: list[str]) -> list[str]:
    """Regenerate what derives from ``names``; return one line per file written.

    Raises:
        ValueError: a name is not a recipe, or a recipe cannot be recorded.
    """
    for name in names:
        load_recipe(name)  # the model's checks, before anything is written
    changed = transcripts.record(names)
    changed += [line for line in tree.write_tree(tree.current_tree()) if line]
    return changed


def main(argv: list[str]) -> int:
    """Command line entry point; returns the exit status."""
    if not argv or any(a.startswith("-") and a != "--all" for a in argv):
        print(USAGE, file=sys.stderr)
        return 2
    names = recipe_names() if "--all" in argv else argv
    unknown = sorted(set(names) - set(recipe_names()))
    if unknown:
        print(f"error: no recipe named {unknown}", file=sys.stderr)
        return 2
    try:
        changed = sync(names)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for line in changed:
        print(line)
    print(f"{', '.join(names)}: " + (f"{len(changed)} files changed" if changed else "up to date"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
