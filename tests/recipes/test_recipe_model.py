"""The recipe model (``tryit.recipe``): the one reader of ``recipe.toml``, whose errors name the
key they are about (and, for a key it does not know, the closest one it does)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tryit.recipe import KEYS, load_recipe, load_recipes, recipe_names

ROOT = Path(__file__).resolve().parents[2]


def test_the_recipes_are_the_folders_with_a_recipe_toml() -> None:
    recipes = load_recipes()
    assert [r.name for r in recipes] == recipe_names() == sorted(recipe_names())
    assert {p.parent.name for p in (ROOT / "recipes").glob("*/recipe.toml")} == set(recipe_names())


@pytest.mark.parametrize("name", recipe_names())
def test_each_recipe_loads_and_its_run_is_a_plan(name: str) -> None:
    recipe = load_recipe(name)
    assert recipe.folder == ROOT / "recipes" / name
    assert recipe.plan.server.app.endswith(":app")


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of ``recipes/taskflow`` (a hedron recipe with a [demo] table) to spoil."""
    folder = tmp_path / "taskflow"
    shutil.copytree(ROOT / "recipes" / "taskflow", folder)
    return folder


def _spoil(folder: Path, old: str, new: str) -> None:
    toml = folder / "recipe.toml"
    text = toml.read_text(encoding="utf-8")
    assert old in text
    toml.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "summary =",
            "sumary =",
            r"recipe.toml has unknown keys \['sumary'\] \(did you mean 'sumary' -> 'summary'\?\)",
        ),
        (
            "[demo]\n",
            "[demo]\nintervall = 2\n",
            r"\[demo\] has unknown keys \['intervall'\] \(did you mean 'intervall' -> 'interval'",
        ),
        (
            "[demo]\n",
            "[demo]\nactions = [{ clik = 'b' }]\n",
            r"\[demo\] has both click and actions",
        ),
        (
            "[demo]\n",
            "[real]\nwhy = 'x'\nworkrs = []\n\n[demo]\n",
            r"did you mean 'workrs' -> 'workers'",
        ),
        (
            "[demo]\n",
            "[real]\nwhy = 'x'\nrestart = { stop = 1, strat = 2 }\n\n[demo]\n",
            r"did you mean 'strat' -> 'start'",
        ),
        ("[demo]\n", "colour = 'red'\n[demo]\n", r"unknown keys \['colour'\]; valid keys: \["),
        ('library = "hedron"', 'library = "flask"', "library must be one of"),
        ("interval = 2", 'interval = "2"', r"\[demo\] interval must be a number of seconds > 0"),
        ('title = "TaskFlow"', 'title = ""', "title must be a non-empty string"),
        (
            'requirements = ["hedron", "uvicorn"]',
            'requirements = "hedron"',
            "requirements must be a list of non-empty strings",
        ),
        ('library = "hedron"', 'library = "hedron"\nlibrary = "resq"', "not TOML"),
    ],
)
def test_a_wrong_recipe_toml_names_the_key(copy: Path, old: str, new: str, message: str) -> None:
    _spoil(copy, old, new)
    with pytest.raises(ValueError, match=message):
        load_recipe(copy)


def test_an_unknown_action_key_names_the_closest(copy: Path) -> None:
    _spoil(copy, 'click = "form button[type=submit]"', 'actions = [{ clik = "b" }]')
    with pytest.raises(ValueError, match=r"did you mean 'clik' -> 'click'"):
        load_recipe(copy)


def test_the_documented_keys_are_the_ones_read() -> None:
    """Every key any recipe uses is a documented field, and the reference lists them all."""
    from docsite.pages import recipe_reference

    page = recipe_reference.markdown()
    for key in KEYS:
        assert f"| `{key}` |" in page
    for key in ("interval", "window", "runner", "page", "click", "actions", "adapter", "timeout"):
        assert f"| `{key}` |" in page
    for key in ("why", "services", "workers", "restart", "env", "command", "ready", "stop"):
        assert f"| `{key}` |" in page


def test_a_name_is_lowercase_letters_digits_and_dashes(tmp_path: Path) -> None:
    folder = tmp_path / "Bad_Name"
    folder.mkdir()
    (folder / "recipe.toml").write_text("")
    with pytest.raises(ValueError, match="a name is lowercase letters, digits and dashes"):
        load_recipe(folder)
