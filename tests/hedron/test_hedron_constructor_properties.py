"""Every public hedron constructor refuses a bad value naming the parameter, or works with it.

One property per constructor: each component of the registry (rebuilt from its own example
with one parameter replaced by a bad value: refused naming the parameter, or it renders to
text that encodes as UTF-8), and ``Hedron()`` (refused naming the setting, or the app serves a
page without a 500). See ``tests/_support/bad_values.py`` for the values and the rule.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import pytest
from hedron_support import SECRET
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hedron import Hedron, Page, Text
from hedron_core import Component, render
from hedron_core.components import registry
from tests._support.bad_values import JUNK, refused_or_works, sweep

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

COMPONENTS = {info.name: info for info in registry()}


def _call_parts(info: Any) -> tuple[list[Any], dict[str, Any], list[str]]:
    """The example's props as constructor arguments, and the names that can be replaced."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    names: list[str] = []
    for param in list(inspect.signature(info.cls.__init__).parameters.values())[1:]:
        value = getattr(info.example, param.name)
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            args = list(value)
        else:
            kwargs[param.name] = value
        names.append(param.name)
    return args, kwargs, names


def _renders(component: Component) -> None:
    render(component).encode("utf-8")


@pytest.mark.parametrize("name", sorted(COMPONENTS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_component_refuses_a_bad_prop_naming_it_or_renders(name: str, data: Any) -> None:
    info = COMPONENTS[name]
    args, kwargs, names = _call_parts(info)
    param = data.draw(st.sampled_from(names), label="param")
    value = data.draw(JUNK, label="value")
    if param in kwargs:
        kwargs[param] = value
    else:  # the children: one bad child among the good ones
        args = [*args, value]

    refused_or_works(lambda: info.cls(*args, **kwargs), _renders, param, value)


def _replaced(name: str, param: str, value: Any) -> Component:
    info = COMPONENTS[name]
    args, kwargs, _ = _call_parts(info)
    if param in kwargs:
        kwargs[param] = value
    else:
        args = [*args, value]
    component: Component = info.cls(*args, **kwargs)
    return component


@pytest.mark.parametrize("name", sorted(COMPONENTS))
def test_a_component_refuses_every_tricky_value_naming_the_prop_or_renders(name: str) -> None:
    names = _call_parts(COMPONENTS[name])[2]
    sweep(lambda param, value: _replaced(name, param, value), _renders, names)


# --- Hedron() --------------------------------------------------------------------------------

HEDRON_PARAMS = ("title", "security", "explorer", "session_secret", "job_backend", "static_prefix")


def _serves(app: Hedron) -> None:
    @app.page("/")
    def home() -> Page:
        return Page(Text("hi"), title="Home")

    with TestClient(app, base_url="https://testserver") as client:
        response = client.get("/")
        assert response.status_code == 200, response.text
        css = client.get(f"{app.static_prefix}/hedron.css")
        assert css.status_code == 200


def _hedron(param: str, value: Any) -> Hedron:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # weak secrets warn outside strict/production
        return Hedron(**{"session_secret": SECRET, param: value})


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(param=st.sampled_from(HEDRON_PARAMS), value=JUNK)
def test_hedron_refuses_a_bad_setting_naming_it_or_serves_pages(param: str, value: Any) -> None:
    refused_or_works(lambda: _hedron(param, value), _serves, param, value)


def test_hedron_refuses_every_tricky_setting_naming_it_or_serves_pages() -> None:
    sweep(_hedron, _serves, HEDRON_PARAMS)
