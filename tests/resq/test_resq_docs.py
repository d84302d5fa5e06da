"""Every Python block on the resq topic pages is valid Python (top-level await allowed)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs" / "resq"
PAGES = ["getting-started.md", "clients.md", "responses.md", "polling.md"]
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


@pytest.mark.parametrize("page", PAGES)
def test_python_blocks_compile(page):
    blocks = BLOCK.findall((DOCS / page).read_text())
    assert blocks, f"{page} has no python examples"
    for block in blocks:
        compile(block, page, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def test_polling_page_keeps_the_seed_structure():
    text = (DOCS / "polling.md").read_text()
    headings = re.findall(r"^#+ (.+)$", text, re.MULTILINE)
    assert headings[:8] == [
        "Polling",
        "The easy way — a verb with a timeout",
        "Sync poll",
        "Async poll",
        "When you do not need poll directly",
        "Handling exhaustion",
        "Behavior & preconditions",
        "The window, precisely",
    ]
