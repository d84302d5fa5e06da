"""What probing the jobs layer found (issue 19): the in-memory and SQLite backends against the
shared findings, plus TaskFlow's and the status helpers' own checks."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import test_jobs_backends as base
from fastapi import Request
from hardening_conformance import OWNER, HardeningConformance
from jobs_support import flow_serves
from validation_conformance import ValidationConformance

from hedron.jobs import JobScope, TaskFlow, job_result_response, job_status_response
from hedron_core.jobs import InMemoryJobBackend, JobState

with warnings.catch_warnings():
    warnings.simplefilter("ignore")


class TestInMemoryHardening(HardeningConformance):
    backend_factory = base.TestInMemoryBackend.backend_factory


class TestSQLiteHardening(HardeningConformance):
    backend_factory = base.TestSQLiteBackend.backend_factory


class TestInMemoryValidation(ValidationConformance):
    backend_factory = base.TestInMemoryBackend.backend_factory


class TestSQLiteValidation(ValidationConformance):
    backend_factory = base.TestSQLiteBackend.backend_factory


# --- 3. TaskFlow's poll interval has the browser's upper bound ------------------------------


def _scope(request: Request) -> JobScope:
    return JobScope("alice", "acme")


@pytest.mark.parametrize("interval", [2**31, 10**30])
def test_taskflow_refuses_a_poll_interval_past_the_timer_limit(interval: int) -> None:
    with pytest.raises(ValueError, match=r"TaskFlow\(poll_interval_ms=\.\.\.\) must be at most"):
        TaskFlow("demo", scope=_scope, poll_interval_ms=interval)
    flow = TaskFlow("demo", scope=_scope, poll_interval_ms=2**31 - 1)
    assert flow.poll_interval_ms == 2**31 - 1


# --- TaskFlow settings that built a flow whose pages answered 500 -----------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"policy": "yes"}, r"TaskFlow: policy must be callable"),
        ({"result_view": 3}, r"TaskFlow: result_view must be callable"),
        ({"fields": 3}, r"TaskFlow: fields must be a sequence"),
        ({"name": " "}, r"TaskFlow\(name=\.\.\.\)"),
        ({"name": "9lives"}, r"TaskFlow\(name=\.\.\.\)"),
        ({"path": "/tasks/a b"}, r"TaskFlow\(path=\.\.\.\)"),
        ({"path": "//evil.example"}, r"TaskFlow\(path=\.\.\.\)"),
        ({"path": "/tasks/{x}"}, r"TaskFlow\(path=\.\.\.\)"),
        ({"path": 5}, r"TaskFlow: path must be a str"),
    ],
)
def test_taskflow_refuses_settings_naming_them(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises((TypeError, ValueError), match=message):
        TaskFlow("demo", scope=_scope, **kwargs)


@pytest.mark.parametrize("job_type", ["123", "!!!", "x" * 80, "résumé"])
def test_taskflow_of_any_job_type_renders_its_form_and_poll(job_type: str) -> None:
    flow_serves(TaskFlow(job_type, scope=_scope))


# --- 9. the status helpers check their hooks up front ----------------------------------------


@pytest.mark.parametrize("hook", ["view", "result_view"])
def test_job_status_response_checks_its_views_before_any_job_is_finished(hook: str) -> None:
    backend = InMemoryJobBackend()
    queued = backend.get(backend.submit("demo", {}, **OWNER).id, **OWNER)
    with pytest.raises(TypeError, match=rf"job_status_response\({hook}=\.\.\.\) must be callable"):
        job_status_response(queued, **OWNER, **{hook: "not a function"})
    with pytest.raises(TypeError, match=rf"job_status_response\({hook}=\.\.\.\) must be callable"):
        job_status_response(None, **OWNER, **{hook: 42})


def test_job_result_response_of_a_blank_error_is_a_finished_answer() -> None:
    backend = InMemoryJobBackend()
    job = backend.submit("demo", {}, **OWNER)
    backend.mark(job.id, JobState.FAILED, error=" ")
    answer = job_result_response(backend.get(job.id, **OWNER), **OWNER)
    assert answer.status_code == 200
