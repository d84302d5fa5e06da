"""Every recipe, run for real, gives its committed transcript: the demo tells the truth.

Each recipe folder's own files run as a reader would run them: the app under uvicorn on
127.0.0.1 with the real clock and ``local_runner``'s worker threads; hedron pages in headless
Chromium with the htmx the app serves (open the page, do the ``[demo] click``); resq clients
as ``python client.py``. The same recorder as the demo writes the run in the transcript's
format (ids masked, times shown as the recipe's poll slots), and it must equal
``transcript.txt``, which the demo produced (``test_recipes.py``, ``test_panel.py``). So a
demo whose time runs ahead of or behind real time fails here. See ``docsite.replay``.
"""

from __future__ import annotations

import difflib

import pytest

from docsite.replay._loop import BrowserLoop
from docsite.replay.runs import real_transcripts, replay_bound
from tests._support.selection import wanted_recipes
from tryit import load_recipe, recipe_names
from tryit._record import Recorder

NAMES = recipe_names()  # every recipe folder, new ones included

# the module's fixture runs them all: its bound, not the suite's per-test default
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.timeout(replay_bound([load_recipe(n) for n in NAMES]) + 60),
]


@pytest.fixture(scope="module")
def replays(request: pytest.FixtureRequest) -> dict[str, Recorder | BaseException]:
    """The real runs of every recipe (or of those ``--recipe`` names), side by side (about the
    longest recipe's window in all)."""
    with BrowserLoop() as loop:
        return real_transcripts(wanted_recipes(request.config), loop)


@pytest.mark.parametrize("name", NAMES)
def test_a_real_run_gives_the_committed_transcript(
    replays: dict[str, Recorder | BaseException], name: str
) -> None:
    run = replays[name]
    if isinstance(run, BaseException):
        raise run
    committed = load_recipe(name).transcript_path.read_text(encoding="utf-8").splitlines()
    diff = difflib.unified_diff(committed, run.lines, "transcript.txt", "real run", lineterm="")
    explain = [*diff, "", "the real run's requests, with their unrounded times:", *run.timeline()]
    explain += [
        "",
        f"the demo and a real run disagree: the demo's run (scripts/recipe sync {name}",
        "records it) must be what the code does for real",
    ]
    assert run.lines == committed, "\n".join(explain)
