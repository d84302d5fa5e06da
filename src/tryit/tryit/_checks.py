"""The checks ``recipe.toml``'s tables share: every error names the key it is about."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any


def only(table: Mapping[str, Any], allowed: Iterable[str], what: str, where: str) -> None:
    """Refuse a key of ``table`` that is not in ``allowed``, naming it and the closest valid one.

    Raises:
        ValueError: ``"{where}: {what} has unknown keys ['clicks'] (did you mean 'click'?)"``.
    """
    known = sorted(allowed)
    unknown = sorted(set(table) - set(known))
    if not unknown:
        return
    hints = [
        f"{key!r} -> {close[0]!r}"
        for key in unknown
        for close in [difflib.get_close_matches(key, known, n=1, cutoff=0.6)]
        if close
    ]
    hint = f" (did you mean {', '.join(hints)}?)" if hints else ""
    raise ValueError(f"{where}: {what} has unknown keys {unknown}{hint}; valid keys: {known}")


def text(value: Any, what: str, where: str) -> str:
    """A non-empty string, stripped."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: {what} must be a non-empty string, got {value!r:.60}")
    return value.strip()


def seconds(value: Any, what: str, where: str, *, positive: bool = False) -> float:
    """A number of seconds: ``>= 0`` (``> 0`` when ``positive``), below a million."""
    ok = not isinstance(value, bool) and isinstance(value, int | float)
    if ok and positive:
        ok = 0 < value < 1e6
    elif ok:
        ok = 0 <= value < 1e6
    if not ok:
        bound = "> 0" if positive else ">= 0"
        raise ValueError(f"{where}: {what} must be a number of seconds {bound}, got {value!r:.40}")
    return float(value)


def string_list(value: Any, what: str, where: str) -> tuple[str, ...]:
    """A list of non-empty strings."""
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{where}: {what} must be a list of non-empty strings, got {value!r:.80}")
    return tuple(value)


def tables(value: Any, what: str, where: str) -> list[dict[str, Any]]:
    """A list of tables."""
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ValueError(f"{where}: {what} must be a list of tables")
    return value
