"""The keyword form of ``TaskFlow`` (``input_model=``, ``result=``, ``authorize_submit=``,
``poll=``), turned into TaskFlow's own arguments; and ``PollPolicy``.

This is how apps written for hedron 1.1.3 spell a flow. Each keyword maps onto one argument of
:class:`~hedron.jobs.TaskFlow`: ``input_model`` gives the form ``fields`` and validates the
submitted form before ``payload`` sees it, ``result`` renders a finished job's result value,
``authorize_submit`` is a FastAPI dependency run before the flow's routes, ``poll`` sets
``poll_interval_ms``.
"""

from __future__ import annotations

import enum
import inspect
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from fastapi import Depends, Request
from fastapi.params import Depends as DependsParam
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from hedron_core import Component
from hedron_core._props import check_int
from hedron_core.components import Field, Input, Select, Text
from hedron_core.jobs import JobStatus

__all__ = ["KeywordForm", "PollPolicy", "keyword_form", "legacy_attribute", "scope_caller"]

_NUMBERS = (int, float)


@dataclass(frozen=True, slots=True)
class PollPolicy:
    """How a :class:`~hedron.jobs.TaskFlow`'s status region polls (``TaskFlow(poll=...)``).

    Polling always stops once the job is finished: the status endpoint answers ``286``, which
    htmx reads as "stop". ``stop_on_terminal=False`` is refused for that reason.

    Args:
        interval_ms: Milliseconds between status requests (an int ``>= 1``); the same as
            ``TaskFlow(poll_interval_ms=...)``.
        stop_on_terminal: Must stay ``True``.

    Example:
        >>> PollPolicy(interval_ms=2000).interval_ms
        2000
    """

    interval_ms: int = 1000
    stop_on_terminal: bool = True

    def __post_init__(self) -> None:
        check_int(self.interval_ms, where="PollPolicy.interval_ms", minimum=1)
        if self.stop_on_terminal is not True:
            raise ValueError(
                "PollPolicy(stop_on_terminal=False): a TaskFlow always stops polling once the "
                "job is finished (its status answers 286, htmx's stop code); leave "
                "stop_on_terminal out"
            )


@dataclass(frozen=True, slots=True)
class KeywordForm:
    """TaskFlow's own arguments, after the keyword form was applied."""

    fields: tuple[Component, ...]
    payload: Callable[[dict[str, str]], Any] | None
    result_view: Callable[[JobStatus], Component] | None
    poll_interval_ms: int
    dependencies: tuple[Any, ...]


def keyword_form(
    *,
    fields: Sequence[Component],
    payload: Callable[..., Any] | None,
    result_view: Callable[[JobStatus], Component] | None,
    poll_interval_ms: int,
    input_model: type[BaseModel] | None,
    result: Callable[[Any], Component | str] | None,
    poll: PollPolicy | None,
    authorize_submit: Any,
) -> KeywordForm:
    """Apply ``input_model``/``result``/``poll``/``authorize_submit`` to TaskFlow's arguments.

    Raises ``TypeError``/``ValueError`` naming the argument when the two spellings of one
    thing are both given or a value has the wrong kind.
    """
    if input_model is not None:
        if not (isinstance(input_model, type) and issubclass(input_model, BaseModel)):
            raise TypeError(
                "TaskFlow(input_model=...) must be a pydantic model class, "
                f"got {type(input_model).__name__}"
            )
        if fields:
            raise ValueError("TaskFlow: give input_model= or fields=, not both")
        fields = model_fields(input_model)
        if payload is not None and not callable(payload):
            raise TypeError("TaskFlow: payload must be callable")
        payload = _validating(input_model, payload)
    if result is not None:
        if result_view is not None:
            raise ValueError("TaskFlow: give result= or result_view=, not both")
        if not callable(result):
            raise TypeError("TaskFlow(result=...) must be callable: result(value) -> Component")
        result_view = _result_view(result)
    if poll is not None:
        if not isinstance(poll, PollPolicy):
            raise TypeError(f"TaskFlow(poll=...) must be a PollPolicy, got {type(poll).__name__}")
        poll_interval_ms = poll.interval_ms
    return KeywordForm(
        fields=tuple(fields),
        payload=payload,
        result_view=result_view,
        poll_interval_ms=poll_interval_ms,
        dependencies=_dependencies(authorize_submit),
    )


# -- input_model ------------------------------------------------------------------------------


def model_fields(model: type[BaseModel]) -> tuple[Component, ...]:
    """One labelled form field per model field (number, checkbox, choice or text input)."""
    return tuple(_field(name, info) for name, info in model.model_fields.items())


def _field(name: str, info: FieldInfo) -> Field:
    label = info.title or name.replace("_", " ").capitalize()
    required = info.is_required()
    default = None if required or info.default is None else info.default
    kind = _plain(info.annotation)
    control: Input | Select
    choices = _choices(kind)
    if choices is not None:
        value = None if default is None else str(_choice_value(default))
        control = Select(name, choices, value=value, required=required)
    elif kind is bool:
        control = Input(name, type="checkbox", value="true", checked=default is True)
    else:
        kind_name = "number" if kind in _NUMBERS else "text"
        value = None if default is None else str(default)
        control = Input(name, type=kind_name, value=value, required=required)  # type: ignore[arg-type]
    return Field(label, control, help=info.description or None)


def _plain(annotation: Any) -> Any:
    """``X | None`` -> ``X``; anything else unchanged."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _choices(kind: Any) -> list[str] | None:
    if typing.get_origin(kind) is Literal:
        return [str(v) for v in typing.get_args(kind)]
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return [str(member.value) for member in kind]
    return None


def _choice_value(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def _validating(
    model: type[BaseModel], payload: Callable[[Any], Any] | None
) -> Callable[[dict[str, str]], Any]:
    """The submitted fields -> a model instance (``ValueError`` with readable text when the
    input does not validate) -> ``payload(instance)``, or the instance as JSON."""
    flags = [name for name, info in model.model_fields.items() if _plain(info.annotation) is bool]

    def parse(form: dict[str, str]) -> Any:
        data: dict[str, Any] = {k: v for k, v in form.items() if k in model.model_fields}
        for name in flags:  # an unchecked checkbox is not submitted at all
            data[name] = name in data
        try:
            instance = model.model_validate(data)
        except ValidationError as exc:
            raise ValueError(_readable(model, exc)) from None
        return instance.model_dump(mode="json") if payload is None else payload(instance)

    return parse


def _readable(model: type[BaseModel], exc: ValidationError) -> str:
    parts = []
    for error in exc.errors(include_url=False):
        name = str(error["loc"][0]) if error["loc"] else ""
        info = model.model_fields.get(name)
        label = (info.title if info else None) or name.replace("_", " ").capitalize()
        parts.append(f"{label}: {error['msg']}" if label else str(error["msg"]))
    return "; ".join(parts)


# -- result, scope, authorize_submit ----------------------------------------------------------


def _result_view(result: Callable[[Any], Component | str]) -> Callable[[JobStatus], Component]:
    def view(status: JobStatus) -> Component:
        shown = result(status.result)
        if isinstance(shown, str):
            return Text(shown)
        if not isinstance(shown, Component):
            raise TypeError(
                f"TaskFlow(result=...) must return a Component or str, got {type(shown).__name__}"
            )
        return shown

    return view


def scope_caller(scope: Callable[..., Any]) -> Callable[[Request], Any]:
    """``scope`` as ``scope(request)``: a resolver may take the request (as ours do) or take
    nothing (``scope=lambda: JobScope(...)``)."""
    try:
        signature = inspect.signature(scope)
    except (TypeError, ValueError):  # a builtin: call it with the request
        return scope
    for args, kwargs, call in (
        ((None,), {}, scope),
        ((), {"request": None}, lambda request: scope(request=request)),
        ((), {}, lambda request: scope()),
    ):
        try:
            signature.bind(*args, **kwargs)
        except TypeError:
            continue
        return call
    raise TypeError("TaskFlow(scope=...) must be callable as scope(request) or as scope()")


def _dependencies(authorize_submit: Any) -> tuple[Any, ...]:
    if authorize_submit is None:
        return ()
    if isinstance(authorize_submit, DependsParam):
        return (authorize_submit,)
    if callable(authorize_submit):
        return (Depends(authorize_submit),)
    raise TypeError(
        "TaskFlow(authorize_submit=...) must be a FastAPI dependency (Depends(check)) or a "
        f"callable; got {type(authorize_submit).__name__}"
    )


# -- names TaskFlow does not have -------------------------------------------------------------

_INSTEAD = {
    "submit_command": "flow.form() renders the submit form; flow.mount(app) (or "
    "app.include(flow)) registers its routes",
    "cancel_command": "the Cancel button is part of the status view (TaskFlow(cancel=True))",
    "to_bundle": "flow.mount(app) (or app.include(flow)) registers the flow's routes",
}


def legacy_attribute(owner: str, name: str) -> AttributeError:
    """The ``AttributeError`` for ``name``, saying what to write instead when we know it."""
    hint = _INSTEAD.get(name)
    message = f"{owner!r} object has no attribute {name!r}"
    return AttributeError(f"{message}; {hint}" if hint else message)
