"""Check or regenerate the committed recipe transcripts (``recipes/<name>/transcript.txt``).

Runs every recipe's scenario to its end on CPython with the "Try it" driver (the same code the
browser runs) and compares with the committed file.

Usage::

    python scripts/site/transcripts.py            # check all, exit 1 on any difference
    python scripts/site/transcripts.py --update   # rewrite the files that differ
    python scripts/site/transcripts.py NAME ...   # only these recipes
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tryit import load_recipe, recipe_names, run_to_end
from tryit._record import as_text


def main(argv: list[str]) -> int:
    update = "--update" in argv
    names = [a for a in argv if not a.startswith("-")] or recipe_names()
    status = 0
    for name in names:
        recipe = load_recipe(name)
        produced = as_text(run_to_end(name))
        path = recipe.transcript_path
        committed = path.read_text(encoding="utf-8") if path.exists() else ""
        if produced == committed:
            print(f"ok       {name}")
        elif update:
            path.write_text(produced, encoding="utf-8")
            print(f"updated  {name}")
        else:
            status = 1
            print(f"DIFFERS  {name}")
            diff = difflib.unified_diff(
                committed.splitlines(), produced.splitlines(), "committed", "produced", lineterm=""
            )
            print("\n".join(diff))
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
