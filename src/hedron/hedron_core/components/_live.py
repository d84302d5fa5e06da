"""Server-driven components: ``ComponentRef``, ``Poll``, ``Lazy``, ``RefreshButton``."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Literal

from hedron_core._base import Child, Component, RenderContext, check_id, check_logical_id, dom_id
from hedron_core._html import Html, check_url, element
from hedron_core._props import check_child, check_choice, check_str
from hedron_core.components._feedback import Loading, Status
from hedron_core.htmx import METHODS, check_interval_ms, check_method, check_swap, check_target

__all__ = ["ComponentRef", "Lazy", "Poll", "RefreshButton"]

Scalar = str | int | float | bool
_HX_VERB = {method: f"hx-{method.lower()}" for method in METHODS}


class ComponentRef(Component):
    """A reference to a server-rendered component: where it lives and how to fetch it.

    ``Poll``, ``Lazy``, ``RefreshButton`` and ``Button`` take a ``ComponentRef``; rendered on
    its own it is an empty region that loads the component once the page loads.

    Args:
        logical_id: Stable name of the component: an element id (``job-status``) or dotted
            names (``activity.latest``). The element it fills has the id :attr:`dom_id`: the
            logical id with each ``.`` turned into ``-`` (``activity-latest``).
        path: Root-relative URL answering with the component's HTML fragment.
        method: ``GET``, ``POST``, ``PUT``, ``PATCH`` or ``DELETE``.
        target: Where to swap the answer (``this``, ``#id``, ``closest .x``); default: the
            element carrying the request (for buttons: the element ``#dom_id``).
        swap: ``innerHTML`` (default), ``outerHTML``, ``beforeend``, … or ``none``.
        vals: Extra request parameters (sent as ``hx-vals`` JSON).

    Example:
        >>> ref = ComponentRef(logical_id="job-status", path="/jobs/7/status", method="GET")
        >>> ref.hx_attrs()
        {'hx-get': '/jobs/7/status', 'hx-swap': 'innerHTML'}
        >>> ComponentRef("activity.latest", "/activity").dom_id
        'activity-latest'
    """

    _fields = ("logical_id", "path", "method", "target", "swap", "vals")
    logical_id: str
    path: str
    method: str
    target: str | None
    swap: str
    vals: Mapping[str, Scalar] | None
    #: The element id: ``logical_id`` with each ``.`` turned into ``-``.
    dom_id: str

    def __init__(
        self,
        logical_id: str,
        path: str,
        method: str = "GET",
        *,
        target: str | None = None,
        swap: str = "innerHTML",
        vals: Mapping[str, Scalar] | None = None,
    ) -> None:
        if vals is not None:
            if not isinstance(vals, Mapping):
                raise TypeError(f"ComponentRef.vals must be a mapping, got {type(vals).__name__}")
            for key, val in vals.items():
                check_str(key, where="ComponentRef.vals key")
                if not isinstance(val, (str, int, float, bool)):
                    raise TypeError(
                        f"ComponentRef.vals[{key!r}] must be str, int, float or bool, "
                        f"got {type(val).__name__}"
                    )
                if isinstance(val, float) and not math.isfinite(val):
                    raise ValueError(
                        f"ComponentRef.vals[{key!r}] must be a finite number (JSON has no "
                        f"NaN or infinity), got {val!r}; send it as a str instead"
                    )
            vals = dict(vals)
        self._set(
            logical_id=check_logical_id(logical_id, where="ComponentRef.logical_id"),
            path=check_url(path, where="ComponentRef.path"),
            method=check_method(method, where="ComponentRef.method"),
            target=None if target is None else check_target(target, where="ComponentRef.target"),
            swap=check_swap(swap, where="ComponentRef.swap"),
            vals=vals,
        )
        self._set(dom_id=dom_id(self.logical_id))

    def hx_attrs(self, *, default_target: str | None = None) -> dict[str, str | None]:
        """The ``hx-*`` attributes that issue this reference's request."""
        attrs: dict[str, str | None] = {_HX_VERB[self.method]: self.path}
        target = self.target or default_target
        if target:
            attrs["hx-target"] = target
        attrs["hx-swap"] = self.swap
        if self.vals:
            attrs["hx-vals"] = json.dumps(
                self.vals, separators=(",", ":"), sort_keys=True, allow_nan=False
            )
        return attrs

    def render(self, ctx: RenderContext) -> Html:
        ctx.claim_id(self.dom_id, where="ComponentRef.logical_id")
        attrs: dict[str, str | None] = {"id": self.dom_id, "class": "h-ref"}
        attrs.update(self.hx_attrs(default_target="this"))
        attrs["hx-trigger"] = "load"
        return element("div", attrs)

    @classmethod
    def example(cls) -> ComponentRef:
        return cls(logical_id="job-status", path="/jobs/7/status", method="GET")


def _check_ref(value: object, *, where: str) -> ComponentRef:
    if not isinstance(value, ComponentRef):
        raise TypeError(f"{where} must be a ComponentRef, got {type(value).__name__}")
    return value


def _fetching_region(
    ctx: RenderContext,
    ref: ComponentRef,
    *,
    where: str,
    css: str,
    trigger: str,
    content: Child | None,
    extra: dict[str, str] | None = None,
) -> Html:
    """The ``<div id=dom_id>`` that fetches ``ref`` on ``trigger`` (``Poll``, ``Lazy``)."""
    ctx.claim_id(ref.dom_id, where=where)
    attrs: dict[str, str | None] = {"id": ref.dom_id, "class": css}
    attrs.update(ref.hx_attrs(default_target="this"))
    attrs["hx-trigger"] = trigger
    if extra:
        attrs.update(extra)
    if content is None:
        content = Loading()
    inner = content.render(ctx) if isinstance(content, Component) else content
    return element("div", attrs, [inner])


_DROP_TICKS = {"hx-sync": "this:drop"}


class Poll(Component):
    """An element that fetches ``ref`` every ``interval_ms`` and swaps in the answer.

    **Stop rule:** when the endpoint answers ``HTTP 286``
    (:data:`hedron_core.htmx.STOP_POLLING_STATUS`) htmx swaps that final answer and stops
    polling. Any other 2xx answer is swapped and polling goes on. A ``404`` or ``410``
    answer (what it watches is gone) stops polling too: hedron's page script replaces the
    element with a still copy reading "Not found." or "No longer available." Other error
    answers (a 5xx while a server restarts) are not swapped and polling continues. Ticks
    that fall while a request is in flight are dropped (``hx-sync="this:drop"``), so no
    request is ever sent after the 286 answer.

    Args:
        ref: What to fetch (its ``dom_id`` becomes the element id).
        interval_ms: Milliseconds between requests, from 1 to
            :data:`~hedron_core.htmx.MAX_INTERVAL_MS` (``2**31 - 1``, the browser's longest
            timer).
        content: What to show before the first answer (default: ``Loading()``).

    Example:
        >>> ref = ComponentRef(logical_id="job-status", path="/jobs/7/status")
        >>> render(Poll(ref=ref, interval_ms=2000, content=Status("Queued…")))  # doctest: +ELLIPSIS
        '<div id="job-status" class="h-poll" hx-ge...s" aria-live="polite">Queued…</div></div>'
    """

    _fields = ("ref", "interval_ms", "content")
    ref: ComponentRef
    interval_ms: int
    content: Child | None

    def __init__(
        self, *, ref: ComponentRef, interval_ms: int, content: Child | None = None
    ) -> None:
        self._set(
            ref=_check_ref(ref, where="Poll.ref"),
            interval_ms=check_interval_ms(interval_ms, where="Poll.interval_ms"),
            content=None if content is None else check_child(content, where="Poll.content"),
        )

    def render(self, ctx: RenderContext) -> Html:
        return _fetching_region(
            ctx,
            self.ref,
            where="Poll.ref.logical_id",
            css="h-poll",
            trigger=f"every {self.interval_ms}ms",
            content=self.content,
            # A tick while a request is in flight is dropped, not queued: otherwise htmx
            # sends the queued request after the 286 answer, one past the end.
            extra=_DROP_TICKS,
        )

    @classmethod
    def example(cls) -> Poll:
        ref = ComponentRef(logical_id="job-status", path="/jobs/7/status")
        return cls(ref=ref, interval_ms=2000, content=Status("Queued…"))


class Lazy(Component):
    """Loads ``ref`` once, when the page loads or when the element scrolls into view.

    Args:
        ref: What to fetch (its ``dom_id`` becomes the element id).
        placeholder: Shown until the answer arrives (default: ``Loading()``).
        trigger: ``load`` (right away) or ``revealed`` (when scrolled into view).

    Example:
        >>> ref = ComponentRef(logical_id="report", path="/report")
        >>> render(Lazy(ref=ref, placeholder="…"))  # doctest: +ELLIPSIS
        '<div id="report" class="h-lazy" hx-get="/...wap="innerHTML" hx-trigger="load">…</div>'
    """

    _fields = ("ref", "placeholder", "trigger")
    ref: ComponentRef
    placeholder: Child | None
    trigger: Literal["load", "revealed"]

    def __init__(
        self,
        *,
        ref: ComponentRef,
        placeholder: Child | None = None,
        trigger: Literal["load", "revealed"] = "load",
    ) -> None:
        self._set(
            ref=_check_ref(ref, where="Lazy.ref"),
            placeholder=None
            if placeholder is None
            else check_child(placeholder, where="Lazy.placeholder"),
            trigger=check_choice(trigger, ("load", "revealed"), where="Lazy.trigger"),
        )

    def render(self, ctx: RenderContext) -> Html:
        return _fetching_region(
            ctx,
            self.ref,
            where="Lazy.ref.logical_id",
            css="h-lazy",
            trigger=self.trigger,
            content=self.placeholder,
        )

    @classmethod
    def example(cls) -> Lazy:
        return cls(ref=ComponentRef(logical_id="report", path="/report"))


class RefreshButton(Component):
    """A button that re-fetches ``ref`` into the element ``#<dom_id>``.

    Args:
        ref: What to fetch and where it lives.
        label: Button text.
        id: Optional id of the button.

    Example:
        >>> ref = ComponentRef(logical_id="stats", path="/stats")
        >>> render(RefreshButton(ref=ref))  # doctest: +ELLIPSIS
        '<button type="button" class="h-button h-s...ats" hx-swap="innerHTML">Refresh</button>'
    """

    _fields = ("ref", "label", "id")
    ref: ComponentRef
    label: str
    id: str | None

    def __init__(self, *, ref: ComponentRef, label: str = "Refresh", id: str | None = None) -> None:
        self._set(
            ref=_check_ref(ref, where="RefreshButton.ref"),
            label=check_str(label, where="RefreshButton.label"),
            id=check_id(id, where="RefreshButton.id"),
        )

    def render(self, ctx: RenderContext) -> Html:
        if self.id:
            ctx.claim_id(self.id, where="RefreshButton.id")
        attrs: dict[str, str | None] = {
            "type": "button",
            "class": "h-button h-secondary",
            "id": self.id,
        }
        attrs.update(self.ref.hx_attrs(default_target=f"#{self.ref.dom_id}"))
        return element("button", attrs, [self.label])

    @classmethod
    def example(cls) -> RefreshButton:
        return cls(ref=ComponentRef(logical_id="stats", path="/stats"))
