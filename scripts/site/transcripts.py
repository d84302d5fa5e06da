"""Check or regenerate the committed recipe transcripts (``recipes/<name>/transcript.txt``).

Runs every recipe folder as the "Try it" demo runs it: resq recipes on CPython with the driver
the browser's worker runs, hedron recipes through the demo panel (``panel.mjs``, the real
htmx) in headless Chromium, answered by the same in-process server on CPython. With
``--real`` it also runs each recipe for real (uvicorn, real time, Chromium or
``python client.py``) and compares that too: what ``tests/recipes/test_real_replay.py``
asserts.

Usage::

    python scripts/site/transcripts.py            # check all, exit 1 on any difference
    python scripts/site/transcripts.py --update   # rewrite the files that differ
    python scripts/site/transcripts.py --real     # check the real runs as well
    python scripts/site/transcripts.py NAME ...   # only these recipes
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests._support, for replay
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tryit, replay

from replay._loop import BrowserLoop
from replay.runs import demo_transcripts, real_transcripts
from tryit import load_recipe, recipe_names
from tryit._record import as_text


def _differs(name: str, what: str, committed: str, produced: str) -> None:
    print(f"DIFFERS  {name} ({what})")
    diff = difflib.unified_diff(
        committed.splitlines(), produced.splitlines(), "committed", what, lineterm=""
    )
    print("\n".join(diff))


def main(argv: list[str]) -> int:
    update, real = "--update" in argv, "--real" in argv
    names = [a for a in argv if not a.startswith("-")] or recipe_names()
    status = 0
    with BrowserLoop() as loop:
        produced = demo_transcripts(names, loop)
        replays = real_transcripts(names, loop) if real else {}
    for name in names:
        path = load_recipe(name).transcript_path
        committed = path.read_text(encoding="utf-8") if path.exists() else ""
        text = as_text(produced[name])
        if text == committed:
            print(f"ok       {name}")
        elif update:
            path.write_text(text, encoding="utf-8")
            print(f"updated  {name}")
            committed = text
        else:
            status = 1
            _differs(name, "demo", committed, text)
        if name in replays:
            replay = replays[name]
            if isinstance(replay, BaseException):
                status = 1
                print(f"FAILED   {name} (real run): {replay!r}")
            elif as_text(replay.lines) != committed:
                status = 1
                _differs(name, "real run", committed, as_text(replay.lines))
                print("unrounded times of the real run:", *replay.timeline(), sep="\n  ")
            else:
                print(f"ok       {name} (real run)")
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
