"""Check or regenerate the committed recipe transcripts (``recipes/<name>/transcript.txt``).

Runs every recipe folder as the "Try it" demo runs it: recipes with a client (every resq
recipe) on CPython with the driver the browser's worker runs, the others through the demo
panel (``panel.mjs``, the real htmx) in headless Chromium, answered by the same in-process
server on CPython. With ``--real`` it also runs each recipe for real (uvicorn, real time,
Chromium or ``python client.py``) and compares that too: what
``tests/recipes/test_real_replay.py`` asserts. A recipe with a ``[real]`` table (separate
processes: Redis, workers, a restart) has no demo: its real run is its transcript.

Usage::

    python scripts/transcripts.py            # check all, exit 1 on any difference
    python scripts/transcripts.py --real     # check the real runs as well
    python scripts/transcripts.py NAME ...   # only these recipes

To record a transcript again, run ``scripts/recipe sync NAME`` (:mod:`docsite.sync`): it
writes the transcript with :func:`record`, then the example tree that quotes it.
"""

from __future__ import annotations

import difflib
import sys

from docsite.replay._loop import BrowserLoop
from docsite.replay.runs import demo_transcripts, real_transcripts
from tryit import load_recipe, recipe_names
from tryit._record import Recorder, as_text


def _differs(name: str, what: str, committed: str, produced: str) -> None:
    print(f"DIFFERS  {name} ({what})")
    diff = difflib.unified_diff(
        committed.splitlines(), produced.splitlines(), "committed", what, lineterm=""
    )
    print("\n".join(diff))


def _produce(
    names: list[str], *, real: bool
) -> tuple[dict[str, list[str]], dict[str, Recorder | BaseException]]:
    """The demo's transcripts of ``names`` that run in a browser, and the real runs of the
    others (of all of them with ``real``)."""
    in_browser = [n for n in names if load_recipe(n).in_browser]
    # a recipe that cannot run in a browser ([real]) has only its real run to record
    for_real = names if real else [n for n in names if n not in in_browser]
    with BrowserLoop() as loop:
        produced = demo_transcripts(in_browser, loop)
        replays = real_transcripts(for_real, loop) if for_real else {}
    return produced, replays


def record(names: list[str]) -> list[str]:
    """Record the transcripts of ``names`` again and write those that changed; return one
    ``wrote: recipes/NAME/transcript.txt`` line per file written.

    Raises:
        ValueError: a recipe's real run failed (no transcript to record).
    """
    produced, replays = _produce(names, real=False)
    written = []
    for name in names:
        if name in produced:
            text = as_text(produced[name])
        else:
            replay = replays[name]
            if isinstance(replay, BaseException):
                raise ValueError(f"recipe {name}: its real run failed: {replay!r}") from replay
            text = as_text(replay.lines)
        path = load_recipe(name).transcript_path
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(f"wrote: recipes/{name}/transcript.txt")
    return written


FIX = "scripts/recipe sync {name}"  #: the command that records a transcript again


def main(argv: list[str]) -> int:
    if "--update" in argv:
        print("record transcripts with: scripts/recipe sync NAME (or --all)", file=sys.stderr)
        return 2
    real = "--real" in argv
    names = [a for a in argv if not a.startswith("-")] or recipe_names()
    status = 0
    produced, replays = _produce(names, real=real)
    for name in names:
        path = load_recipe(name).transcript_path
        committed = path.read_text(encoding="utf-8") if path.exists() else ""
        if name in produced:
            text, what = as_text(produced[name]), "demo"
        else:
            replay = replays[name]
            if isinstance(replay, BaseException):
                print(f"FAILED   {name} (real run): {replay!r}")
                status = 1
                continue
            text, what = as_text(replay.lines), "real run"
        if text == committed:
            print(f"ok       {name} ({what})")
        else:
            status = 1
            _differs(name, what, committed, text)
            print(f"to record it again: {FIX.format(name=name)}")
        if name in replays and name in produced:
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
