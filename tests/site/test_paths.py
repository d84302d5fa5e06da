"""The learning paths (``docsite/pages/paths.toml``) and the guides' features
(``docsite/pages/features.toml``): every recipe on a path, every feature linked to its
recipe."""

from __future__ import annotations

import html
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from docsite.pages import features as guide_features
from docsite.pages import learning_paths
from tryit.recipe import load_recipes

ROOT = Path(__file__).resolve().parents[2]
RECIPES = load_recipes()
PATHS = learning_paths.read_paths()
FEATURES = [f for fs in guide_features.read_features().values() for f in fs]
ON_A_PATH = {name for p in PATHS for t in p.topics for name in t.recipes}


def _recipe(name: str, library: str = "resq") -> SimpleNamespace:
    return SimpleNamespace(
        name=name, title=name.title(), summary=f"{name} in one line.", library=library
    )


def test_every_recipe_is_on_a_learning_path() -> None:
    assert learning_paths.unlisted(PATHS, RECIPES) == [], f"add them to {learning_paths.PATHS_FILE}"
    # and each on its own library's path (steps() raises otherwise)
    assert sum(len(s) for s in learning_paths.steps(PATHS, RECIPES)) == len(RECIPES)


def test_a_learner_meets_the_verbs_before_poll_and_the_experiments_last() -> None:
    by_name = {r.name: r for r in RECIPES}
    for path in PATHS:
        titles = [topic.title for topic in path.topics]
        marked = [i for i, title in enumerate(titles) if "(experimental)" in title]
        assert marked == list(range(len(titles) - len(marked), len(titles))), path.title
        for topic in path.topics:
            for name in topic.recipes:
                if name in by_name and "experimental" in by_name[name].title.lower():
                    assert "(experimental)" in topic.title, (name, topic.title)
    (resq,) = [p for p in PATHS if p.library == "resq"]
    first = [by_name[n] for n in resq.topics[0].recipes if n in by_name]
    assert {r.demo.adapter for r in first} == {"requests", "httpx"}  # the sync and async verbs
    for recipe in first:  # a verb that waits: no poll() yet
        assert "poll(" not in (recipe.folder / "client.py").read_text(encoding="utf-8")


def test_a_path_leaves_out_missing_recipes_and_numbers_without_gaps() -> None:
    path = learning_paths.LearningPath(
        "resq",
        "Learn resq",
        "Intro.",
        (
            learning_paths.Topic("Basics", ("a", "missing", "b")),
            learning_paths.Topic("More", ("gone",)),
            learning_paths.Topic("Last", ("c",)),
        ),
    )
    recipes = [_recipe("c"), _recipe("b"), _recipe("a"), _recipe("stray")]
    (steps,) = learning_paths.steps([path], recipes)
    assert [(s.recipe.name, s.number, s.total, s.topic) for s in steps] == [
        ("a", 1, 3, "Basics"),
        ("b", 2, 3, "Basics"),
        ("c", 3, 3, "Last"),
    ]
    assert learning_paths.unlisted([path], recipes) == ["stray"]
    assert learning_paths.nav([path], recipes) == [
        "recipes/index.md",
        {
            "Learn resq": [
                {"1. A": "recipes/a.md"},
                {"2. B": "recipes/b.md"},
                {"3. C": "recipes/c.md"},
            ]
        },
        "recipes/stray.md",
    ]
    before, step, after = learning_paths.find([steps], "b")
    assert (before.recipe.name, step.number, after.recipe.name) == ("a", 2, "c")  # type: ignore[union-attr]
    index = learning_paths.index_markdown([path], recipes)
    assert "### More" not in index  # a topic whose recipes are all missing is left out
    assert "| 3 | [C](c.md) | c in one line. |" in index
    assert "## Other recipes" in index
    with pytest.raises(ValueError, match="recipe 'a' is a hedron recipe"):
        learning_paths.steps([path], [_recipe("a", "hedron")])


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[[path]]\nlibrary = "go"\ntitle = "T"\nintro = "I"\n', "library must be one of"),
        (
            '[[path]]\nlibrary = "resq"\ntitle = "T"\nintro = "I"\n'
            '[[path.topic]]\ntitle = "A"\nrecipes = ["x", "x"]\n',
            "recipe 'x' is listed twice",
        ),
        (
            '[[path]]\nlibrary = "resq"\ntitle = "T"\nintro = "I"\n'
            '[[path.topic]]\ntitle = "A"\nrecipes = ["Not A Name"]\n',
            "is not a recipe folder name",
        ),
        ('[[path]]\nlibrary = "resq"\ntitle = "T"\nintro = "I"\n', "at least one topic"),
    ],
)
def test_paths_file_is_validated(tmp_path: Path, toml: str, message: str) -> None:
    file = tmp_path / "paths.toml"
    file.write_text(toml, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        learning_paths.read_paths(file)


def test_recipe_pages_sit_on_their_path_with_previous_and_next(built_site: Path) -> None:
    for path_steps in learning_paths.steps(PATHS, RECIPES):
        for i, step in enumerate(path_steps):
            page = (built_site / "recipes" / step.recipe.name / "index.html").read_text("utf-8")
            assert f"step {step.number} of {step.total}: {step.topic}" in page
            links = re.findall(r'<nav [^>]*class="path-steps"[^>]*>.*?</nav>', page, re.S)
            hrefs = re.findall(r'href="\.\./([\w-]+)/"', links[0]) if links else []
            expected = [s.recipe.name for s in (path_steps[i - 1 : i] if i else [])]
            expected += [s.recipe.name for s in path_steps[i + 1 : i + 2]]
            assert hrefs == expected, step.recipe.name
    index = (built_site / "recipes" / "index.html").read_text("utf-8")
    article = index.split("<article", 1)[1].split("</article>", 1)[0]
    order = [m for m in re.findall(r'href="([\w-]+)/"', article) if m in {r.name for r in RECIPES}]
    assert order == [s.recipe.name for p in learning_paths.steps(PATHS, RECIPES) for s in p]


def test_recipe_pages_show_their_summary_once(built_site: Path) -> None:
    for recipe in RECIPES:
        page = (built_site / "recipes" / recipe.name / "index.html").read_text("utf-8")
        article = page.split("<article", 1)[1].split("</article>", 1)[0]
        text = html.unescape(re.sub(r"<[^>]+>", "", article))
        assert recipe.summary not in text, recipe.name  # page.md opens the page instead
        described = re.search(r'<meta name="description" content="([^"]*)"', page)
        assert described, recipe.name
        assert html.unescape(described.group(1)) == recipe.summary, recipe.name


def test_every_guide_lists_its_features() -> None:
    guides = {
        p.relative_to(ROOT / "docs").as_posix()
        for folder in ("resq", "hedron")
        for p in (ROOT / "docs" / folder).glob("*.md")
    }
    listed = set(guide_features.read_features())
    assert guides <= listed, f"add them to {guide_features.FEATURES_FILE}"


@pytest.mark.parametrize("feature", FEATURES, ids=lambda f: f"{f.guide}:{f.recipe}")
def test_each_feature_of_a_guide_links_to_its_recipe(
    built_site: Path, feature: guide_features.Feature
) -> None:
    assert feature.recipe in ON_A_PATH, f"{feature.recipe} is on no path (paths.toml)"
    if not (ROOT / "recipes" / feature.recipe / "recipe.toml").exists():
        pytest.skip(f"recipe {feature.recipe} is not written yet (its guide leaves it out)")
    page = built_site / feature.guide.removesuffix(".md") / "index.html"
    assert f'href="../../recipes/{feature.recipe}/"' in page.read_text(encoding="utf-8")


def test_the_features_box_shows_existing_recipes_only() -> None:
    features = {
        "resq/x.md": [
            guide_features.Feature("resq/x.md", "`until=`", "here"),
            guide_features.Feature("resq/x.md", "later", "not-yet"),
        ]
    }
    out = guide_features.embed_features(
        "A\n<!-- recipes -->\nB", "resq/x.md", features, {"here": "Here"}
    )
    assert "- `until=`: [Here](../recipes/here.md)" in out
    assert "not-yet" not in out
    empty = guide_features.embed_features("A\n<!-- recipes -->\nB", "resq/x.md", features, {})
    assert empty == "A\n\nB"
    with pytest.raises(ValueError, match="has no <!-- recipes --> line"):
        guide_features.embed_features("A", "resq/x.md", features, {})
    with pytest.raises(ValueError, match=r"no features in features\.toml"):
        guide_features.embed_features("<!-- recipes -->", "resq/y.md", features, {})
