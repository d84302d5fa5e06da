"""The whole HTTP surface: the clients, ``poll``, the steppable pollers, the response wrappers
and records.

Example:
    >>> from resq.http import Requests, Session, poll, Response, AsyncResponse, Attempt
"""

from __future__ import annotations

from resq._client import Requests, Session
from resq._errors import ClientClosedError, PollTimeout
from resq._policy import Attempt
from resq._poller import AsyncPoller, Poller, poll
from resq._responses import AsyncResponse, BaseResponse, Response

__all__ = [
    "AsyncPoller",
    "AsyncResponse",
    "Attempt",
    "BaseResponse",
    "ClientClosedError",
    "PollTimeout",
    "Poller",
    "Requests",
    "Response",
    "Session",
    "poll",
]
