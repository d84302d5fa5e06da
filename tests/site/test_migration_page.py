"""The "Coming from resq 1.0.0 / hedron 1.1.3" page: in the nav, every ``migration/`` snippet
included byte for byte (never copied), and every snippet run by a test."""

from __future__ import annotations

import re
from pathlib import Path

from test_build import _code_blocks

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "migration.md"
SNIPPETS = sorted(
    p.relative_to(ROOT).as_posix() for p in (ROOT / "docs" / "migration").rglob("*.py")
)
RUNNERS = [
    ROOT / "tests" / "resq" / "test_resq_migration.py",
    ROOT / "tests" / "hedron" / "test_hedron_migration.py",
]


def test_every_snippet_is_included_not_copied() -> None:
    markdown = PAGE.read_text(encoding="utf-8")
    included = re.findall(r'--8<-- "(docs/migration/[^"]+)"', markdown)
    assert sorted(set(included)) == SNIPPETS
    for snippet in SNIPPETS:
        first_line = (ROOT / snippet).read_text(encoding="utf-8").splitlines()[0]
        assert first_line not in markdown, snippet


def test_every_snippet_is_run_by_a_test() -> None:
    tests = "".join(path.read_text(encoding="utf-8") for path in RUNNERS)
    for snippet in SNIPPETS:
        assert f'"{snippet.removeprefix("docs/migration/")}"' in tests, snippet


def test_the_built_page_shows_each_snippet_byte_for_byte(built_site: Path) -> None:
    page = (built_site / "migration" / "index.html").read_text(encoding="utf-8")
    blocks = _code_blocks(page)
    for snippet in SNIPPETS:
        source = (ROOT / snippet).read_text(encoding="utf-8")
        assert blocks[snippet].rstrip("\n") == source.rstrip("\n"), snippet
    home = (built_site / "index.html").read_text(encoding="utf-8")
    assert 'href="migration/"' in home  # in the nav
    assert "Coming from resq 1.0.0 / hedron 1.1.3" in home
