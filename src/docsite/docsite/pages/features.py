"""Each guide's public features and the recipe that runs each one (``features.toml``).

A guide's ``<!-- recipes -->`` line becomes a box linking every feature to its recipe page.
Recipes that do not exist yet are left out of the box (they are on a learning path already,
see ``paths.toml``); the test suite checks the links of those that do.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

FEATURES_FILE = Path(__file__).resolve().parent / "features.toml"
MARKER = re.compile(r"^<!--\s*recipes\s*-->[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Feature:
    """One public feature of a guide (Markdown text) and the recipe that shows it."""

    guide: str
    text: str
    recipe: str


def read_features(file: Path = FEATURES_FILE) -> dict[str, list[Feature]]:
    """``{guide page: [features]}`` from ``features.toml``.

    Raises:
        ValueError: an entry lacks its feature text or recipe name.
    """
    data = tomllib.loads(file.read_text(encoding="utf-8"))
    out: dict[str, list[Feature]] = {}
    for guide, entry in data.get("guide", {}).items():
        features = []
        for item in entry.get("features", []):
            text, recipe = item.get("feature"), item.get("recipe")
            if not isinstance(text, str) or not text or not isinstance(recipe, str) or not recipe:
                raise ValueError(f"{file.name}: {guide}: every feature needs feature= and recipe=")
            features.append(Feature(guide, text, recipe))
        out[guide] = features
    return out


def recipes_box(guide: str, features: list[Feature], titles: dict[str, str]) -> str:
    """The box of a guide: each feature whose recipe exists, linked to its page.

    ``titles`` maps the recipes that exist to their titles; empty when none of them does.
    """
    base = "../" * guide.count("/")
    items = [
        f"    - {f.text}: [{titles[f.recipe]}]({base}recipes/{f.recipe}.md)"
        for f in features
        if f.recipe in titles
    ]
    if not items:
        return ""
    return "\n".join(['!!! example "Recipes for this page"', "", *items, ""])


def embed_features(
    markdown: str, guide: str, features: dict[str, list[Feature]], titles: dict[str, str]
) -> str:
    """Replace the ``<!-- recipes -->`` line of ``guide`` by its recipes box.

    ``titles`` maps the recipes that exist to their titles.

    Raises:
        ValueError: the guide has features but no marker, or a marker but no features.
    """
    listed = features.get(guide)
    has_marker = MARKER.search(markdown) is not None
    if listed is None:
        if has_marker:
            raise ValueError(f"{guide}: <!-- recipes --> but no features in features.toml")
        return markdown
    if not has_marker:
        raise ValueError(f"{guide}: listed in features.toml but has no <!-- recipes --> line")
    box = recipes_box(guide, listed, titles)
    return MARKER.sub(lambda _: box, markdown, count=1)
