"""Interactive components: ``Button``, ``Link``, ``Form``."""

from __future__ import annotations

from typing import Final, Literal

from hedron_core._base import Child, Component, RenderContext, check_id, render_children
from hedron_core._html import Html, check_url, element
from hedron_core._props import check_bool, check_children, check_choice, check_str
from hedron_core.components._live import ComponentRef
from hedron_core.htmx import check_swap, check_target

__all__ = ["Button", "Form", "Link"]

ButtonType = Literal["button", "submit", "reset"]
Variant = Literal["primary", "secondary", "danger"]
VARIANTS: Final[tuple[Variant, ...]] = ("primary", "secondary", "danger")

#: Name of the hidden form field carrying the CSRF token.
CSRF_FIELD: Final = "csrf_token"


class Button(Component):
    """A button; with ``ref`` it sends that request (htmx) and swaps the answer.

    Args:
        label: Button text.
        type: ``button``, ``submit`` or ``reset``.
        variant: ``primary``, ``secondary`` or ``danger``.
        ref: Optional request to send on click.
        disabled: Render disabled.
        id: Optional element id.

    Example:
        >>> render(Button("Save", type="submit"))
        '<button type="submit" class="h-button h-primary">Save</button>'
    """

    _fields = ("label", "type", "variant", "ref", "disabled", "id")
    label: str
    type: ButtonType
    variant: Variant
    ref: ComponentRef | None
    disabled: bool
    id: str | None

    def __init__(
        self,
        label: str,
        *,
        type: ButtonType = "button",
        variant: Variant = "primary",
        ref: ComponentRef | None = None,
        disabled: bool = False,
        id: str | None = None,
    ) -> None:
        if ref is not None and not isinstance(ref, ComponentRef):
            raise TypeError(f"Button.ref must be a ComponentRef, got {ref.__class__.__name__}")
        self._set(
            label=check_str(label, where="Button.label"),
            type=check_choice(type, ("button", "submit", "reset"), where="Button.type"),
            variant=check_choice(variant, VARIANTS, where="Button.variant"),
            ref=ref,
            disabled=check_bool(disabled, where="Button.disabled"),
            id=check_id(id, where="Button.id"),
        )

    def render(self, ctx: RenderContext) -> Html:
        if self.id:
            ctx.claim_id(self.id, where="Button.id")
        attrs: dict[str, str | bool | None] = {
            "type": self.type,
            "class": f"h-button h-{self.variant}",
            "id": self.id,
            "disabled": self.disabled,
        }
        if self.ref is not None:
            attrs.update(self.ref.hx_attrs(default_target=f"#{self.ref.dom_id}"))
        return element("button", attrs, [self.label])

    @classmethod
    def example(cls) -> Button:
        return cls("Start export", ref=ComponentRef("export", "/export", method="POST"))


class Link(Component):
    """A hyperlink. ``href`` must be root-relative (or a ``TrustedURL``).

    Args:
        text: Link text.
        href: Target URL.
        id: Optional element id.

    Example:
        >>> render(Link("Jobs", href="/jobs"))
        '<a class="h-link" href="/jobs">Jobs</a>'
    """

    _fields = ("text", "href", "id")
    text: str
    href: str
    id: str | None

    def __init__(self, text: str, *, href: str, id: str | None = None) -> None:
        self._set(
            text=check_str(text, where="Link.text"),
            href=check_url(href, where="Link.href"),
            id=check_id(id, where="Link.id"),
        )

    def render(self, ctx: RenderContext) -> Html:
        if self.id:
            ctx.claim_id(self.id, where="Link.id")
        attrs = {"class": "h-link", "id": self.id, "href": self.href}
        return element("a", attrs, [self.text])

    @classmethod
    def example(cls) -> Link:
        return cls("All jobs", href="/jobs")


class Form(Component):
    """A form that submits with htmx (and still works without JavaScript).

    Unsafe-method forms carry the hidden ``csrf_token`` field when rendered during a
    request (the host supplies the token); htmx requests also send ``X-CSRF-Token``.

    Args:
        *children: Fields, buttons, text.
        action: Root-relative URL the form submits to.
        method: ``POST`` (default) or ``GET``.
        target: Where to swap the answer (default ``this``: the form itself).
        swap: ``outerHTML`` (default) or another ``hx-swap`` style.
        id: Optional element id.

    Example:
        >>> form = Form(Button("Go", type="submit"), action="/go")
        >>> render(form, csrf_token="t0k")  # doctest: +ELLIPSIS
        '<form class="h-form" action="/go" method=...s="h-button h-primary">Go</button></form>'
    """

    _fields = ("children", "action", "method", "target", "swap", "id")
    children: tuple[Child, ...]
    action: str
    method: Literal["GET", "POST"]
    target: str
    swap: str
    id: str | None

    def __init__(
        self,
        *children: Child,
        action: str,
        method: Literal["GET", "POST"] = "POST",
        target: str = "this",
        swap: str = "outerHTML",
        id: str | None = None,
    ) -> None:
        if isinstance(method, str):
            method = method.upper()  # type: ignore[assignment]
        self._set(
            children=check_children(children, where="Form.children"),
            action=check_url(action, where="Form.action"),
            method=check_choice(method, ("GET", "POST"), where="Form.method"),
            target=check_target(target, where="Form.target"),
            swap=check_swap(swap, where="Form.swap"),
            id=check_id(id, where="Form.id"),
        )

    def render(self, ctx: RenderContext) -> Html:
        if self.id:
            ctx.claim_id(self.id, where="Form.id")
        verb = self.method.lower()
        attrs = {
            "class": "h-form",
            "id": self.id,
            "action": self.action,
            "method": verb,
            f"hx-{verb}": self.action,
            "hx-target": self.target,
            "hx-swap": self.swap,
        }
        parts: list[str] = []
        if self.method != "GET" and ctx.csrf_token:
            hidden = {"type": "hidden", "name": CSRF_FIELD, "value": ctx.csrf_token}
            parts.append(element("input", hidden))
        parts.extend(render_children(self.children, ctx))
        return element("form", attrs, parts)

    @classmethod
    def example(cls) -> Form:
        from hedron_core.components._inputs import Field, Input

        return cls(
            Field("Email", Input("email", type="email", required=True)),
            Button("Subscribe", type="submit"),
            action="/subscribe",
        )
