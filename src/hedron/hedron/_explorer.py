"""Mount the component explorer (only when ``explorer="development"``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hedron_core.explorer import explorer_page

if TYPE_CHECKING:
    from hedron._app import Hedron

__all__ = ["EXPLORER_PATH", "mount_explorer"]

#: Where the explorer lives.
EXPLORER_PATH = "/_hedron/explorer"


def mount_explorer(app: Hedron) -> None:
    """Add the explorer page route to ``app``."""

    @app.page(EXPLORER_PATH, name="hedron-explorer")
    async def hedron_explorer() -> object:
        return explorer_page()
