"""The examples in the jobs docstrings (rendered in the API reference) run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "hedron_core.jobs",
    "hedron_core.jobs._types",
    "hedron_core.jobs._machine",
    "hedron_core.jobs._protocol",
    "hedron_core.jobs._memory",
    "hedron_core.jobs._sqlite",
    "hedron_core.jobs._clock",
    "hedron_core.jobs._context",
    "hedron_core.jobs._stepping",
    "hedron_core.jobs._threads",
    "hedron_core.jobs._local",
    "hedron_core.jobs._view",
    "hedron.jobs._binding",
    "hedron.jobs._enqueue",
    "hedron.jobs._responses",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.attempted > 0
    assert result.failed == 0
