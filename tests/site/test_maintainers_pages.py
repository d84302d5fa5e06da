"""The two audiences' paths: a reader's home page and Try-it page, a maintainer's contributing
guide, internals and benchmarks; the decision records stay out of the published site."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
MAINTAINERS = DOCS / "maintainers"
#: What a maintainer runs, each named by the contributing guide.
COMMANDS = [
    "scripts/test --quick",
    "scripts/test --recipe NAME",
    "scripts/test\n",
    "scripts/serve",
    "scripts/recipe sync",
    "scripts/recipe check",
    "scripts/build",
    "paths.toml",
]


def test_the_contributing_guide_is_short_and_names_every_command() -> None:
    guide = (MAINTAINERS / "index.md").read_text(encoding="utf-8")
    assert len(guide.splitlines()) <= 200
    text = guide.replace("`", "\n")
    for command in COMMANDS:
        assert command in text, command
    assert "(publishing.md)" in guide
    assert "(recipe-toml.md)" in guide


def test_the_benchmarks_page_gives_each_figure_its_command() -> None:
    page = (MAINTAINERS / "benchmarks.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", page, flags=re.M)[1:]
    titles = [s.splitlines()[0] for s in sections]
    assert "Edit loop (scripts/bench/bench_edit.py)" in titles
    assert "Test tiers" in titles
    for section in sections:
        if re.search(r"\d+(\.\d+)? (s|ms|MB|ops/s)\b", section):  # a figure
            assert "scripts/bench/" in section, section.splitlines()[0]
            assert re.search(r"20\d\d-\d\d-\d\d", section), section.splitlines()[0]


def test_the_notebook_is_gone_and_nothing_links_to_it() -> None:
    old = "maintainers" + ".md"  # the one-page notebook (this file names it only here)
    assert not (DOCS / old).exists()
    for folder in ("docs", "src", "tests", "scripts"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in {".md", ".py", ".toml", ".yml"} and "examples" not in path.parts:
                assert old not in path.read_text(encoding="utf-8"), path
    assert old not in (ROOT / "README.md").read_text(encoding="utf-8")
    assert old not in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_each_decision_record_is_listed_and_has_its_parts() -> None:
    folder = DOCS / "decisions"
    index = (folder / "README.md").read_text(encoding="utf-8")
    records = sorted(p for p in folder.glob("[0-9][0-9][0-9][0-9]-*.md"))
    assert records
    for number, record in enumerate(records, start=1):
        assert record.name.startswith(f"{number:04d}-"), record.name
        assert f"({record.name})" in index, record.name
        text = record.read_text(encoding="utf-8")
        assert text.startswith(f"# {number:04d}. "), record.name
        for part in ("## Context", "## Decision", "## Consequences"):
            assert part in text, (record.name, part)


def test_the_built_site_leaves_the_decisions_out_and_links_try_it(built_site: Path) -> None:
    assert not (built_site / "decisions").exists()
    search = (built_site / "search" / "search_index.json").read_text(encoding="utf-8")
    assert '"location":"decisions/' not in search
    home = (built_site / "index.html").read_text(encoding="utf-8")
    assert 'href="try-it/"' in home
    assert 'href="maintainers/"' in home
    page = (built_site / "recipes" / "resq-sync-poll" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'class="tryit-about"><a href="\.\./\.\./try-it/"', page)
    guide = (built_site / "resq" / "polling" / "index.html").read_text(encoding="utf-8")
    assert 'class="tryit-about"><a href="../../try-it/"' in guide
    for folder in ("", "maintainers/"):
        assert (built_site / folder / "index.html").is_file()
