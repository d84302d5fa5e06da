"""Every recipe, run for real, gives its committed transcript: the demo tells the truth.

Each recipe folder's own files run as a reader would run them: the app under uvicorn on
127.0.0.1 with the real clock and ``local_runner``'s worker threads; hedron pages in headless
Chromium with the htmx the app serves (open the page, do the ``[demo] click``); resq clients
as ``python client.py``. The same recorder as the demo writes the run in the transcript's
format (ids masked, times shown as the recipe's poll slots), and it must equal
``transcript.txt``, which the demo produced (``test_recipes.py``, ``test_panel.py``). So a
demo whose time runs ahead of or behind real time fails here. See ``docsite.replay``.

The recipes run side by side at the start of a busy suite, ahead of the rest of its work (the
replay's Chromium and every process a run starts at a raised priority: ``docsite.replay._loop``).
A machine that still holds a page's timer or a worker back by more than a poll's margin makes a
real run differ without any fault of the demo's, so a recipe whose run differs runs once more,
alone, once the others are done: a demo that disagrees with its code disagrees both times,
and the test then shows both runs. A second run that agrees passes with a warning that names
the first run's difference.
"""

from __future__ import annotations

import difflib
import warnings

import pytest

from docsite.replay._loop import BrowserLoop
from docsite.replay.runs import real_transcripts, replay_bound
from tests._support.selection import wanted_recipes
from tryit import load_recipe, recipe_names
from tryit._record import Recorder

NAMES = recipe_names()  # every recipe folder, new ones included
BOUND = replay_bound([load_recipe(n) for n in NAMES])

# the module's fixture runs them all, and a differing one again: its bound, not the suite's
# per-test default
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.timeout(2 * BOUND + 60),
]

Run = Recorder | BaseException


def _committed(name: str) -> list[str]:
    return load_recipe(name).transcript_path.read_text(encoding="utf-8").splitlines()


def _differs(run: Run, name: str) -> bool:
    return isinstance(run, BaseException) or run.lines != _committed(name)


def _explain(run: Recorder, name: str) -> list[str]:
    """The unified diff of a run against the transcript, and the run's unrounded times."""
    diff = difflib.unified_diff(
        _committed(name), run.lines, "transcript.txt", "real run", lineterm=""
    )
    return [*diff, "", "the real run's requests, with their unrounded times:", *run.timeline()]


@pytest.fixture(scope="module")
def replays(request: pytest.FixtureRequest) -> dict[str, tuple[Run, Run | None]]:
    """The real runs of every recipe (or of those ``--recipe`` names), side by side (about the
    longest recipe's window in all); for a recipe whose run differed, its run again, alone."""
    names = wanted_recipes(request.config)
    with BrowserLoop() as loop:
        first = real_transcripts(names, loop)
        again = {n: real_transcripts([n], loop)[n] for n in names if _differs(first[n], n)}
    return {n: (first[n], again.get(n)) for n in names}


@pytest.mark.parametrize("name", NAMES)
def test_a_real_run_gives_the_committed_transcript(
    replays: dict[str, tuple[Run, Run | None]], name: str
) -> None:
    first, again = replays[name]
    run = first if again is None else again
    if isinstance(run, BaseException):
        raise run
    earlier = [] if again is None else ["", "the first run, side by side with the others:"]
    if again is not None:
        earlier += [repr(first)] if isinstance(first, BaseException) else _explain(first, name)
    explain = [*_explain(run, name), *earlier]
    explain += [
        "",
        f"the demo and a real run disagree: the demo's run (scripts/recipe sync {name}",
        "records it) must be what the code does for real",
    ]
    assert run.lines == _committed(name), "\n".join(explain)
    if again is not None:
        warnings.warn(
            f"{name}: the first real run differed, the second, alone, agreed:\n"
            + "\n".join(earlier[2:]),
            stacklevel=1,
        )
