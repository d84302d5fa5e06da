"""Third-party files the libraries serve, fetched into their git-ignored ``vendor/`` folders.

hedron serves htmx from ``hedron/static/vendor/htmx.min.js``; the version is pinned in
``src/hedron/pyproject.toml`` (``[tool.hedron.vendor] htmx``), which hedron's build hook
checks. ``scripts/bootstrap`` runs ``python -m docsite.vendor`` before it installs hedron.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from docsite import npm
from docsite.paths import SRC

HEDRON = SRC / "hedron"
HTMX = HEDRON / "hedron" / "static" / "vendor" / "htmx.min.js"


def htmx_spec() -> str:
    """The pinned htmx package, ``htmx.org@VERSION``."""
    data = tomllib.loads((HEDRON / "pyproject.toml").read_text(encoding="utf-8"))
    return str(data["tool"]["hedron"]["vendor"]["htmx"])


def _holds(path: Path, spec: str) -> bool:
    return path.is_file() and f'version:"{spec.rsplit("@", 1)[1]}"'.encode() in path.read_bytes()


def ensure_htmx() -> Path:
    """``hedron/static/vendor/htmx.min.js`` holding the pinned htmx, fetched if it does not.

    Raises:
        RuntimeError: the fetched file is not the pinned version.
    """
    spec = htmx_spec()
    if not _holds(HTMX, spec):
        npm.extract(spec, [f"dist/{HTMX.name}"], HTMX.parent)
        if not _holds(HTMX, spec):
            raise RuntimeError(f"{HTMX} does not hold {spec}")
    return HTMX


if __name__ == "__main__":
    print(ensure_htmx().relative_to(SRC.parent))
    sys.exit(0)
