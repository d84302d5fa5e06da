"""Prop validators shared by the components (errors always name ``Component.prop``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from hedron_core._base import Child, Component

__all__ = [
    "check_bool",
    "check_child",
    "check_children",
    "check_choice",
    "check_component",
    "check_int",
    "check_str",
]

T = TypeVar("T")


def check_str(value: object, *, where: str, allow_empty: bool = False, max_len: int = 0) -> str:
    """Return ``value`` if it is a ``str`` (non-empty unless allowed)."""
    if not isinstance(value, str):
        raise TypeError(f"{where} must be a str, got {type(value).__name__}")
    if not allow_empty and (not value or value.isspace()):
        raise ValueError(f"{where} must not be empty")
    if max_len and len(value) > max_len:
        raise ValueError(f"{where} must be at most {max_len} characters, got {len(value)}")
    return value


def check_opt_str(value: object, *, where: str) -> str | None:
    """``None`` or a non-empty ``str``."""
    return None if value is None else check_str(value, where=where)


def check_bool(value: object, *, where: str) -> bool:
    """Return ``value`` if it is a ``bool``."""
    if not isinstance(value, bool):
        raise TypeError(f"{where} must be a bool, got {type(value).__name__}")
    return value


def check_int(value: object, *, where: str, minimum: int | None = None) -> int:
    """Return ``value`` if it is an ``int`` (not ``bool``) and at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where} must be an int, got {type(value).__name__}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{where} must be >= {minimum}, got {value}")
    return value


def check_choice(value: object, choices: Sequence[T], *, where: str) -> T:
    """Return ``value`` if it is one of ``choices``."""
    if value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{where} must be one of {allowed}; got {value!r}")
    return value  # type: ignore[return-value]


def check_component(value: object, *, where: str) -> Component:
    """Return ``value`` if it is a :class:`Component`."""
    if not isinstance(value, Component):
        raise TypeError(f"{where} must be a Component, got {type(value).__name__}")
    return value


def check_child(value: object, *, where: str) -> Child:
    """Return ``value`` if it is a :class:`Component` or ``str``."""
    if not isinstance(value, (Component, str)):
        raise TypeError(f"{where} must be a Component or str, got {type(value).__name__}")
    return value


def check_children(values: Iterable[object], *, where: str) -> tuple[Child, ...]:
    """Validate each child; the error names its position."""
    children = tuple(values)
    for i, child in enumerate(children):
        if not isinstance(child, (Component, str)):
            check_child(child, where=f"{where}[{i}]")
    return children  # type: ignore[return-value]
