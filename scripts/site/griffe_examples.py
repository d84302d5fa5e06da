"""Griffe extension: read a Google-style ``Example:`` section as ``Examples:``.

Griffe treats ``Example:`` as a free-text admonition, so doctest lines such as
``>>> [p.name for p in info.props]`` would be rendered as Markdown (and ``[...]`` taken for
cross-references). ``Examples:`` sections are parsed into highlighted ``pycon`` blocks.
Registered in ``mkdocs.yml`` (mkdocstrings python handler, ``extensions``).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE = re.compile(r"^(\s*)Example:\s*$", re.MULTILINE)


class ExampleSections(griffe.Extension):
    """Rename ``Example:`` section headers to ``Examples:`` before docstrings are parsed."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        docstring = getattr(obj, "docstring", None)
        if docstring is not None and "Example:" in docstring.value:
            docstring.value = _EXAMPLE.sub(r"\1Examples:", docstring.value)
