"""Component base class, the render context and :func:`render`."""

from __future__ import annotations

import contextvars
import re
from typing import Any, ClassVar

from hedron_core._html import Html, escape_text

__all__ = [
    "Child",
    "Component",
    "RenderContext",
    "current_csrf_token",
    "render",
    "render_children",
]

#: The CSRF token of the request being served (set by the host; ``None`` outside requests).
current_csrf_token: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "hedron_csrf_token", default=None
)

_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}\Z")
_LOGICAL_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*\Z")
_good_ids: set[str] = set()  # ids that passed the check (the rule depends on the text alone)


class RenderContext:
    """State of one render pass: issued ids (stable, counter based) and the CSRF token.

    Args:
        csrf_token: Token that ``Form`` embeds as the hidden ``csrf_token`` field.
        id_prefix: Prefix of generated ids (``h-<kind>-<n>``).

    Example:
        >>> ctx = RenderContext()
        >>> ctx.auto_id("poll")
        'h-poll-1'
    """

    def __init__(self, *, csrf_token: str | None = None, id_prefix: str = "h") -> None:
        self.csrf_token = csrf_token
        self.id_prefix = id_prefix
        self._counter = 0
        self._ids: set[str] = set()

    def auto_id(self, kind: str) -> str:
        """Issue the next generated id (deterministic for a given component tree)."""
        while True:
            self._counter += 1
            candidate = f"{self.id_prefix}-{kind}-{self._counter}"
            if candidate not in self._ids:
                self._ids.add(candidate)
                return candidate

    def claim_id(self, value: str, *, where: str) -> str:
        """Register an explicit id; a second use in the same render raises ``ValueError``."""
        if value in self._ids:
            raise ValueError(f"{where}: duplicate id {value!r} in one page")
        self._ids.add(value)
        return value


class Component:
    """Base class of all hedron components: immutable, validated, rendered to escaped HTML.

    Subclasses validate their props in ``__init__`` (raising ``TypeError``/``ValueError``
    that name the component and prop), store them with :meth:`_set`, and implement
    :meth:`render`. Instances compare equal when their props are equal.

    Example:
        >>> from hedron_core import Text, render
        >>> render(Text("hi"))
        '<p class="h-text">hi</p>'
    """

    _fields: ClassVar[tuple[str, ...]] = ()

    def _set(self, **values: Any) -> None:
        self.__dict__.update(values)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable (cannot delete {name!r})")

    def props(self) -> dict[str, Any]:
        """Return the component's props as a dict (in declaration order)."""
        return {name: getattr(self, name) for name in self._fields}

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Component)
        return self.props() == other.props()

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(self)))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.props().items())
        return f"{type(self).__name__}({inner})"

    def render(self, ctx: RenderContext) -> Html:
        """Serialize this component (subclasses implement it)."""
        raise NotImplementedError

    def __html__(self) -> str:
        return render(self)

    @classmethod
    def example(cls) -> Component:
        """Return a representative instance (used by the explorer and the docs)."""
        raise NotImplementedError(f"{cls.__name__} has no example")


#: What components accept as children: another component or plain text.
Child = Component | str


def render_children(children: tuple[Child, ...], ctx: RenderContext) -> list[Html]:
    """Render each child (components rendered, text escaped)."""
    return [
        child.render(ctx) if isinstance(child, Component) else Html(escape_text(child))
        for child in children
    ]


def render(component: Component, *, csrf_token: str | None = None) -> Html:
    """Render a component tree to an HTML string (deterministic for equal input).

    Args:
        component: The component to render.
        csrf_token: Token for ``Form`` hidden fields; defaults to the current request's
            token when a host has set one.

    Example:
        >>> from hedron_core import Status, render
        >>> render(Status("Done", tone="success"))  # doctest: +ELLIPSIS
        '<div class="h-status h-tone-success" role="status" aria-live="polite">Done</div>'
    """
    if not isinstance(component, Component):
        raise TypeError(f"render() expects a Component, got {type(component).__name__}")
    token = csrf_token if csrf_token is not None else current_csrf_token.get()
    return component.render(RenderContext(csrf_token=token))


def check_id(value: str | None, *, where: str) -> str | None:
    """Validate an optional element id (letters, digits, ``-``, ``_``; starts with a letter)."""
    if value is None or (type(value) is str and value in _good_ids):
        return value
    if not isinstance(value, str):
        raise TypeError(f"{where} must be a str, got {type(value).__name__}")
    if not _ID.match(value):
        raise ValueError(
            f"{where} must start with a letter and hold only letters, digits, '-' or '_' "
            f"(max 64 chars), got {value!r}"
        )
    if type(value) is str:
        if len(_good_ids) >= 4096:
            _good_ids.clear()
        _good_ids.add(value)
    return value


def check_required_id(value: object, *, where: str) -> str:
    """Validate a required element id (same rules as :func:`check_id`, ``None`` refused)."""
    if value is None:
        raise TypeError(f"{where} is required")
    checked = check_id(value, where=where)  # type: ignore[arg-type]
    assert checked is not None
    return checked


def check_logical_id(value: object, *, where: str) -> str:
    """Validate a component's logical id: an element id, or dotted names such as
    ``activity.latest`` (segments of letters, digits, ``-``, ``_``; max 64 chars).

    Its element id is :func:`dom_id` of it.
    """
    if value is None:
        raise TypeError(f"{where} is required")
    if not isinstance(value, str):
        raise TypeError(f"{where} must be a str, got {type(value).__name__}")
    if "." not in value:
        return check_required_id(value, where=where)
    if len(value) > 64 or not _LOGICAL_ID.match(value):
        raise ValueError(
            f"{where} must be an element id or dotted names (start with a letter; letters, "
            f"digits, '-', '_' between the dots; max 64 chars), got {value!r}"
        )
    return value


def dom_id(logical_id: str) -> str:
    """The element id of a logical id: each ``.`` becomes ``-``.

    Example:
        >>> dom_id("activity.latest")
        'activity-latest'
    """
    return logical_id.replace(".", "-")
