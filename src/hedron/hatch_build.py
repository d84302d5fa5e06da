"""Build hook: put htmx (from the pinned npm package) into the wheel.

The file is fetched at build time with ``npm pack`` (see ``scripts/npm_fetch.py`` in the
repository) into ``hedron/static/vendor/`` which git ignores; it is never committed.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

HERE = Path(__file__).resolve().parent
VENDOR = HERE / "hedron" / "static" / "vendor"
HTMX_SPEC = "htmx.org@2.0.11"
HTMX_FILE = "htmx.min.js"


def _is_pinned_version(path: Path) -> bool:
    """``True`` when ``path`` holds the htmx build named by :data:`HTMX_SPEC`."""
    version = HTMX_SPEC.rsplit("@", 1)[1]
    return f'version:"{version}"'.encode() in path.read_bytes()


def ensure_htmx() -> Path:
    """Make sure ``hedron/static/vendor/htmx.min.js`` holds the pinned htmx, fetching it if
    it is missing or another version."""
    target = VENDOR / HTMX_FILE
    if target.exists() and _is_pinned_version(target):
        return target
    fetcher = HERE.parent.parent / "scripts" / "npm_fetch.py"
    if not fetcher.exists():
        raise RuntimeError(f"{target} is missing and scripts/npm_fetch.py is not beside this tree")
    spec = importlib.util.spec_from_file_location("npm_fetch", fetcher)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {fetcher}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.extract(HTMX_SPEC, [f"dist/{HTMX_FILE}"], VENDOR)
    if not _is_pinned_version(target):
        raise RuntimeError(f"{target} does not hold {HTMX_SPEC}")
    return target


class CustomBuildHook(BuildHookInterface):  # type: ignore[misc]
    """Fetch htmx before the wheel (regular or editable) is assembled."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        ensure_htmx()
