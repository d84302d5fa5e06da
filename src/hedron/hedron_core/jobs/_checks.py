"""The checks every job backend (and the status helpers) run on their arguments.

One place for each rule, so the in-memory, SQLite and Redis backends refuse exactly the same
values with exactly the same messages, always before anything is stored. Each check raises
``TypeError`` (wrong type) or ``ValueError`` (wrong value) whose message starts with the
calling function and names the parameter: ``"claim: lease_s must be a finite number > 0 ..."``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection
from typing import Any, Final

__all__ = [
    "MAX_IDEMPOTENCY_KEY_LENGTH",
    "MAX_ID_LENGTH",
    "MAX_LEASE_S",
    "MAX_RETRY_AFTER_S",
    "check_encodable",
    "check_job_id",
    "check_job_types",
    "check_key",
    "check_lease",
    "check_number",
    "check_text",
    "dump_json",
    "is_job_id",
    "shown",
]

MAX_ID_LENGTH: Final = 1024
"""The longest job type, scope string (``auth_subject``, ``tenant_id``), worker name, job id
or key prefix a backend accepts, in characters."""

MAX_IDEMPOTENCY_KEY_LENGTH: Final = 255
"""The longest idempotency key a backend accepts, in characters."""

MAX_LEASE_S: Final = 1e9
"""The longest worker lease, in seconds (about 31.7 years: the bound of every other duration
of the runners and workers)."""

MAX_RETRY_AFTER_S: Final = 86_400
"""The largest ``retry_after_s`` of the status helpers, in seconds (one day)."""


def shown(value: object) -> str:
    """``repr(value)``, shortened (``10**400`` has 401 digits; a key may be 100,000 long)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
        return f"an int of about {int(value.bit_length() * 0.30103) + 1} digits"
    if isinstance(value, str) and len(value) > 40:
        return f"a str of {len(value):,} characters"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_encodable(value: str, name: str, owner: str) -> str:
    """Return ``value`` if it can be stored and served as UTF-8 (no lone surrogate)."""
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(
                f"{owner}: {name} holds a lone surrogate at index {exc.start}, which cannot be "
                "stored or sent as UTF-8; decode bytes with errors='replace' (or "
                "'backslashreplace') first"
            ) from None
    return value


def check_text(value: object, name: str, owner: str) -> str:
    """A ``str`` that is not blank and can be sent as UTF-8 (a label, a message)."""
    if not isinstance(value, str):
        raise TypeError(f"{owner}: {name} must be a str, got {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{owner}: {name} must be a non-empty string")
    return check_encodable(value, name, owner)


def check_key(value: object, name: str, owner: str, limit: int = MAX_ID_LENGTH) -> str:
    """What a backend stores and looks jobs up by (a job type, a scope string, a worker
    name, an idempotency key): :func:`check_text`, without a NUL, at most ``limit`` long."""
    text = check_text(value, name, owner)
    if len(text) > limit:
        raise ValueError(f"{owner}: {name} must be at most {limit:,} characters, got {shown(text)}")
    if "\x00" in text:
        raise ValueError(f"{owner}: {name} must not contain a NUL character ('\\x00')")
    return text


def is_job_id(value: object, owner: str) -> bool:
    """Whether ``value`` can be a job id; ``TypeError`` if it is not even a ``str``.

    Used by the reads (``get``, ``load``, ``request_cancel``): an id there often comes from a
    URL and may hold anything, and a string no job can have simply finds nothing.
    """
    if not isinstance(value, str):
        raise TypeError(f"{owner}: job_id must be a str, got {type(value).__name__}")
    if not 0 < len(value) <= MAX_ID_LENGTH or "\x00" in value:
        return False
    try:
        return value.isascii() or bool(value.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate
        return False


def check_job_id(value: object, owner: str) -> str:
    """A job id given to a worker-side call (``mark``, ``progress``, ``claim``, ``renew``):
    a non-empty ``str`` without a NUL, at most :data:`MAX_ID_LENGTH` long."""
    if not is_job_id(value, owner):
        raise ValueError(
            f"{owner}: job_id must be a non-empty str of at most {MAX_ID_LENGTH:,} characters "
            f"without a NUL or a lone surrogate, got {shown(value)}"
        )
    assert isinstance(value, str)
    return value


def check_job_types(value: object, owner: str) -> tuple[str, ...] | None:
    """``None`` (any type), or a collection of job types (each checked by :func:`check_key`)."""
    if value is None:
        return None
    if isinstance(value, str | bytes) or not isinstance(value, Collection):
        raise TypeError(
            f"{owner}: job_types must be a list (or set) of job types, or None; got "
            f"{type(value).__name__}" + (f" (write [{value!r}])" if isinstance(value, str) else "")
        )
    return tuple(check_key(t, "job_types", owner) for t in value)


def check_number(
    value: object,
    name: str,
    owner: str,
    *,
    positive: bool = False,
    negative: bool = False,
    maximum: float | None = None,
    infinite: str | None = None,
) -> float:
    """A number ``>= 0`` (``> 0`` if ``positive``, any sign if ``negative``), at most
    ``maximum``, never NaN; ``inf`` only when ``infinite`` says what it stands for (it is
    then named in the error: ``"math.inf to keep finished jobs"``).

    ``TypeError`` for a non-number (``bool`` included), ``ValueError`` otherwise, both naming
    ``owner`` and ``name``; an int too large for a float is a ``ValueError`` too.
    """
    text = shown(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{owner}: {name} must be a number of seconds, got {text}")
    try:
        number = float(value)
    except OverflowError:  # an int no float can hold
        number = math.inf
    wanted = "a finite number" + ("" if negative else " > 0" if positive else " >= 0")
    if infinite:
        wanted += f" (or math.inf to {infinite})"
    infinite_ok = bool(infinite) and number == math.inf and isinstance(value, float)
    if (
        math.isnan(number)
        or (math.isinf(number) and not infinite_ok)
        or (number < 0 and not negative)
        or (positive and number == 0)
    ):
        raise ValueError(f"{owner}: {name} must be {wanted}, got {text}")
    if maximum is not None and maximum < number < math.inf:
        raise ValueError(f"{owner}: {name} must be at most {maximum:,g} seconds, got {text}")
    return number


def check_lease(value: object, owner: str) -> float:
    """A worker lease: a finite number of seconds, ``> 0``, at most :data:`MAX_LEASE_S`."""
    return check_number(value, "lease_s", owner, positive=True, maximum=MAX_LEASE_S)


def dump_json(value: object, name: str, owner: str) -> str:
    """Serialise ``value`` to JSON that reads back as an equal value, or raise naming it.

    Refused (``TypeError``): what JSON cannot hold (an object, a set, bytes), NaN and the
    infinities, a dict key that is not a ``str`` (JSON would turn ``{1: 2}`` into
    ``{"1": 2}``) and a tuple (it would come back as a list). Refused (``ValueError``): text
    with a lone surrogate and values nested too deeply to serialise.
    """
    try:
        text = json.dumps(value, separators=(",", ":"), allow_nan=False, sort_keys=True)
        same = _same(value, json.loads(text))
    except RecursionError:
        raise ValueError(
            f"{owner}: {name} is nested too deeply to store as JSON; flatten it"
        ) from None
    except (TypeError, ValueError) as exc:  # what JSON cannot hold (NaN included)
        problem = _changed(value, name) or f"{name} must be JSON-serialisable ({exc})"
        raise TypeError(f"{owner}: {problem}") from None
    if "\\ud" in text:  # a surrogate escape: part of a pair (an emoji), or lone?
        check_encodable(json.dumps(value, ensure_ascii=False), name, owner)
    if not same:
        problem = _changed(value, name) or f"{name} does not read back as an equal value"
        raise TypeError(f"{owner}: {problem}; JSON would store it changed")
    return text


def _same(given: Any, stored: Any) -> bool:
    """``stored == given``, with the types JSON can tell apart kept apart."""
    if isinstance(given, bool) or isinstance(stored, bool):
        return type(given) is type(stored) and given == stored
    if isinstance(given, dict):
        return (
            isinstance(stored, dict)
            and len(given) == len(stored)
            and all(
                type(k) is str and k in stored and _same(v, stored[k]) for k, v in given.items()
            )
        )
    if isinstance(given, list):
        return (
            isinstance(stored, list)
            and len(given) == len(stored)
            and all(_same(g, s) for g, s in zip(given, stored, strict=True))
        )
    if isinstance(given, tuple):
        return False
    return bool(given == stored)


def _changed(value: Any, where: str) -> str:
    """Where (``payload['a'][0]``) and what JSON would change ("" if not found)."""
    try:
        return _find_change(value, where)
    except RecursionError:
        return ""


def _find_change(value: Any, where: str) -> str:
    if isinstance(value, dict):
        for key, item in value.items():
            if type(key) is not str:
                return (
                    f"{where} has the {type(key).__name__} key {shown(key)}; dict keys must be str"
                )
            found = _find_change(item, f"{where}[{key!r}]")
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _find_change(item, f"{where}[{index}]")
            if found:
                return found
    elif isinstance(value, tuple):
        return f"{where} is a tuple; use a list"
    else:
        try:
            stored = json.loads(json.dumps(value, allow_nan=False))
        except (TypeError, ValueError):
            return ""  # JSON's own message says what is wrong
        if not _same(value, stored):
            return f"{where} is {shown(value)}, which JSON reads back as {shown(stored)}"
    return ""
