"""Run the Python code a hand-written docs page shows, as a reader would read it.

A page's ```` ```python ```` blocks run in order, in one namespace (a later block may use what
an earlier one defined), statement by statement. A statement followed by a comment such as
``# ValueError: claim: lease_s must be ...`` must raise that exception, with a message that
starts with the quoted text (up to an ellipsis). A ```` ```pycon ```` block's ``>>>``
statements run the same way, their output lines naming the exception they raise. Top-level
``await`` runs on the event loop given. Blocks that include a file (``--8<--``) are the
file's, and are skipped here: the recipe's or the snippet's own tests run it.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import inspect
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"^( *)```(python|pycon)[^\n]*\n(.*?)^\1```[ \t]*$", re.M | re.S)
EXPECTED = re.compile(r"^#?\s*(\w+(?:Error|Exception|Timeout)): (.*)$")


@dataclass(frozen=True)
class Block:
    """One code block of a page: its language, its code and its first line in the page."""

    page: str
    lang: str
    code: str
    line: int

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(page: str) -> list[Block]:
    """The page's Python and pycon blocks that are written in the page (not included)."""
    text = (DOCS / page).read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        indent, lang, body = match.groups()
        code = "\n".join(line.removeprefix(indent) for line in body.splitlines())
        if "--8<--" not in code:
            found.append(Block(page, lang, code, text.count("\n", 0, match.start()) + 2))
    return found


def _statements(block: Block) -> Iterator[tuple[str, str | None]]:
    """Each statement's source, and the exception its comment or output line expects."""
    if block.lang == "pycon":
        chunks = re.split(r"^>>> ", block.code, flags=re.M)[1:]
        for chunk in chunks:
            source, *output = chunk.splitlines()
            yield source, next((line for line in output if EXPECTED.match(line)), None)
        return
    tree = ast.parse(block.code)  # top-level await parses; it is compiled with its flag below
    lines = block.code.splitlines()
    for i, node in enumerate(tree.body):
        end = node.end_lineno or node.lineno
        source = "\n".join(lines[_first_line(node) - 1 : end])
        until = tree.body[i + 1].lineno - 1 if i + 1 < len(tree.body) else len(lines)
        after = [line.strip() for line in lines[end:until] if line.strip().startswith("#")]
        yield source, next((c for c in after if EXPECTED.match(c)), None)


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _exception(name: str, namespace: Mapping[str, Any]) -> type[BaseException]:
    found = namespace.get(name) or getattr(builtins, name, None)
    if found is None:  # resq's and hedron's own errors, by their public homes
        import hedron_core.jobs
        import resq.http

        found = getattr(resq.http, name, None) or getattr(hedron_core.jobs, name)
    assert isinstance(found, type), name
    assert issubclass(found, BaseException), name
    return found


def _run(
    compiled: Any,
    namespace: dict[str, Any],
    loop: asyncio.AbstractEventLoop | None,
    block: Block,
) -> None:
    """Run one compiled statement; a top-level ``await`` runs on ``loop``."""
    result = eval(compiled, namespace)  # the page's own code
    if inspect.iscoroutine(result):
        assert loop is not None, f"{block}: top-level await needs a loop"
        loop.run_until_complete(result)


def run_blocks(
    page: str,
    namespace: dict[str, Any],
    *,
    loop: asyncio.AbstractEventLoop | None = None,
    replace: Mapping[str, str] | None = None,
    before: Mapping[int, Mapping[str, Any] | Callable[[dict[str, Any]], Mapping[str, Any]]]
    | None = None,
) -> dict[str, Any]:
    """Run every block of ``page`` in ``namespace``; return it.

    ``replace`` rewrites a block's text before it runs (an address the reader would change, a
    count made smaller); ``before`` adds names to the namespace before the block of that index
    (a mapping, or a function of the namespace that returns one).
    """
    found = blocks(page)
    assert found, f"{page} shows no Python code of its own"
    for index, block in enumerate(found):
        extra = (before or {}).get(index, {})
        namespace.update(extra(namespace) if callable(extra) else extra)
        code = block.code
        for old, new in (replace or {}).items():
            code = code.replace(old, new)
        for source, expected in _statements(Block(block.page, block.lang, code, block.line)):
            compiled = compile(
                source, str(block), "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True
            )
            if expected is None:
                _run(compiled, namespace, loop, block)
                continue
            match = EXPECTED.match(expected)
            assert match is not None
            name, message = match.groups()
            with pytest.raises(_exception(name, namespace)) as info:
                _run(compiled, namespace, loop, block)
            quoted = message.split("...", 1)[0].split("…", 1)[0].rstrip()
            assert str(info.value).startswith(quoted), (str(block), str(info.value), quoted)
    return namespace
