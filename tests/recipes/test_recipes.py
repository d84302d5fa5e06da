"""Every resq recipe runs to its terminal state on CPython and matches its committed transcript.

The "Try it" driver (``src/tryit``) is the very code the browser runs; here it runs
on CPython. hedron recipes need a browser (their page's htmx sends the requests): see
``test_panel.py``. What a real run does is checked by ``test_real_replay.py``. Regenerate
transcripts with ``python scripts/transcripts.py --update``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tryit import load_recipe, open_demo, recipe_names, recipes_root, run_blocking, run_to_end
from tryit._record import as_text

ROOT = Path(__file__).resolve().parents[2]
NAMES = recipe_names()
# resq, and hedron + client.py, in the browser
RESQ = [n for n in NAMES if load_recipe(n).driver == "client" and load_recipe(n).in_browser]


def test_recipes_are_found_in_the_repository() -> None:
    assert recipes_root() == ROOT / "recipes"
    assert {"resq-verb-timeout", "resq-sync-poll", "resq-async-poll", "resq-exhaustion"} <= set(
        NAMES
    )


@pytest.mark.parametrize("name", NAMES)
def test_recipe_folder_follows_the_format(name: str) -> None:
    recipe = load_recipe(name)  # the model checks recipe.toml itself (test_recipe_model.py)
    assert (recipe.folder / "page.md").is_file()
    assert recipe.transcript_path.is_file()
    if recipe.library == "resq":
        assert {"server.py", "client.py"} <= set(recipe.files)
    elif "client.py" in recipe.files:  # a hedron app shown with a script
        assert recipe.driver == "client"
    else:
        assert "app.py" in recipe.files


@pytest.mark.parametrize("name", RESQ)
def test_transcript_matches_the_committed_one(name: str) -> None:
    committed = load_recipe(name).transcript_path.read_text(encoding="utf-8")
    assert as_text(run_to_end(name)) == committed, (
        f"the demo no longer gives recipes/{name}/transcript.txt; if the change is meant, "
        f"record it: scripts/recipe sync {name}"
    )


@pytest.mark.parametrize("name", RESQ)
def test_each_step_is_one_request_and_stepping_equals_running(name: str) -> None:
    committed = load_recipe(name).transcript_path.read_text(encoding="utf-8").splitlines()

    async def go() -> list[list[str]]:
        stepper = open_demo(name)
        steps: list[list[str]] = []
        try:
            while not stepper.done:
                steps.append((await stepper.step()).lines)
                assert len(steps) < 200
        finally:
            await stepper.close()
        return steps

    steps = run_blocking(go)
    assert [line for step in steps for line in step] == committed
    for lines in steps:
        requests = [line for line in lines if " -> " in line]
        assert len(requests) == 1, lines


@pytest.mark.parametrize("name", RESQ)
def test_reset_in_the_middle_then_run_again_gives_the_same_transcript(name: str) -> None:
    committed = load_recipe(name).transcript_path.read_text(encoding="utf-8").splitlines()

    async def go() -> list[str]:
        first = open_demo(name)
        await first.step()
        await first.step()
        await first.close()  # Reset while the recipe code waits for the next step
        second = open_demo(name)
        try:
            return (await second.run_to_end()).lines
        finally:
            await second.close()

    assert run_blocking(go) == committed


def test_window_elapsed_is_what_the_recipe_prints_and_terminal_state_is_named() -> None:
    lines = run_to_end("resq-exhaustion")
    assert "> window elapsed, last status 503" in lines  # no annotation of the driver's own
    assert sum(" -> 503 " in line for line in lines) == 16  # t = 0, 2, ... 30
    assert lines[-1] == "= done: terminal state, 200 OK at t=30s"
    assert run_to_end("resq-verb-timeout")[-1] == "= done: terminal state, 200 OK at t=6s"


def test_a_failing_recipe_ends_the_run_with_an_error_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import tryit._resq_demo as demo

    async def broken(recipe: object, server: object, stepper: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(demo, "scenario", broken)
    lines = run_to_end("resq-sync-poll")
    assert lines == ["= error: RuntimeError: boom"]


def test_unknown_recipe_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no recipe named 'nope'"):
        load_recipe("nope")


def test_hedron_recipes_are_not_stepped_in_python() -> None:
    with pytest.raises(ValueError, match=r"driven by the page's demo panel \(panel.mjs\)"):
        open_demo("taskflow")


def test_a_recipe_that_needs_separate_processes_has_no_demo() -> None:
    """A ``[real]`` recipe (Redis and a worker, a restart) is refused by the demo, saying why."""
    for name in ("scale-celery", "jobs-sse"):
        real = load_recipe(name).real
        assert real is not None
        says = f"recipe {name} does not run in a browser: {real.why}"
        with pytest.raises(ValueError, match=re.escape(says)):
            open_demo(name)
