"""Every public parameter of a job backend, under bad values (issue 29), for every backend.

Subclass :class:`ValidationConformance` with a ``backend_factory`` fixture (the one of the
backend's conformance class). For each parameter of ``submit``, ``enqueue_durable``, ``get``,
``load``, ``request_cancel``, ``mark``, ``progress``, ``claim``, ``claim_next``, ``renew``,
``release`` and ``cleanup_expired``, a value is either

- refused with ``TypeError``/``ValueError`` whose message starts with the method and names
  the parameter (never an engine's own words: sqlite3's, Redis's, Python's operators'), with
  nothing stored or changed; or
- accepted, and then it is a value the rules allow and it is stored exactly as given (a
  payload ``{1: 2}`` is never stored as ``{"1": 2}``, a tuple never as a list).

Hypothesis draws the values (wrong types, tricky numbers and text, JSON-like values with
non-string keys, tuples and NaN); every known-tricky value is also tried on every parameter.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hedron.jobs import enqueue_durable
from hedron_core.jobs import JobBackend, JobNotFoundError, JobProgress, JobState, JobStatus
from tests._support.bad_values import JUNK, TRICKY

OWNER = {"auth_subject": "alice", "tenant_id": "acme"}
MAX_ID, MAX_KEY, MAX_LEASE = 1024, 255, 1e9
#: Text past the bounds, and with a NUL: what the backends stored before.
ODD_TEXT = ["x" * 1025, "y" * 100_000, "k" * 256, "a\x00b", "\x00", "alice", "x" * 1024]
#: Words of messages that come from inside an engine, not from the check of a parameter.
ENGINE_WORDS = (
    "sqlite3",
    "OperationalError",
    "embedded null",
    "unsupported operand",
    "not supported between",
    "Cannot mix",
    "Redis at",
    "unhashable",
    "has no attribute",
)

_KEYS = st.one_of(
    st.text(max_size=3), st.integers(-3, 3), st.booleans(), st.none(), st.floats(-2, 2)
)
_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
)
#: JSON-like values, with what JSON would change: non-str keys, tuples, NaN and infinities.
JSONISH = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(_KEYS, inner, max_size=3),
    ),
    max_leaves=8,
)
TEXTS = st.one_of(JUNK, st.sampled_from(ODD_TEXT), st.text(max_size=8))
NUMBERS = st.one_of(JUNK, st.floats(), st.integers())
JOB_TYPES = st.one_of(JUNK, st.lists(TEXTS, max_size=3), st.sets(st.text(max_size=3), max_size=2))


@dataclass(frozen=True)
class Jobs:
    """The jobs an example works on: one QUEUED, one RUNNING (claimed by ``w``)."""

    queued: JobStatus
    running: JobStatus


@dataclass(frozen=True)
class Call:
    """One parameter of one method: how to call it with ``value``, and what an accepted
    ``value`` must satisfy (``accepted(backend, jobs, value, outcome)``)."""

    owner: str
    param: str
    values: st.SearchStrategy[Any]
    run: Callable[[Any, Jobs, Any], Any]
    accepted: Callable[[Any, Jobs, Any, Any], None]


def _valid_key(value: Any, limit: int = MAX_ID) -> None:
    assert type(value) is str, value
    assert value.strip(), value
    assert "\x00" not in value, value
    assert len(value) <= limit, value


def _valid_id(value: Any) -> None:
    assert type(value) is str, value
    assert 0 < len(value) <= MAX_ID, value
    assert "\x00" not in value, value


def _same_json(stored: Any, given: Any) -> None:
    """Stored exactly as given: equal, and of the same JSON shape (no key or type rewritten)."""
    assert stored == given
    assert json.dumps(stored, sort_keys=True) == json.dumps(given, sort_keys=True)
    assert _shape(stored) == _shape(given), (stored, given)


def _shape(value: Any) -> Any:
    if isinstance(value, dict):
        return {(type(k).__name__, k): _shape(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_shape(v) for v in value])
    return type(value).__name__ if not isinstance(value, bool | int | float) else repr(value)


def _lease(value: Any) -> None:
    assert not isinstance(value, bool), value
    assert isinstance(value, int | float), value
    assert 0 < value <= MAX_LEASE, value


# --- the calls -------------------------------------------------------------------------------


def _submit_with(param: str, *, via: str) -> Callable[[Any, Jobs, Any], Any]:
    def run(backend: Any, jobs: Jobs, value: Any) -> Any:
        kwargs: dict[str, Any] = {"job_type": "demo", "payload": {"n": 1}, **OWNER}
        kwargs["idempotency_key"] = None
        kwargs[param] = value
        job_type, payload = kwargs.pop("job_type"), kwargs.pop("payload")
        if via == "enqueue_durable":
            return enqueue_durable(job_type, payload, backend=backend, **kwargs)
        return backend.submit(job_type, payload, **kwargs).id

    return run


def _submitted(param: str) -> Callable[[Any, Jobs, Any, Any], None]:
    def accepted(backend: Any, jobs: Jobs, value: Any, job_id: Any) -> None:
        stored = backend.load(job_id)
        assert stored is not None
        if param == "payload":
            _same_json(stored.payload, value)
            return
        if param == "idempotency_key" and value is None:
            return
        _valid_key(value, MAX_KEY if param == "idempotency_key" else MAX_ID)
        field = {"job_type": stored.type, "idempotency_key": stored.idempotency_key}
        field.update(stored.scope.as_kwargs())
        assert field[param] == value

    return accepted


def _scoped(method: str, param: str) -> Call:
    def run(backend: Any, jobs: Jobs, value: Any) -> Any:
        kwargs: dict[str, Any] = {"job_id": jobs.queued.id, **OWNER, param: value}
        return getattr(backend, method)(kwargs.pop("job_id"), **kwargs)

    def accepted(backend: Any, jobs: Jobs, value: Any, outcome: Any) -> None:
        if param == "job_id":
            assert type(value) is str, value
            assert outcome is None or value == jobs.queued.id
        else:
            _valid_key(value)
            assert outcome is None or value == OWNER[param]

    return Call(method, param, TEXTS, run, accepted)


def _load() -> Call:
    def accepted(backend: Any, jobs: Jobs, value: Any, outcome: Any) -> None:
        assert type(value) is str, value
        assert outcome is None or value in (jobs.queued.id, jobs.running.id)

    return Call("load", "job_id", TEXTS, lambda b, j, v: b.load(v), accepted)


def _unknown_job(outcome: Any) -> None:
    assert outcome is None or outcome is False or isinstance(outcome, JobNotFoundError), outcome


def _worker_call(method: str, param: str, values: st.SearchStrategy[Any]) -> Call:
    """``claim``, ``claim_next``, ``renew``, ``release``, ``mark`` or ``progress`` with
    ``value`` as ``param`` (the other arguments valid)."""

    def run(backend: Any, jobs: Jobs, value: Any) -> Any:
        args: dict[str, Any] = {"job_id": jobs.running.id, "worker": "w", "lease_s": 30.0}
        if method == "claim":
            args["job_id"] = jobs.queued.id
        if method == "mark":
            args = {"job_id": jobs.running.id, "state": JobState.SUCCEEDED}
        if method == "progress":
            args = {"job_id": jobs.running.id, "k": 1, "n": 2, "message": "half"}
        if method == "claim_next":
            args = {"worker": "w", "lease_s": 30.0, "job_types": None}
        if method == "release":
            del args["lease_s"]
        args[param] = value
        if method in ("claim_next",):
            return backend.claim_next(**args)
        job_id = args.pop("job_id")
        positional = [args.pop(n) for n in ("state", "k", "n", "message") if n in args]
        try:
            return getattr(backend, method)(job_id, *positional, **args)
        except JobNotFoundError as exc:
            return exc

    def accepted(backend: Any, jobs: Jobs, value: Any, outcome: Any) -> None:
        if param == "job_id":
            _valid_id(value)
            if value not in (jobs.queued.id, jobs.running.id):
                _unknown_job(outcome)
        elif param == "worker":
            _valid_key(value)
        elif param == "lease_s":
            _lease(value)
        elif param == "job_types":
            assert value is None or (not isinstance(value, str) and all(_ok(t) for t in value))
        elif param == "state":
            assert JobState(value) is JobState.SUCCEEDED or outcome.state is JobState(value)
        elif param in ("k", "n", "message"):
            stored = backend.load(jobs.running.id)
            given = {"k": 1, "n": 2, "message": "half", param: value}
            assert stored.progress == JobProgress(**given)
            assert type(stored.progress.k) is int
            assert type(stored.progress.n) is int
            assert type(value) is (str if param == "message" else int), value

    return Call(method, param, values, run, accepted)


def _ok(job_type: Any) -> bool:
    _valid_key(job_type)
    return True


def _mark_with(param: str) -> Call:
    state = JobState.SUCCEEDED if param == "result" else JobState.FAILED

    def run(backend: Any, jobs: Jobs, value: Any) -> Any:
        return backend.mark(jobs.running.id, state, **{param: value})

    def accepted(backend: Any, jobs: Jobs, value: Any, outcome: Any) -> None:
        stored = backend.load(jobs.running.id)
        if param == "result":
            _same_json(stored.result, value)
        else:
            assert value is None or type(value) is str, value
            assert stored.error == value

    values = JSONISH if param == "result" else TEXTS
    return Call("mark", param, st.one_of(values, JUNK), run, accepted)


def _cleanup() -> Call:
    def accepted(backend: Any, jobs: Jobs, value: Any, outcome: Any) -> None:
        assert value is None or (
            not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)
        ), value
        assert isinstance(outcome, int)

    return Call(
        "cleanup_expired", "now", NUMBERS, lambda b, j, v: b.cleanup_expired(now=v), accepted
    )


CALLS: dict[str, Call] = {}
for _via in ("submit", "enqueue_durable"):
    for _param in ("job_type", "payload", "auth_subject", "tenant_id", "idempotency_key"):
        CALLS[f"{_via}.{_param}"] = Call(
            _via,
            _param,
            st.one_of(JSONISH, JUNK) if _param == "payload" else TEXTS,
            _submit_with(_param, via=_via),
            _submitted(_param),
        )
for _method in ("get", "request_cancel"):
    for _param in ("job_id", "auth_subject", "tenant_id"):
        CALLS[f"{_method}.{_param}"] = _scoped(_method, _param)
CALLS["load.job_id"] = _load()
CALLS["mark.result"] = _mark_with("result")
CALLS["mark.error"] = _mark_with("error")
CALLS["mark.state"] = _worker_call("mark", "state", TEXTS)
CALLS["mark.job_id"] = _worker_call("mark", "job_id", TEXTS)
for _param in ("job_id", "k", "n", "message"):
    CALLS[f"progress.{_param}"] = _worker_call("progress", _param, NUMBERS)
for _method, _params in {
    "claim": ("job_id", "worker", "lease_s"),
    "claim_next": ("worker", "lease_s", "job_types"),
    "renew": ("job_id", "worker", "lease_s"),
    "release": ("job_id", "worker"),
}.items():
    for _param in _params:
        _values = NUMBERS if _param == "lease_s" else JOB_TYPES if _param == "job_types" else TEXTS
        CALLS[f"{_method}.{_param}"] = _worker_call(_method, _param, _values)
CALLS["cleanup_expired.now"] = _cleanup()

ODD_VALUES = [*TRICKY, *ODD_TEXT, {1: 2}, {"a": (1, 2)}, [float("nan")], {None: 1}, {True: 1}]


# --- the rule --------------------------------------------------------------------------------


def _snapshot(backend: Any, jobs: Jobs) -> tuple[Any, ...]:
    return (len(backend), backend.load(jobs.queued.id), backend.load(jobs.running.id))


def _jobs(backend: Any) -> Jobs:
    queued = backend.submit("demo", {"n": 1}, **OWNER)
    running = backend.submit("demo", {"n": 2}, **OWNER)
    claimed = backend.claim(running.id, worker="w", lease_s=60)
    assert claimed is not None
    return Jobs(queued, claimed)


def check(backend: Any, call: Call, value: Any) -> None:
    """Apply the rule to ``call`` with ``value`` on fresh jobs of ``backend``."""
    jobs = _jobs(backend)
    before = _snapshot(backend, jobs)
    try:
        outcome = call.run(backend, jobs, value)
    except (TypeError, ValueError) as exc:
        message = str(exc)
        where = f"{call.param}={value!r:.60} on {call.owner}"
        assert message.startswith((f"{call.owner}: ", f"{call.owner}(")), (where, message)
        assert call.param in message, (where, message)
        assert not any(word in message for word in ENGINE_WORDS), (where, message)
        assert _snapshot(backend, jobs) == before, f"{where}: refused, but something changed"
        return
    call.accepted(backend, jobs, value, outcome)


SOME = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


class ValidationConformance:
    """The rule on every parameter of one backend (subclass and provide ``backend_factory``)."""

    @pytest.fixture
    def backend(self, backend_factory: Callable[..., JobBackend]) -> JobBackend:
        return backend_factory()

    @pytest.mark.parametrize("name", sorted(CALLS))
    @SOME
    @given(data=st.data())
    def test_a_bad_value_is_refused_naming_it_or_stored_as_given(
        self, backend: JobBackend, name: str, data: Any
    ) -> None:
        call = CALLS[name]
        check(backend, call, data.draw(call.values, label=call.param))

    @pytest.mark.parametrize("name", sorted(CALLS))
    def test_every_tricky_value_is_refused_naming_it_or_stored_as_given(
        self, backend: JobBackend, name: str
    ) -> None:
        for value in ODD_VALUES:
            check(backend, CALLS[name], value)
