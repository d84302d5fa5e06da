"""Recipes are run by the "Try it" driver (``scripts/site/tryit``) and, for real, by
``scripts/site/replay``."""

from __future__ import annotations

import sys
from pathlib import Path

SITE_SCRIPTS = Path(__file__).resolve().parents[2] / "scripts" / "site"
if str(SITE_SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SITE_SCRIPTS))

from tests._support.live_server import live_server  # noqa: E402, F401
