"""Shared constants for the hedron tests (a uniquely named module: ``conftest`` is ambiguous
when several test folders are collected together)."""

from __future__ import annotations

import secrets
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


#: A session secret strong enough for every profile (tests must not warn by accident).
SECRET = secrets.token_urlsafe(48)


def page_token(html: str) -> str:
    """The CSRF token a hedron page carries (in ``hx-headers``), as htmx would send it."""
    import re

    match = re.search(r"X-CSRF-Token&quot;:&quot;([A-Za-z0-9_-]+)&quot;", html)
    assert match, "the page carries no CSRF token"
    return match.group(1)
