"""A snapshot of a request, taken at call time, that ``reload()`` replays.

The keyword arguments are copied when the verb is called (containers recursively, ``json``
deeply), and copied again for every send, so neither later changes to the dicts you passed nor
anything an engine does to its arguments can change what a reload sends. A one-shot body (a
file, a generator or any iterator) cannot be replayed: polling rejects it up front and
``reload()`` refuses it instead of silently sending an empty body.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

_BODY_PARAMS = ("data", "files", "content")


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_copy(v) for v in value)
    if isinstance(value, bytearray | set):
        return value.copy()
    if isinstance(value, Mapping) and hasattr(value, "copy"):
        return value.copy()  # CaseInsensitiveDict, httpx.Headers, cookie jars, ...
    return value


def _is_one_shot(value: Any, depth: int = 0) -> bool:
    if isinstance(value, str | bytes | bytearray | memoryview | int | float) or value is None:
        return False
    if hasattr(value, "read") or isinstance(value, Iterator | AsyncIterable):
        return True
    if depth < 3 and isinstance(value, Mapping):
        return any(_is_one_shot(v, depth + 1) for v in value.values())
    if depth < 3 and isinstance(value, list | tuple):
        return any(_is_one_shot(v, depth + 1) for v in value)
    return False


@dataclass(frozen=True, slots=True)
class RequestSnapshot:
    """Method, full URL and a private copy of the engine keyword arguments."""

    method: str
    url: str
    kwargs: Mapping[str, Any]
    one_shot: str | None = None  # the name of the parameter holding a one-shot body
    #: What an engine derived from ``url`` (its parsed form), as ``(url, derived)``; kept
    #: here so that every attempt of a poll parses its URL once.
    engine_url: tuple[str, Any] | None = field(default=None, compare=False, repr=False)

    def replay_kwargs(self) -> dict[str, Any]:
        """A fresh copy of the keyword arguments for one send."""
        return {k: copy.deepcopy(v) if k == "json" else _copy(v) for k, v in self.kwargs.items()}

    def require_replayable(self, where: str) -> None:
        """Raise ``ValueError`` if the body cannot be sent twice."""
        if self.one_shot is not None:
            raise ValueError(
                f"{where}: the request body passed as {self.one_shot}= is a one-shot stream "
                "(a file, generator or iterator) that cannot be sent again; pass bytes, str, "
                "a dict or a list to make the request replayable"
            )


def take_snapshot(
    method: str, url: str, kwargs: Mapping[str, Any], *, where: str = "request()"
) -> RequestSnapshot:
    """Copy ``kwargs`` now and remember whether the body can be replayed.

    Raises:
        ValueError: an argument is nested too deeply to copy (naming it).
    """
    one_shot = next((p for p in _BODY_PARAMS if p in kwargs and _is_one_shot(kwargs[p])), None)
    private: dict[str, Any] = {}
    for k, v in kwargs.items():
        try:
            if k in _BODY_PARAMS and one_shot == k:
                private[k] = v
            else:
                private[k] = copy.deepcopy(v) if k == "json" else _copy(v)
        except RecursionError:
            raise ValueError(
                f"{where}: {k}= is nested too deeply to copy (and to send); flatten it"
            ) from None
    return RequestSnapshot(method, url, private, one_shot)
