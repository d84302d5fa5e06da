"""The component registry: every public component with its docs, props and an example."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass

from hedron_core._base import Component

__all__ = ["ComponentInfo", "PropInfo", "describe"]


@dataclass(frozen=True)
class PropInfo:
    """One prop of a component, read from its signature and docstring.

    Attributes:
        name: Parameter name (``*children`` for variadic children).
        annotation: Type as written in the source.
        required: ``True`` when the prop has no default.
        default: ``repr`` of the default, or ``None`` when required.
        description: Text of the docstring's ``Args:`` entry.
    """

    name: str
    annotation: str
    required: bool
    default: str | None
    description: str


@dataclass(frozen=True)
class ComponentInfo:
    """A registry entry.

    Attributes:
        name: Class name (``"Poll"``).
        cls: The component class.
        summary: First line of the docstring.
        doc: The whole docstring (Google style, with ``Args:`` and ``Example:``).
        props: The props, in signature order.
        example: A representative instance (``cls.example()``).
        category: Group shown in the docs and the explorer (``"Layout"``, ``"Live"``, …).
    """

    name: str
    cls: type[Component]
    summary: str
    doc: str
    props: tuple[PropInfo, ...]
    example: Component
    category: str = ""


_ARG = re.compile(r"^\s{4}(\*{0,2}\w+)(?: \([^)]*\))?:\s*(.*)$")


def _arg_docs(doc: str) -> dict[str, str]:
    out: dict[str, str] = {}
    in_args = False
    current: str | None = None
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped == "Args:":
            in_args = True
            continue
        if not in_args:
            continue
        if stripped and not line.startswith(" "):
            break
        if stripped.endswith(":") and line.startswith(stripped[:1]):
            break
        match = _ARG.match(line)
        if match:
            current = match.group(1).lstrip("*")
            out[current] = match.group(2).strip()
        elif current and stripped:
            out[current] += " " + stripped
        elif not stripped and current:
            current = None
    return out


def describe(cls: type[Component], *, category: str = "") -> ComponentInfo:
    """Build the :class:`ComponentInfo` of a component class.

    Example:
        >>> describe(Text).props[0].name
        'text'
    """
    doc = inspect.cleandoc(cls.__doc__ or "")
    arg_docs = _arg_docs(doc)
    props: list[PropInfo] = []
    for param in inspect.signature(cls.__init__).parameters.values():
        if param.name == "self":
            continue
        variadic = param.kind is inspect.Parameter.VAR_POSITIONAL
        required = param.default is inspect.Parameter.empty and not variadic
        props.append(
            PropInfo(
                name=f"*{param.name}" if variadic else param.name,
                annotation=str(param.annotation),
                required=required,
                default=None if required or variadic else repr(param.default),
                description=arg_docs.get(param.name, ""),
            )
        )
    return ComponentInfo(
        name=cls.__name__,
        cls=cls,
        summary=doc.splitlines()[0] if doc else "",
        doc=doc,
        props=tuple(props),
        example=cls.example(),
        category=category,
    )
