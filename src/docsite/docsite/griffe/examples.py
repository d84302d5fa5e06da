"""Griffe extension: docstrings as the site shows them.

- Sphinx-style roles (``:class:`X```, ``:data:`~a.b```) become plain code spans (``X``,
  ``b``): mkdocstrings' Google style would print the role markup literally.
- A Google-style ``Example:`` section is read as ``Examples:``. Griffe treats ``Example:``
  as a free-text admonition, so doctest lines such as ``>>> [p.name for p in info.props]``
  would be rendered as Markdown (and ``[...]`` taken for cross-references); ``Examples:``
  sections are parsed into highlighted ``pycon`` blocks.

Registered in ``mkdocs.yml`` (mkdocstrings python handler, ``extensions``); the component
pages use :func:`plain_roles` too.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE = re.compile(r"^(\s*)Example:\s*$", re.MULTILINE)
_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|data|attr|mod|exc|obj):`(~?)([^`]+)`")


def plain_roles(text: str) -> str:
    """Replace Sphinx roles by code spans (``~a.b`` keeps only ``b``, as Sphinx shows it)."""

    def span(match: re.Match[str]) -> str:
        target = match.group(2)
        return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"

    return _ROLE.sub(span, text)


class ExampleSections(griffe.Extension):
    """Plain roles, and ``Example:`` renamed ``Examples:``, before docstrings are parsed."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        docstring = getattr(obj, "docstring", None)
        if docstring is None:
            return
        value = plain_roles(docstring.value)
        if "Example:" in value:
            value = _EXAMPLE.sub(r"\1Examples:", value)
        docstring.value = value
