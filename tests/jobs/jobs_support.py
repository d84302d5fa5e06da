"""Constants shared by the jobs tests."""

from __future__ import annotations

import secrets

# A random session secret of the recommended length (no placeholder warnings in tests).
JOBS_SECRET = secrets.token_urlsafe(48)
