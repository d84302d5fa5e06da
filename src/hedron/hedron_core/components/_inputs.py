"""Form controls: ``Field``, ``Input``, ``Select``, ``Textarea``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final, Literal

from hedron_core._base import Component, RenderContext, check_id
from hedron_core._html import Html, element
from hedron_core._props import check_bool, check_choice, check_int, check_str

__all__ = ["Field", "Input", "Select", "Textarea"]

InputType = Literal[
    "text", "email", "number", "password", "search", "tel", "url", "date", "hidden", "checkbox"
]
INPUT_TYPES: Final[tuple[InputType, ...]] = (
    "text",
    "email",
    "number",
    "password",
    "search",
    "tel",
    "url",
    "date",
    "hidden",
    "checkbox",
)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-\[\]]{0,99}$")


def _check_name(value: object, *, where: str) -> str:
    name = check_str(value, where=where)
    if not _NAME.match(name):
        raise ValueError(
            f"{where} must start with a letter or '_' and hold only letters, digits, "
            f"'_', '.', '-', '[' or ']'; got {value!r}"
        )
    return name


class _Control(Component):
    """A control a :class:`Field` can label."""

    id: str | None

    def render(self, ctx: RenderContext) -> Html:
        cid = ctx.claim_id(self.id, where=f"{type(self).__name__}.id") if self.id else None
        return self.render_control(cid, None)

    def render_control(
        self, cid: str | None, described_by: str | None, *, invalid: bool = False
    ) -> Html:
        """Render with element id ``cid``, optional ``aria-describedby``/``aria-invalid``."""
        raise NotImplementedError


class Input(_Control):
    """A single-line input.

    Args:
        name: Form field name.
        type: ``text``, ``email``, ``number``, ``password``, ``search``, ``tel``, ``url``,
            ``date``, ``hidden`` or ``checkbox``.
        value: Initial value (for ``checkbox``: the submitted value).
        placeholder: Hint shown while empty.
        required: The browser refuses to submit while empty.
        checked: Initial state of a ``checkbox``.
        id: Optional element id (a ``Field`` generates one otherwise).

    Example:
        >>> render(Input("q", placeholder="Search"))
        '<input class="h-input" type="text" name="q" placeholder="Search">'
    """

    _fields = ("name", "type", "value", "placeholder", "required", "checked", "id")
    name: str
    type: InputType
    value: str | None
    placeholder: str | None
    required: bool
    checked: bool

    def __init__(
        self,
        name: str,
        *,
        type: InputType = "text",
        value: str | None = None,
        placeholder: str | None = None,
        required: bool = False,
        checked: bool = False,
        id: str | None = None,
    ) -> None:
        self._set(
            name=_check_name(name, where="Input.name"),
            type=check_choice(type, INPUT_TYPES, where="Input.type"),
            value=None
            if value is None
            else check_str(value, where="Input.value", allow_empty=True),
            placeholder=None
            if placeholder is None
            else check_str(placeholder, where="Input.placeholder"),
            required=check_bool(required, where="Input.required"),
            checked=check_bool(checked, where="Input.checked"),
            id=check_id(id, where="Input.id"),
        )

    def render_control(
        self, cid: str | None, described_by: str | None, *, invalid: bool = False
    ) -> Html:
        attrs: dict[str, str | bool | None] = {
            "class": "h-input",
            "type": self.type,
            "id": cid,
            "name": self.name,
            "value": self.value,
            "placeholder": self.placeholder,
            "required": self.required,
            "checked": self.checked,
            "aria-describedby": described_by,
            "aria-invalid": "true" if invalid else None,
        }
        return element("input", attrs)

    @classmethod
    def example(cls) -> Input:
        return cls("email", type="email", placeholder="you@example.org", required=True)


class Textarea(_Control):
    """A multi-line text input.

    Args:
        name: Form field name.
        value: Initial text.
        rows: Visible lines (>= 1).
        required: The browser refuses to submit while empty.
        id: Optional element id.

    Example:
        >>> render(Textarea("notes", rows=2))
        '<textarea class="h-textarea" name="notes" rows="2"></textarea>'
    """

    _fields = ("name", "value", "rows", "required", "id")
    name: str
    value: str
    rows: int
    required: bool

    def __init__(
        self,
        name: str,
        *,
        value: str = "",
        rows: int = 4,
        required: bool = False,
        id: str | None = None,
    ) -> None:
        self._set(
            name=_check_name(name, where="Textarea.name"),
            value=check_str(value, where="Textarea.value", allow_empty=True),
            rows=check_int(rows, where="Textarea.rows", minimum=1),
            required=check_bool(required, where="Textarea.required"),
            id=check_id(id, where="Textarea.id"),
        )

    def render_control(
        self, cid: str | None, described_by: str | None, *, invalid: bool = False
    ) -> Html:
        attrs: dict[str, str | bool | None] = {
            "class": "h-textarea",
            "id": cid,
            "name": self.name,
            "rows": str(self.rows),
            "required": self.required,
            "aria-describedby": described_by,
            "aria-invalid": "true" if invalid else None,
        }
        return element("textarea", attrs, [self.value])

    @classmethod
    def example(cls) -> Textarea:
        return cls("notes", value="First line", rows=3)


class Select(_Control):
    """A drop-down list.

    Args:
        name: Form field name.
        options: Values, or ``(value, label)`` pairs.
        value: The selected value.
        required: The browser refuses to submit without a choice.
        id: Optional element id.

    Example:
        >>> render(Select("size", ["S", ("M", "Medium")], value="M"))  # doctest: +ELLIPSIS
        '<select class="h-select" name="size"><opt...lue="M" selected>Medium</option></select>'
    """

    _fields = ("name", "options", "value", "required", "id")
    name: str
    options: tuple[tuple[str, str], ...]
    value: str | None
    required: bool

    def __init__(
        self,
        name: str,
        options: Sequence[str | tuple[str, str]],
        *,
        value: str | None = None,
        required: bool = False,
        id: str | None = None,
    ) -> None:
        if isinstance(options, str) or not isinstance(options, Sequence):
            raise TypeError(
                f"Select.options must be a sequence of str or (value, label), "
                f"got {type(options).__name__}"
            )
        pairs: list[tuple[str, str]] = []
        for i, option in enumerate(options):
            where = f"Select.options[{i}]"
            if isinstance(option, str):
                pairs.append((check_str(option, where=where, allow_empty=True), option))
            elif isinstance(option, tuple) and len(option) == 2:
                pairs.append(
                    (
                        check_str(option[0], where=f"{where}[0]", allow_empty=True),
                        check_str(option[1], where=f"{where}[1]"),
                    )
                )
            else:
                raise TypeError(f"{where} must be a str or a (value, label) tuple, got {option!r}")
        values = [v for v, _ in pairs]
        if len(set(values)) != len(values):
            raise ValueError(f"Select.options has duplicate values: {values!r}")
        if value is not None and value not in values:
            raise ValueError(f"Select.value {value!r} is not one of the options {values!r}")
        self._set(
            name=_check_name(name, where="Select.name"),
            options=tuple(pairs),
            value=value,
            required=check_bool(required, where="Select.required"),
            id=check_id(id, where="Select.id"),
        )

    def render_control(
        self, cid: str | None, described_by: str | None, *, invalid: bool = False
    ) -> Html:
        opts = [
            element("option", {"value": v, "selected": v == self.value}, [label])
            for v, label in self.options
        ]
        attrs: dict[str, str | bool | None] = {
            "class": "h-select",
            "id": cid,
            "name": self.name,
            "required": self.required,
            "aria-describedby": described_by,
            "aria-invalid": "true" if invalid else None,
        }
        return element("select", attrs, opts)

    @classmethod
    def example(cls) -> Select:
        return cls("format", [("csv", "CSV"), ("xlsx", "Excel")], value="csv")


class Field(Component):
    """A labelled form control with optional help text and error message.

    Args:
        label: Visible label (linked to the control with ``for``/``id``).
        control: An ``Input``, ``Select`` or ``Textarea``.
        help: Hint shown under the control.
        error: Validation message (marks the control ``aria-invalid``).

    Example:
        >>> render(Field("Name", Input("name")))  # doctest: +ELLIPSIS
        '<div class="h-field"><label for="h-field-...="text" id="h-field-1" name="name"></div>'
    """

    _fields = ("label", "control", "help", "error")
    label: str
    control: Input | Select | Textarea
    help: str | None
    error: str | None

    def __init__(
        self,
        label: str,
        control: Input | Select | Textarea,
        *,
        help: str | None = None,
        error: str | None = None,
    ) -> None:
        if not isinstance(control, _Control):
            raise TypeError(
                f"Field.control must be an Input, Select or Textarea, got {type(control).__name__}"
            )
        self._set(
            label=check_str(label, where="Field.label"),
            control=control,
            help=None if help is None else check_str(help, where="Field.help"),
            error=None if error is None else check_str(error, where="Field.error"),
        )

    def render(self, ctx: RenderContext) -> Html:
        cid = (
            ctx.claim_id(self.control.id, where="Field.control.id")
            if self.control.id
            else ctx.auto_id("field")
        )
        note = self.error or self.help
        note_id = f"{cid}-note" if note else None
        control = self.control.render_control(cid, note_id, invalid=bool(self.error))
        parts: list[str] = [element("label", {"for": cid}, [self.label]), control]
        if note:
            cls = "h-field-error" if self.error else "h-field-help"
            parts.append(element("p", {"class": cls, "id": note_id}, [note]))
        return element("div", {"class": "h-field"}, parts)

    @classmethod
    def example(cls) -> Field:
        return cls("Email", Input("email", type="email"), help="We never share it.")
