"""The component explorer's page (mounted by :class:`hedron.Hedron` only when
``explorer="development"``)."""

from __future__ import annotations

from hedron_core.explorer import explorer_page

__all__ = ["EXPLORER_NAME", "EXPLORER_PATH", "hedron_explorer"]

#: Where the explorer lives, and its route's name.
EXPLORER_PATH = "/_hedron/explorer"
EXPLORER_NAME = "hedron-explorer"


async def hedron_explorer() -> object:
    """The explorer page: every component, rendered."""
    return explorer_page()
