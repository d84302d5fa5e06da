"""The code a hand-written page shows cannot go stale: it is included from a file (a recipe's,
or a snippet a test runs), or the page's blocks are run by a test (``docs_blocks``). A
line range of an included file covers whole statements, so an edit of the file that moves
them fails here rather than showing half a function."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: Pages whose own Python blocks a test runs, and that test.
RUN_BY = {
    "resq/clients.md": "tests/resq/test_resq_docs.py",
    "resq/responses.md": "tests/resq/test_resq_docs.py",
    "resq/polling.md": "tests/resq/test_resq_docs.py",
    "hedron/getting-started.md": "tests/hedron/test_hedron_docs.py",
    "hedron/components.md": "tests/hedron/test_hedron_docs.py",
    "hedron/jobs.md": "tests/hedron/test_hedron_docs.py",
    "hedron/backends.md": "tests/hedron/test_hedron_docs.py",
    "hedron/security.md": "tests/hedron/test_hedron_docs.py",
    "hedron/scaling-out.md": "tests/scale/test_scale_docs.py",
}
FENCE = re.compile(r"^( *)```(python|pycon)[^\n]*\n(.*?)^\1```[ \t]*$", re.M | re.S)
RANGE = re.compile(r'^\s*--8<-- "([^":]+\.py):(\d+):(\d+)"', re.M)
PAGES = sorted(
    p.relative_to(DOCS).as_posix()
    for p in DOCS.rglob("*.md")
    if not {"examples", "decisions"} & set(p.relative_to(DOCS).parts)
)


@pytest.mark.parametrize("page", PAGES)
def test_python_on_a_page_is_included_or_run(page: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    own = [m for m in FENCE.finditer(text) if "--8<--" not in m.group(3)]
    if not own:
        return
    assert page in RUN_BY, (
        f"{page} shows Python of its own: include it from a recipe file "
        '(--8<-- "recipes/NAME/FILE:FIRST:LAST"), or run its blocks in a test '
        "(tests/_support/docs_blocks.py) and list the page in RUN_BY"
    )
    runner = (ROOT / RUN_BY[page]).read_text(encoding="utf-8")
    assert page.rsplit("/", 1)[-1] in runner, f"{RUN_BY[page]} does not name {page}"


@pytest.mark.parametrize("page", PAGES)
def test_a_line_range_covers_whole_statements(page: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    for path, first, last in RANGE.findall(text):
        lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
        a, b = int(first), int(last)
        assert 1 <= a <= b <= len(lines), f"{page}: {path}:{a}:{b} is outside the file"
        where = f"{page}: {path}:{a}:{b}"
        assert a == 1 or not lines[a - 2].strip(), f"{where} starts inside a statement"
        assert b == len(lines) or not lines[b].strip(), f"{where} ends inside a statement"
        assert lines[a - 1].strip(), f"{where} starts on a blank line"
        assert lines[b - 1].strip(), f"{where} ends on a blank line"
        ast.parse(textwrap.dedent("\n".join(lines[a - 1 : b])))  # whole statements
