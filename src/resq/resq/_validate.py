"""Argument checks shared by the client, ``poll`` and the pollers.

Every check raises before anything is sent, with a message naming the parameter.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping
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


# -- the engine keyword arguments of a verb -----------------------------------------------------

#: The verbs' own keyword arguments (for the hint when a keyword is misspelt).
_OWN = frozenset(
    {"timeout", "delay", "until", "max_attempts", "backoff", "max_delay", "jitter"}
    | {"retry_after", "raise_on_timeout", "on_attempt", "clock"}
)
_SCALARS = (str, int, float)  # bool is an int: both engines send it as text
#: What a header value may hold: visible ASCII, spaces and tabs (what both engines send).
_HEADER_VALUE = re.compile(r"[\x20-\x7e\t]*\Z")


def engine_kwargs(where: str, adapter: str, allowed: frozenset[str], kwargs: Any) -> None:
    """Refuse a keyword the engine's request call does not take, and ``params``/``headers``
    that either engine would refuse deep inside or send changed, before anything is sent."""
    for name in kwargs:
        if name not in allowed:
            close = difflib.get_close_matches(name, sorted(allowed | _OWN), n=1)
            hint = f"; did you mean {close[0]}=?" if close else ""
            raise TypeError(
                f"{where}: unexpected keyword argument {name!r} for adapter={adapter!r} "
                f"(it takes {', '.join(sorted(allowed))}){hint}"
            )
    params_and_headers(where, adapter, kwargs)


def params_and_headers(where: str, adapter: str, options: Any) -> None:
    """Check the ``params`` and ``headers`` of a verb or of a client's options."""
    if options.get("params") is not None:
        _params(where, options["params"])
    if options.get("headers") is not None:
        _headers(where, options["headers"], pairs_too=adapter == "httpx")


def _items(where: str, name: str, value: Any, *, pairs_too: bool, query: str = "") -> list[Any]:
    """The ``(name, value)`` items of a mapping (or, where allowed, of a list of pairs)."""
    if isinstance(value, Mapping):
        return list(value.items())
    if pairs_too and isinstance(value, list | tuple):
        for item in value:
            if not isinstance(item, list | tuple) or len(item) != 2:
                raise TypeError(
                    f"{where}: {name} given as a list must hold (name, value) pairs, "
                    f"got {_shown(item)}"
                )
        return list(value)
    wanted = "a dict or a list of (name, value) pairs" if pairs_too else "a dict"
    raise TypeError(f"{where}: {name} must be {wanted}{query}, got {_type_name(value)}")


def _params(where: str, value: Any) -> None:
    if isinstance(value, str):  # a query string
        _utf8(where, "params", value)
        return
    if isinstance(value, bytes):
        if not value.isascii():
            raise ValueError(f"{where}: params given as bytes must be ASCII (a query string)")
        return
    for key, item in _items(where, "params", value, pairs_too=True, query=" or a query string"):
        if not isinstance(key, str):
            raise TypeError(f"{where}: params names must be str, got {_shown(key)}")
        shown = f"params[{_shown(_utf8(where, 'params names', key))}]"
        for one in item if isinstance(item, list | tuple) else [item]:
            if one is not None and not isinstance(one, _SCALARS):
                raise TypeError(
                    f"{where}: {shown} must be a str, a number or a list of them, "
                    f"got {_type_name(one)}"
                )
            if isinstance(one, str):
                _utf8(where, shown, one)


def _utf8(where: str, name: str, text: str) -> str:
    """``text``, if it can be sent as UTF-8 (no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{where}: {name} holds a lone surrogate at index {exc.start}, which cannot be sent"
        ) from None
    return text


def _headers(where: str, value: Any, *, pairs_too: bool) -> None:
    for key, item in _items(where, "headers", value, pairs_too=pairs_too):
        name = key.decode("latin-1") if isinstance(key, bytes) else key
        if not isinstance(name, str):
            raise TypeError(f"{where}: headers names must be str, got {_shown(key)}")
        if not _TOKEN.match(name):
            raise ValueError(
                f"{where}: headers name {_shown(key)} is not a header name (letters, digits "
                "and !#$%&'*+.^_`|~-, no spaces)"
            )
        shown = f"headers[{_shown(key)}]"
        if not isinstance(item, str | bytes):
            raise TypeError(f"{where}: {shown} must be a str, got {_type_name(item)}")
        text = item.decode("latin-1") if isinstance(item, bytes) else item
        if not _HEADER_VALUE.match(text) or text[:1] in (" ", "\t"):
            raise ValueError(
                f"{where}: {shown} must be ASCII text without line breaks or control "
                "characters, and not start with a space"
            )
