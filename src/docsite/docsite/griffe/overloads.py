"""Griffe extension: overloads show the implementation's real defaults, not ``...``.

Typing overloads must write their defaults as ``...`` (``timeout: float | None = ...``), so
the reference would print ``= ...`` for every optional parameter of ``poll`` or
``Requests(...)``. Once a package is loaded, each overload's ``...`` default is replaced by
the default of the implementation's parameter of the same name (only where the
implementation has one: an overload's own real default is kept).

Registered in ``mkdocs.yml`` (mkdocstrings python handler, ``extensions``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import griffe


def _functions(obj: Any) -> Iterator[Any]:
    for member in obj.members.values():
        if getattr(member, "is_alias", False):
            continue
        if member.is_function:
            yield member
        elif member.is_class or member.is_module:
            yield from _functions(member)


def fill_overload_defaults(function: Any) -> None:
    """Give ``function``'s overloads its defaults where they write ``...``."""
    defaults = {p.name: p.default for p in function.parameters if p.default is not None}
    for overload in function.overloads or ():
        for param in overload.parameters:
            if str(param.default) == "..." and param.name in defaults:
                param.default = defaults[param.name]


class OverloadDefaults(griffe.Extension):
    """Fill the ``...`` defaults of every overload of a loaded package."""

    def on_package(self, *, pkg: Any, **kwargs: Any) -> None:
        for function in _functions(pkg):
            fill_overload_defaults(function)
