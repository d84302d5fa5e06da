"""Feedback components: ``Status``, ``Alert``, ``Loading``, ``ProgressBar``."""

from __future__ import annotations

import math

from hedron_core._base import Component, RenderContext, check_id
from hedron_core._html import Html, element
from hedron_core._props import check_choice, check_str
from hedron_core.components._tones import TONES, Tone

__all__ = ["Alert", "Loading", "ProgressBar", "Status"]


class Status(Component):
    """A one-line status message, announced politely (``role="status"``, ``aria-live``).

    The natural content of a :class:`Poll` and the usual answer of a status endpoint.

    Args:
        text: The message.
        tone: ``neutral``, ``info``, ``success``, ``warning`` or ``error``.
        id: Optional element id.

    Example:
        >>> render(Status("Queued…"))
        '<div class="h-status h-tone-info" role="status" aria-live="polite">Queued…</div>'
    """

    _fields = ("text", "tone", "id")
    text: str
    tone: Tone
    id: str | None

    def __init__(self, text: str, *, tone: Tone = "info", id: str | None = None) -> None:
        self._set(
            text=check_str(text, where="Status.text"),
            tone=check_choice(tone, TONES, where="Status.tone"),
            id=check_id(id, where="Status.id"),
        )

    def render(self, ctx: RenderContext) -> Html:
        if self.id:
            ctx.claim_id(self.id, where="Status.id")
        attrs = {
            "class": f"h-status h-tone-{self.tone}",
            "id": self.id,
            "role": "status",
            "aria-live": "polite",
        }
        return element("div", attrs, [self.text])

    @classmethod
    def example(cls) -> Status:
        return cls("Export finished.", tone="success")


class Alert(Component):
    """A prominent message with an optional title (``role="alert"`` for warnings/errors).

    Args:
        text: The message.
        tone: ``neutral``, ``info``, ``success``, ``warning`` or ``error``.
        title: Optional bold first line.

    Example:
        >>> render(Alert("Disk almost full", tone="warning"))
        '<div class="h-alert h-tone-warning" role="alert"><p>Disk almost full</p></div>'
    """

    _fields = ("text", "tone", "title")
    text: str
    tone: Tone
    title: str | None

    def __init__(self, text: str, *, tone: Tone = "info", title: str | None = None) -> None:
        self._set(
            text=check_str(text, where="Alert.text"),
            tone=check_choice(tone, TONES, where="Alert.tone"),
            title=None if title is None else check_str(title, where="Alert.title"),
        )

    def render(self, ctx: RenderContext) -> Html:
        role = "alert" if self.tone in ("warning", "error") else "status"
        parts = []
        if self.title:
            parts.append(element("strong", {"class": "h-alert-title"}, [self.title]))
        parts.append(element("p", None, [self.text]))
        return element("div", {"class": f"h-alert h-tone-{self.tone}", "role": role}, parts)

    @classmethod
    def example(cls) -> Alert:
        return cls("The export failed: quota exceeded.", tone="error", title="Export failed")


class Loading(Component):
    """A busy indicator with a visible label.

    Args:
        label: Text shown next to the spinner.

    Example:
        >>> render(Loading())  # doctest: +ELLIPSIS
        '<div class="h-loading" role="status" aria... aria-hidden="true"></span>Loading…</div>'
    """

    _fields = ("label",)
    label: str

    def __init__(self, label: str = "Loading…") -> None:
        self._set(label=check_str(label, where="Loading.label"))

    def render(self, ctx: RenderContext) -> Html:
        spinner = element("span", {"class": "h-spinner", "aria-hidden": "true"})
        attrs = {"class": "h-loading", "role": "status", "aria-busy": "true"}
        return element("div", attrs, [spinner, self.label])

    @classmethod
    def example(cls) -> Loading:
        return cls("Fetching results…")


def _number(value: object, *, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where} must be a number, got {type(value).__name__}")
    try:
        number = float(value)
    except OverflowError:  # an int no float can hold
        digits = len(str(value))
        raise ValueError(f"{where} must be finite, got an int of {digits} digits") from None
    if not math.isfinite(number):
        raise ValueError(f"{where} must be finite, got {value!r}")
    return number


def _fmt(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


class ProgressBar(Component):
    """A native ``<progress>`` bar with a label; ``value=None`` means indeterminate.

    Args:
        value: Work done (``0 <= value <= max``), or ``None`` if unknown.
        max: Total amount of work (> 0).
        label: Visible label (defaults to ``"Progress"``).
        id: Optional id of the ``<progress>`` element (generated otherwise).

    Example:
        >>> render(ProgressBar(3, max=10, label="Rows"))  # doctest: +ELLIPSIS
        '<div class="h-progress"><label for="h-pro... max="10" value="3">3/10</progress></div>'
    """

    _fields = ("value", "max", "label", "id")
    value: float | None
    max: float
    label: str
    id: str | None

    def __init__(
        self,
        value: float | None,
        *,
        max: float = 100,
        label: str = "Progress",
        id: str | None = None,
    ) -> None:
        top = _number(max, where="ProgressBar.max")
        if top <= 0:
            raise ValueError(f"ProgressBar.max must be > 0, got {max!r}")
        done = None if value is None else _number(value, where="ProgressBar.value")
        if done is not None and not 0 <= done <= top:
            raise ValueError(
                f"ProgressBar.value must be between 0 and max ({max!r}), got {value!r}"
            )
        self._set(
            value=done,
            max=top,
            label=check_str(label, where="ProgressBar.label"),
            id=check_id(id, where="ProgressBar.id"),
        )

    def render(self, ctx: RenderContext) -> Html:
        pid = ctx.claim_id(self.id, where="ProgressBar.id") if self.id else ctx.auto_id("progress")
        label = element("label", {"for": pid}, [self.label])
        shown = "…" if self.value is None else f"{_fmt(self.value)}/{_fmt(self.max)}"
        value = None if self.value is None else _fmt(self.value)
        bar = element("progress", {"id": pid, "max": _fmt(self.max), "value": value}, [shown])
        return element("div", {"class": "h-progress"}, [label, bar])

    @classmethod
    def example(cls) -> ProgressBar:
        return cls(42, max=100, label="Import")
