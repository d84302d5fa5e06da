"""htmx conventions used by hedron: the poll stop rule, the locked-down config, validators.

**The stop rule.** An endpoint polled by :class:`~hedron_core.components.Poll` answers
``HTTP 286`` (:data:`STOP_POLLING_STATUS`) once the work is finished. htmx swaps that last
answer into the polling element like any other, then cancels the poll: no further requests.
Any other 2xx answer is swapped and polling continues.
"""

from __future__ import annotations

import json
import re
from typing import Final

__all__ = [
    "HTMX_CONFIG",
    "MAX_INTERVAL_MS",
    "METHODS",
    "STOP_POLLING_STATUS",
    "SWAPS",
    "check_interval_ms",
    "check_method",
    "check_swap",
    "check_target",
    "htmx_config_json",
]

#: Status code that ends polling (htmx's own convention): swap this answer, then stop.
STOP_POLLING_STATUS: Final = 286

#: The longest poll interval: browsers keep timer delays in a signed 32-bit number of
#: milliseconds (about 24.8 days); a longer ``every ...ms`` overflows and fires at once, over
#: and over.
MAX_INTERVAL_MS: Final = 2**31 - 1

#: HTTP methods a ``ComponentRef`` may use.
METHODS: Final = ("GET", "POST", "PUT", "PATCH", "DELETE")

#: ``hx-swap`` styles hedron accepts.
SWAPS: Final = (
    "innerHTML",
    "outerHTML",
    "beforebegin",
    "afterbegin",
    "beforeend",
    "afterend",
    "none",
)

#: The htmx configuration every hedron page ships in ``<meta name="htmx-config">``:
#: no ``eval`` (so no ``hx-on``/``js:``), no script execution from swapped HTML, requests to
#: the page's own origin only, no inline indicator ``<style>`` (the CSP forbids it) and no
#: history snapshots in local storage.
HTMX_CONFIG: Final[dict[str, object]] = {
    "allowEval": False,
    "allowScriptTags": False,
    "selfRequestsOnly": True,
    "includeIndicatorStyles": False,
    "historyCacheSize": 0,
    "historyRestoreAsHxRequest": False,
    "withCredentials": False,
}


def htmx_config_json() -> str:
    """Return :data:`HTMX_CONFIG` as compact JSON (stable key order)."""
    return json.dumps(HTMX_CONFIG, separators=(",", ":"))


def check_interval_ms(value: object, *, where: str) -> int:
    """Validate a poll interval: an ``int`` from 1 to :data:`MAX_INTERVAL_MS` milliseconds.

    Example:
        >>> check_interval_ms(2000, where="Poll.interval_ms")
        2000
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where} must be an int (milliseconds), got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{where} must be >= 1, got {value}")
    if value > MAX_INTERVAL_MS:
        raise ValueError(
            f"{where} must be at most {MAX_INTERVAL_MS} (the browser's longest timer, about "
            f"24.8 days; a longer one fires at once, over and over), got {value}"
        )
    return value


def check_method(value: object, *, where: str) -> str:
    """Normalize and validate an HTTP method (``"get"`` → ``"GET"``)."""
    if not isinstance(value, str):
        raise TypeError(f"{where} must be a str, got {type(value).__name__}")
    method = value.upper()
    if method not in METHODS:
        raise ValueError(f"{where} must be one of {', '.join(METHODS)}; got {value!r}")
    return method


def check_swap(value: object, *, where: str) -> str:
    """Validate an ``hx-swap`` style."""
    if value not in SWAPS:
        raise ValueError(f"{where} must be one of {', '.join(SWAPS)}; got {value!r}")
    assert isinstance(value, str)
    return value


_SIMPLE_SELECTOR = re.compile(r"^(?:[a-z][a-z0-9]*)?(?:[#.][A-Za-z][A-Za-z0-9_-]*)*\Z")


def check_target(value: object, *, where: str) -> str:
    """Validate an ``hx-target``: ``this``, ``#id``, ``.class``, or ``closest``/``find``
    followed by a simple selector (tag, ``#id``, ``.class`` chained).

    Example:
        >>> check_target("closest .card", where="ComponentRef.target")
        'closest .card'
    """
    if not isinstance(value, str):
        raise TypeError(f"{where} must be a str, got {type(value).__name__}")
    if value == "this":
        return value
    selector = value
    for keyword in ("closest ", "find ", "next ", "previous "):
        if value.startswith(keyword):
            selector = value[len(keyword) :]
            break
    if not selector or not _SIMPLE_SELECTOR.match(selector):
        raise ValueError(
            f"{where} must be 'this', '#id', '.class' or 'closest <selector>' with a simple "
            f"selector; got {value!r}"
        )
    return value
