"""Shared constants for the hedron tests (a uniquely named module: ``conftest`` is ambiguous
when several test folders are collected together)."""

from __future__ import annotations

import secrets
from pathlib import Path

from hedron_core.security import is_weak_secret

ROOT = Path(__file__).resolve().parents[2]


def strong_secret() -> str:
    """A random session secret no profile refuses (random text can contain "dev", "test"…)."""
    while True:
        candidate = secrets.token_urlsafe(48)
        if not is_weak_secret(candidate):
            return candidate


#: A session secret strong enough for every profile (tests must not warn by accident).
SECRET = strong_secret()
