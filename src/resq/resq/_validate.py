"""Argument checks shared by the client, ``poll`` and the pollers.

Every check raises before anything is sent, with a message naming the parameter.
"""

from __future__ import annotations

import math
from typing import Any


def _type_name(value: Any) -> str:
    return type(value).__name__


def number(where: str, name: str, value: Any, *, positive: bool = False) -> float:
    """Return ``value`` as a float if it is a finite real number ``>= 0`` (``> 0`` if positive).

    ``bool`` is rejected although it is an ``int`` subclass: ``timeout=True`` is a bug.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{where}: {name} must be a number of seconds, got {_type_name(value)}")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{where}: {name} must be a finite number, got {value!r}")
    if positive and result <= 0:
        raise ValueError(f"{where}: {name} must be > 0, got {value!r}")
    if result < 0:
        raise ValueError(f"{where}: {name} must be >= 0, got {value!r}")
    return result


def optional_number(where: str, name: str, value: Any, *, positive: bool = False) -> float | None:
    """Like :func:`number` but ``None`` passes through."""
    return None if value is None else number(where, name, value, positive=positive)


def integer(where: str, name: str, value: Any, *, minimum: int) -> int:
    """Return ``value`` if it is an ``int`` (not ``bool``) ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where}: {name} must be an int, got {_type_name(value)}")
    if value < minimum:
        raise ValueError(f"{where}: {name} must be >= {minimum}, got {value!r}")
    return value


def text(where: str, name: str, value: Any) -> str:
    """Return ``value`` if it is a ``str``."""
    if not isinstance(value, str):
        raise TypeError(f"{where}: {name} must be a str, got {_type_name(value)}")
    return value


def flag(where: str, name: str, value: Any) -> bool:
    """Return ``value`` if it is a ``bool``."""
    if not isinstance(value, bool):
        raise TypeError(f"{where}: {name} must be True or False, got {_type_name(value)}")
    return value


def callable_or_none(where: str, name: str, value: Any) -> Any:
    """Return ``value`` if it is ``None`` or callable."""
    if value is not None and not callable(value):
        raise TypeError(f"{where}: {name} must be callable or None, got {_type_name(value)}")
    return value
