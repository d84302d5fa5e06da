"""Tones shared by ``Status``, ``Alert`` and ``Badge``."""

from __future__ import annotations

from typing import Final, Literal

Tone = Literal["neutral", "info", "success", "warning", "error"]

#: Allowed tones, in display order.
TONES: Final[tuple[Tone, ...]] = ("neutral", "info", "success", "warning", "error")
