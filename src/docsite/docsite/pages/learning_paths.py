"""The learning paths: one numbered sequence of recipes per library (``paths.toml``).

Everything the site shows of a path comes from here: the Recipes section of the nav (one
section per path, steps numbered), the Recipes index (grouped by library and topic), and the
step line and previous/next links of each recipe page. A recipe named in ``paths.toml``
whose folder does not exist yet is left out, so a path only ever shows runnable recipes;
:func:`unlisted` names the recipes that are on no path (the test suite requires none).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

PATHS_FILE = Path(__file__).resolve().parent / "paths.toml"
LIBRARIES = ("resq", "hedron")
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class Recipe(Protocol):
    """What a path needs of a recipe (a ``tryit.recipe.Recipe`` has it)."""

    name: str
    title: str
    summary: str
    library: str


@dataclass(frozen=True)
class Topic:
    """A group of consecutive steps (``[[path.topic]]``)."""

    title: str
    recipes: tuple[str, ...]


@dataclass(frozen=True)
class LearningPath:
    """One library's path (``[[path]]``): its topics in order."""

    library: str
    title: str
    intro: str
    topics: tuple[Topic, ...]

    @property
    def anchor(self) -> str:
        """The id of this path's heading on the Recipes index (``learn-resq``)."""
        return re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-")


@dataclass(frozen=True)
class Step:
    """A recipe that exists, at its place on a path (numbered from 1, without gaps)."""

    path: LearningPath
    topic: str
    number: int
    total: int
    recipe: Recipe

    @property
    def nav_title(self) -> str:
        return f"{self.number}. {self.recipe.title}"


def _text(data: dict[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: {key} must be a non-empty string, got {value!r}")
    return value.strip()


def read_paths(file: Path = PATHS_FILE) -> list[LearningPath]:
    """Read and validate ``paths.toml``.

    Raises:
        ValueError: a field is missing or malformed, a library is unknown or has two paths,
            or a recipe name is listed twice.
    """
    data = tomllib.loads(file.read_text(encoding="utf-8"))
    paths: list[LearningPath] = []
    seen: set[str] = set()
    for i, entry in enumerate(data.get("path", [])):
        where = f"{file.name}: path {i + 1}"
        library = _text(entry, "library", where)
        if library not in LIBRARIES:
            raise ValueError(f"{where}: library must be one of {LIBRARIES}, got {library!r}")
        if any(p.library == library for p in paths):
            raise ValueError(f"{where}: library {library!r} has two paths")
        topics = []
        for j, topic in enumerate(entry.get("topic", [])):
            here = f"{where}, topic {j + 1}"
            names = topic.get("recipes")
            if not isinstance(names, list) or not names:
                raise ValueError(f"{here}: recipes must be a non-empty list of recipe names")
            for name in names:
                if not isinstance(name, str) or not _NAME.match(name):
                    raise ValueError(f"{here}: {name!r} is not a recipe folder name")
                if name in seen:
                    raise ValueError(f"{here}: recipe {name!r} is listed twice")
                seen.add(name)
            topics.append(Topic(_text(topic, "title", here), tuple(names)))
        if not topics:
            raise ValueError(f"{where}: a path needs at least one topic")
        title, intro = _text(entry, "title", where), _text(entry, "intro", where)
        paths.append(LearningPath(library, title, intro, tuple(topics)))
    return paths


def steps(paths: Sequence[LearningPath], recipes: Sequence[Recipe]) -> list[list[Step]]:
    """Each path's steps: the listed recipes that exist, numbered in path order.

    Raises:
        ValueError: a recipe is on the path of another library than its own.
    """
    by_name = {r.name: r for r in recipes}
    out = []
    for path in paths:
        found = [
            (topic.title, by_name[name])
            for topic in path.topics
            for name in topic.recipes
            if name in by_name
        ]
        for _, recipe in found:
            if recipe.library != path.library:
                raise ValueError(
                    f"paths.toml: recipe {recipe.name!r} is a {recipe.library} recipe, "
                    f"listed on the {path.library} path"
                )
        total = len(found)
        out.append(
            [Step(path, topic, n, total, recipe) for n, (topic, recipe) in enumerate(found, 1)]
        )
    return out


def unlisted(paths: Sequence[LearningPath], recipes: Sequence[Recipe]) -> list[str]:
    """Names of the recipes that are on no path."""
    listed = {name for p in paths for t in p.topics for name in t.recipes}
    return sorted(r.name for r in recipes if r.name not in listed)


def find(all_steps: Sequence[Sequence[Step]], name: str) -> tuple[Step | None, ...]:
    """``(previous, step, next)`` of recipe ``name`` on its path (``None`` where there is none)."""
    for path_steps in all_steps:
        for i, step in enumerate(path_steps):
            if step.recipe.name == name:
                before = path_steps[i - 1] if i else None
                after = path_steps[i + 1] if i + 1 < len(path_steps) else None
                return before, step, after
    return None, None, None


def nav(paths: Sequence[LearningPath], recipes: Sequence[Recipe]) -> list[Any]:
    """The Recipes section of the nav: the index, then one section per path, numbered.

    Recipes on no path come last, unnumbered (and the test suite fails on them).
    """
    out: list[Any] = ["recipes/index.md"]
    for path_steps in steps(paths, recipes):
        if path_steps:
            title = path_steps[0].path.title
            out.append({title: [{s.nav_title: f"recipes/{s.recipe.name}.md"} for s in path_steps]})
    out += [f"recipes/{name}.md" for name in unlisted(paths, recipes)]
    return out


def step_line(step: Step) -> str:
    """The line under a recipe page's title: which path, which step, which topic."""
    index = f"index.md#{step.path.anchor}"
    return f"[{step.path.title}]({index}), step {step.number} of {step.total}: {step.topic}."


def step_links(before: Step | None, after: Step | None) -> str:
    """Previous/next links at the end of a recipe page (empty when the recipe is on no path)."""
    step = before if before is not None else after
    if step is None:
        return ""
    links = []
    if before is not None:
        links.append(f"[← {before.nav_title}]({before.recipe.name}.md){{ .md-button }}")
    if after is not None:
        link = f"[{after.nav_title} →]({after.recipe.name}.md)"
        links.append(link + "{ .md-button .md-button--primary .path-next }")
    label = f"{step.path.title}: previous and next step"
    return f'<nav class="path-steps" markdown="span" aria-label="{label}">{" ".join(links)}</nav>'


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def index_markdown(paths: Sequence[LearningPath], recipes: Sequence[Recipe]) -> str:
    """Markdown of ``recipes/index.md``: the paths in order, grouped by topic."""
    out = ["# Recipes", ""]
    out += ["Each recipe is a small program you can run. Its page shows the code, and **Try it**"]
    out += ["runs that code in your browser, one request per click. The test suite runs the same"]
    out += ["code for real and checks that it does what the page shows.", ""]
    out += ["There is one path per library, in the order a learner needs the steps. Each page"]
    out += ["links to the previous and the next step.", ""]
    for path_steps in steps(paths, recipes):
        if not path_steps:
            continue
        path = path_steps[0].path
        out += [f"## {path.title} {{ #{path.anchor} }}", "", path.intro, ""]
        for topic in path.topics:
            rows = [s for s in path_steps if s.topic == topic.title]
            if not rows:
                continue
            out += [
                f"### {topic.title}",
                "",
                "| Step | Recipe | What it shows |",
                "| --- | --- | --- |",
            ]
            out += [
                f"| {s.number} | [{_cell(s.recipe.title)}]({s.recipe.name}.md) |"
                f" {_cell(s.recipe.summary)} |"
                for s in rows
            ]
            out.append("")
    others = [r for r in recipes if r.name in set(unlisted(paths, recipes))]
    if others:
        out += [
            "## Other recipes",
            "",
            "| Recipe | Library | What it shows |",
            "| --- | --- | --- |",
        ]
        out += [
            f"| [{_cell(r.title)}]({r.name}.md) | {r.library} | {_cell(r.summary)} |"
            for r in others
        ]
        out.append("")
    return "\n".join(out)
