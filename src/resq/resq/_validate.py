"""Argument checks shared by the client, ``poll`` and the pollers.

Every check raises before anything is sent, with a message naming the parameter.
"""

from __future__ import annotations

import math
import re
from typing import Any


def _type_name(value: Any) -> str:
    return type(value).__name__


MAX_SECONDS = 1_000_000_000
"""The longest timeout, delay or window resq accepts, in seconds (about 31.7 years).

Longer waits overflow the platform's timers (``time.sleep``, socket timeouts) some time after
the first request was sent; a bound checked up front fails before anything is sent."""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 24 else f"{text[:12]}...({len(text)} characters)"


def number(
    where: str,
    name: str,
    value: Any,
    *,
    positive: bool = False,
    signed: bool = False,
    maximum: float | None = None,
    kind: str = "a number of seconds",
) -> float:
    """Return ``value`` as a float if it is a finite real number ``>= 0`` (``> 0`` if positive,
    of either sign if ``signed``) and at most ``maximum``.

    ``bool`` is rejected although it is an ``int`` subclass: ``timeout=True`` is a bug. An
    ``int`` too large for a float (``10**400``) is a ``ValueError``, not an ``OverflowError``.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{where}: {name} must be {kind}, got {_type_name(value)}")
    try:
        result = float(value)
    except OverflowError:
        result = math.inf
    if not math.isfinite(result):
        raise ValueError(f"{where}: {name} must be a finite number, got {_shown(value)}")
    if positive and result <= 0:
        raise ValueError(f"{where}: {name} must be > 0, got {value!r}")
    if result < 0 and not signed:
        raise ValueError(f"{where}: {name} must be >= 0, got {value!r}")
    if maximum is not None and result > maximum:
        raise ValueError(
            f"{where}: {name} must be at most {maximum:.0f} seconds (about "
            f"{maximum / 31_557_600:.1f} years), got {_shown(value)}"
        )
    return result


def seconds(where: str, name: str, value: Any, *, positive: bool = False) -> float:
    """A number of seconds from 0 (excluded if ``positive``) to :data:`MAX_SECONDS`."""
    return number(where, name, value, positive=positive, maximum=MAX_SECONDS)


def optional_seconds(where: str, name: str, value: Any, *, positive: bool = False) -> float | None:
    """Like :func:`seconds` but ``None`` passes through."""
    return None if value is None else seconds(where, name, value, positive=positive)


# A method is an HTTP token (RFC 9110, section 5.6.2): no space, no control character.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+\Z")


def method(where: str, value: Any) -> str:
    """Return ``value`` if it is an HTTP method name (a token such as ``GET`` or ``PURGE``)."""
    text(where, "method", value)
    if not _TOKEN.match(value):
        raise ValueError(
            f"{where}: method must be an HTTP method name such as 'GET' or 'POST' (letters, "
            f"digits and !#$%&'*+.^_`|~-, no spaces), got {value!r}"
        )
    return str(value)


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
