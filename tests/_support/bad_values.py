"""Bad values for the constructor properties, and the rule every constructor must follow.

The rule (:func:`refused_or_works`): given one bad value for one parameter, a constructor
either raises ``TypeError``/``ValueError`` whose message names that parameter, or accepts the
value and the object then works (renders, serves, sends, stores) without any error. A value
that is accepted and breaks later (an ``OverflowError`` at the first request, a 500 on every
page) breaks the rule, and so does an error that does not say what was wrong.

``JUNK`` draws (for hypothesis) from wrong types, out-of-range and non-finite numbers, blank
and tricky text, containers, classes and callables; half of its draws come from
:data:`TRICKY`, the values that broke constructors before (``10**400``, NaN, lone
surrogates, paths that are not paths, ...). :func:`sweep` also tries every ``TRICKY`` value
on every parameter, so none of them is left to chance. Parameters that take a callable draw
from :data:`NOT_CALLABLE` (what a valid callable does once called is the caller's code).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from hypothesis import strategies as st

T = TypeVar("T")

#: Values that broke constructors before: drawn as often as everything else together.
TRICKY: list[Any] = [
    *(0, -1, 1, 2**31, 2**63, 10**30, 10**400, -(10**400)),
    *(math.nan, math.inf, -math.inf, 1e308, -1e308, -0.0, 5e-324, 0.5, 1e10),
    *("", " ", "\n", "\x00", "\x1d", "\xa0", "\ud800", "a\udcffb", "a b", "-1", "nan"),
    *("//evil.example", "/a b", "/a\\b", "javascript:alert(1)", "<script>x</script>"),
    *("x" * 300, "GET", "/", "{x}", "?", "#", "http://h/"),
    *(None, True, False, b"x", [], [1], (), {}, {"": 1}, object(), object, type, int, str),
]
_RANDOM = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.binary(max_size=4),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
_CALLABLES = st.sampled_from([print, len, lambda *a, **k: None])


def _half_tricky(rest: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.booleans().flatmap(lambda tricky: st.sampled_from(TRICKY) if tricky else rest)


#: Any bad (or merely odd) value.
JUNK = _half_tricky(st.one_of(_RANDOM, _CALLABLES))
#: The same without callables, for parameters whose valid values are callables.
NOT_CALLABLE = _half_tricky(_RANDOM).filter(lambda v: not callable(v))


def deeply_nested(depth: int = 100_000) -> list[Any]:
    """``[[[...]]]``, ``depth`` lists deep: deeper than Python's recursion limit."""
    root: list[Any] = []
    node = root
    for _ in range(depth):
        child: list[Any] = []
        node.append(child)
        node = child
    return root


def sweep(
    build: Callable[[str, Any], T],
    use: Callable[[T], object],
    params: list[str] | tuple[str, ...],
    *,
    callables: frozenset[str] = frozenset(),
) -> int:
    """Apply :func:`refused_or_works` to every ``TRICKY`` value on every parameter
    (``build(param, value)`` makes the object); return how many values were accepted."""
    accepted = 0
    for param in params:
        for value in TRICKY:
            if param in callables and callable(value):
                continue
            accepted += refused_or_works(partial(build, param, value), use, param, value)
    return accepted


def refused_or_works(
    build: Callable[[], T], use: Callable[[T], object], param: str, value: Any
) -> bool:
    """Apply the rule to ``build()`` (which passes ``value`` as ``param``); ``True`` if the
    value was accepted (and ``use`` then ran without error)."""
    try:
        made = build()
    except (TypeError, ValueError) as exc:
        if param not in str(exc):
            raise AssertionError(f"{param}={value!r} refused without naming it: {exc!r}") from exc
        return False
    try:
        use(made)
    except Exception as exc:
        raise AssertionError(f"{param}={value!r} was accepted, then failed: {exc!r}") from exc
    return True
