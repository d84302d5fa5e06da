"""resq: a dual-mode HTTP client whose verbs poll until a success status arrives.

Example:
    >>> from resq import Requests, Session
    >>> from resq.http import poll
"""

from resq._client import Requests, Session

__all__ = ["Requests", "Session"]

__version__ = "1.1.0"
