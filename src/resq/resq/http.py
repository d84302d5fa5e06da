"""The polling surface: ``poll``, the steppable pollers, the response wrappers and records.

Example:
    >>> from resq.http import poll, Poller, AsyncPoller, Response, AsyncResponse, Attempt
"""

from __future__ import annotations

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
    "Response",
    "poll",
]
