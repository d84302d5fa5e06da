"""A recipe's ``[demo] interval`` agrees with its code (``tryit._settings``): a client's
``delay=``, a page's ``poll_interval_ms=``/``interval_ms=`` or ``every 2s`` trigger."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tryit._settings import check_demo_settings, stated_intervals
from tryit.recipe import load_recipe, recipe_names

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", recipe_names())
def test_each_recipes_demo_interval_agrees_with_its_code(name: str) -> None:
    check_demo_settings(load_recipe(name))


def _copy(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    shutil.copytree(ROOT / "recipes" / name, folder)
    return folder


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_client_delay_that_disagrees_names_both_values_the_file_and_the_fix(
    tmp_path: Path,
) -> None:
    folder = _copy(tmp_path, "resq-sync-poll")
    _replace(folder / "client.py", "delay=2)", "delay=3)")
    line = next(
        i
        for i, text in enumerate((folder / "client.py").read_text().splitlines(), 1)
        if "delay=3" in text
    )
    with pytest.raises(ValueError, match=r"delay=3") as raised:
        check_demo_settings(load_recipe(folder))
    assert str(raised.value) == (
        f"recipes/resq-sync-poll/client.py:{line}: delay=3 polls every 3 s, but "
        "recipes/resq-sync-poll/recipe.toml has [demo] interval = 2: transcript times would "
        "be rounded to the wrong slot. Set [demo] interval = 3 (or change the code back), "
        "then run scripts/recipe sync resq-sync-poll"
    )
    _replace(folder / "recipe.toml", "interval = 2", "interval = 3")  # the fix it names
    check_demo_settings(load_recipe(folder))


def test_a_page_poll_interval_that_disagrees_is_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "taskflow")
    _replace(folder / "app.py", "poll_interval_ms=2000", "poll_interval_ms=1000")
    with pytest.raises(ValueError, match=r"app\.py:\d+: poll_interval_ms=1000 polls every 1 s"):
        check_demo_settings(load_recipe(folder))


def test_an_edited_recipe_is_checked_on_its_edited_code() -> None:
    recipe = load_recipe("poll-component")
    app = (recipe.folder / "app.py").read_text(encoding="utf-8")
    edited = recipe.edited({"app.py": app.replace("interval_ms=1000", "interval_ms=500")})
    with pytest.raises(ValueError, match=r"interval_ms=500 polls every 0\.5 s.* interval = 1"):
        check_demo_settings(edited)


def test_the_intervals_code_states() -> None:
    source = (
        "client.get('/a', delay=1.5)\n"
        "Poll(ref=r, interval_ms=250)\n"
        "attrs = {'hx-trigger': 'every 2s [ready]'}\n"
        "Text('It polls every 2s.')\n"  # prose: not a trigger
        "client.get('/b', delay=pace)\n"  # computed: not read
    )
    assert [(s.line, s.what, s.seconds) for s in stated_intervals(source)] == [
        (1, "delay=1.5", 1.5),
        (2, "interval_ms=250", 0.25),
        (3, '"every 2s"', 2.0),
    ]
