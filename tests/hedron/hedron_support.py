"""Shared constants for the hedron tests (a uniquely named module: ``conftest`` is ambiguous
when several test folders are collected together)."""

from __future__ import annotations

import secrets
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


#: A session secret strong enough for every profile (tests must not warn by accident).
SECRET = secrets.token_urlsafe(48)
