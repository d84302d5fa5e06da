"""Build hook: the wheel carries htmx, the version pinned in ``pyproject.toml``.

htmx is third-party and never committed: the repository's ``scripts/bootstrap`` fetches it from
the pinned npm package into ``hedron/static/vendor/`` (git-ignored), and this hook refuses to
build a wheel without it, or with another version.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

HERE = Path(__file__).resolve().parent
HTMX = HERE / "hedron" / "static" / "vendor" / "htmx.min.js"


def htmx_spec() -> str:
    """The pinned npm package, ``htmx.org@VERSION`` (``[tool.hedron.vendor] htmx``)."""
    data = tomllib.loads((HERE / "pyproject.toml").read_text(encoding="utf-8"))
    return str(data["tool"]["hedron"]["vendor"]["htmx"])


class CustomBuildHook(BuildHookInterface):  # type: ignore[misc]
    """Refuse to assemble a wheel (regular or editable) without the pinned htmx."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        spec = htmx_spec()
        wanted = f'version:"{spec.rsplit("@", 1)[1]}"'.encode()
        if not HTMX.is_file() or wanted not in HTMX.read_bytes():
            raise RuntimeError(
                f"{HTMX} must hold {spec}: run scripts/bootstrap, which fetches it "
                "(python -m docsite.vendor)"
            )
