"""The ``recipe.toml`` reference page, generated from the recipe model (``tryit.recipe``).

Every key, its type, its default and its meaning come from the model's dataclass fields (their
``doc``), so the page cannot drift from what :func:`tryit.recipe.load_recipe` accepts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import MISSING, Field
from typing import Any

from tryit.recipe import KEYS, Action, Demo, Real, Recipe, Restart, Worker

PAGE = "maintainers/recipe-toml.md"
EXAMPLE = "jobs-cancel"  #: the recipe whose file the page shows (a [demo] with actions)

#: How a field's annotation reads in TOML.
TYPES = {
    "str": "string",
    "str | None": "string",
    "float": "number of seconds",
    "tuple[str, ...]": "list of strings",
    "Demo": "table",
    "Real | None": "table",
    "tuple[Action, ...]": "list of tables",
    "tuple[Worker, ...]": "list of tables",
    "Restart | None": "table",
    "tuple[tuple[str, str], ...]": "table of strings",
}


def _default(item: Field[Any]) -> str:
    if item.default is MISSING and item.default_factory is MISSING:
        return "required"
    value = item.default if item.default is not MISSING else None
    if value is None or value in ((), ""):
        return "none"
    if isinstance(value, float):
        return f"`{value:g}`"
    return f"`{value!r}`".replace("'", '"')


def _table(model: type[Any], keys: tuple[str, ...] | None = None) -> list[str]:
    rows = ["| key | type | default | meaning |", "| --- | --- | --- | --- |"]
    for item in dataclasses.fields(model):
        if "doc" not in item.metadata or (keys is not None and item.name not in keys):
            continue
        kind = TYPES.get(str(item.type))
        if kind is None:
            raise ValueError(f"recipe reference: no TOML type for {model.__name__}.{item.name}")
        rows.append(f"| `{item.name}` | {kind} | {_default(item)} | {item.metadata['doc']} |")
    return rows


def markdown() -> str:
    """The page's Markdown."""
    out = [
        "# `recipe.toml` reference",
        "",
        "Every recipe folder (`recipes/<name>/`) holds a `recipe.toml`. The recipe model",
        "(`src/tryit/tryit/recipe.py`) is its only reader: the page, the demo, the download and",
        "the tests all start from it. An unknown key or a wrong value fails the build and the",
        "tests with a message that names the key. This page is generated from that model.",
        "",
        f'```toml title="recipes/{EXAMPLE}/recipe.toml"',
        f'--8<-- "recipes/{EXAMPLE}/recipe.toml"',
        "```",
        "",
        "## Top level",
        "",
        *_table(Recipe, KEYS),
        "",
        "## `[demo]`",
        "",
        *_table(Demo),
        "",
        "Each `actions` entry:",
        "",
        *_table(Action),
        "",
        "## `[real]`",
        "",
        *_table(Real),
        "",
        "Each `workers` entry:",
        "",
        *_table(Worker),
        "",
        "`restart`:",
        "",
        *_table(Restart),
        "",
    ]
    return "\n".join(out)
