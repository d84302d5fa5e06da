"""Exceptions raised by resq (re-exported from :mod:`resq.http`)."""

from __future__ import annotations

from typing import Any


class ClientClosedError(RuntimeError):
    """A request or ``reload()`` was attempted through a client that is already closed.

    resq never opens a new connection behind your back: create a new client instead.

    Example:
        >>> client.close()                  # doctest: +SKIP
        >>> r.reload()                      # doctest: +SKIP
        Traceback (most recent call last):
        resq.http.ClientClosedError: reload(): the client is closed; ...
    """


class PollTimeout(TimeoutError):
    """Polling ended without success and ``raise_on_timeout=True`` was passed.

    Attributes:
        response: the wrapper holding the LAST response (the same object that was polled).
        attempts: how many attempts were evaluated (the first response counts as one).

    Example:
        >>> try:                                                              # doctest: +SKIP
        ...     client.get("/job/42", timeout=30, delay=2, raise_on_timeout=True)
        ... except PollTimeout as exc:
        ...     print(exc.attempts, exc.response.status_code)
        16 503
    """

    def __init__(self, message: str, *, response: Any, attempts: int) -> None:
        super().__init__(message)
        self.response = response
        self.attempts = attempts
