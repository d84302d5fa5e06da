"""Reusable conformance tests for any ``hedron_core.jobs.JobBackend``.

Plug a backend in by subclassing and providing a ``backend_factory`` fixture::

    from tests.jobs.jobs_conformance import BackendConformance  # the base protocol
    from tests.jobs.jobs_conformance import ClaimingBackendConformance  # claiming backends


    class TestRedisBackend(BackendConformance):
        @pytest.fixture
        def backend_factory(self, redis_url):
            made = []

            def make(*, clock=None, retention_s=None):
                backend = RedisJobBackend(redis_url, clock=clock, retention_s=retention_s or 3600)
                made.append(backend)
                return backend

            yield make
            for backend in made:
                backend.close()

``backend_factory(clock=None, retention_s=None)`` returns a fresh, empty backend using
``clock`` (a ``VirtualClock``; ``None`` means the real clock) and ``retention_s`` (``None``
means the backend's default). Backends made by one test must not share jobs with another
test's backends.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable
from typing import Any

import pytest

from hedron_core.jobs import (
    TERMINAL_STATES,
    IdempotencyConflictError,
    IllegalTransitionError,
    JobBackend,
    JobNotFoundError,
    JobState,
    JobStatus,
    VirtualClock,
)

__all__ = ["BackendConformance", "ClaimingBackendConformance"]

OWNER = {"auth_subject": "alice", "tenant_id": "acme"}
OTHER_SUBJECT = {"auth_subject": "mallory", "tenant_id": "acme"}
OTHER_TENANT = {"auth_subject": "alice", "tenant_id": "globex"}

Factory = Callable[..., Any]


def _submit(backend: JobBackend, payload: Any = None, **extra: Any) -> JobStatus:
    return backend.submit("demo", {"n": 1} if payload is None else payload, **OWNER, **extra)


def _running(backend: JobBackend) -> JobStatus:
    job = _submit(backend)
    return backend.mark(job.id, JobState.RUNNING)


def _assert_same(before: JobStatus, after: JobStatus | None) -> None:
    assert after is not None
    assert after == before


class BackendConformance:
    """The behaviour every ``JobBackend`` shares (subclass and provide ``backend_factory``)."""

    @pytest.fixture
    def backend(self, backend_factory: Factory) -> JobBackend:
        backend: JobBackend = backend_factory()
        return backend

    @pytest.fixture
    def clock(self) -> VirtualClock:
        return VirtualClock(start=1_000.0)

    @pytest.fixture
    def timed(self, backend_factory: Factory, clock: VirtualClock) -> JobBackend:
        backend: JobBackend = backend_factory(clock=clock, retention_s=60.0)
        return backend

    # --- submit ----------------------------------------------------------------------

    def test_submit_returns_a_queued_job_in_its_scope(self, backend: JobBackend) -> None:
        job = backend.submit("resize", {"width": 640, "name": "é"}, **OWNER)
        assert job.state is JobState.QUEUED
        assert not job.terminal
        assert job.type == "resize"
        assert job.scope.auth_subject == "alice"
        assert job.scope.tenant_id == "acme"
        assert job.payload == {"width": 640, "name": "é"}
        assert (job.result, job.error, job.progress, job.cancel_requested) == (
            None,
            None,
            None,
            False,
        )
        assert backend.get(job.id, **OWNER) == job

    def test_ids_are_unique_urlsafe_and_carry_128_random_bits(self, backend: JobBackend) -> None:
        ids = {_submit(backend).id for _ in range(200)}
        assert len(ids) == 200
        for job_id in ids:
            raw = base64.urlsafe_b64decode(job_id + "=" * (-len(job_id) % 4))
            assert len(raw) >= 16

    def test_submit_rejects_bad_arguments_naming_them(self, backend: JobBackend) -> None:
        with pytest.raises(ValueError, match="job_type"):
            backend.submit("", {}, **OWNER)
        with pytest.raises(TypeError, match="payload"):
            backend.submit("demo", {"f": object()}, **OWNER)
        with pytest.raises(TypeError, match="auth_subject"):
            backend.submit("demo", {}, auth_subject=None, tenant_id="acme")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="tenant_id"):
            backend.submit("demo", {}, auth_subject="alice", tenant_id=" ")
        with pytest.raises(ValueError, match="idempotency_key"):
            backend.submit("demo", {}, **OWNER, idempotency_key="")

    def test_rejected_submit_with_a_key_stores_nothing(self, backend: JobBackend) -> None:
        with pytest.raises(TypeError, match="payload"):
            backend.submit("demo", {"f": {1, 2}}, **OWNER, idempotency_key="k")
        job = backend.submit("demo", {"ok": 1}, **OWNER, idempotency_key="k")
        assert job.payload == {"ok": 1}

    # --- scoped reads --------------------------------------------------------------------

    def test_foreign_and_missing_jobs_look_the_same(self, backend: JobBackend) -> None:
        job = _submit(backend)
        assert backend.get(job.id, **OTHER_SUBJECT) is None
        assert backend.get(job.id, **OTHER_TENANT) is None
        assert backend.get("no-such-job-" + "x" * 12, **OWNER) is None
        assert backend.get(job.id, **OWNER) is not None

    def test_scoped_reads_require_a_scope(self, backend: JobBackend) -> None:
        job = _submit(backend)
        with pytest.raises(ValueError, match="auth_subject"):
            backend.get(job.id, auth_subject="", tenant_id="acme")
        with pytest.raises(TypeError, match="tenant_id"):
            backend.get(job.id, auth_subject="alice", tenant_id=None)  # type: ignore[arg-type]

    def test_load_is_unscoped_for_workers(self, backend: JobBackend) -> None:
        job = _submit(backend)
        loaded = backend.load(job.id)
        assert loaded is not None
        assert loaded.id == job.id
        assert backend.load("missing") is None

    # --- state machine -------------------------------------------------------------------

    def test_queued_running_succeeded_with_result(
        self, timed: JobBackend, clock: VirtualClock
    ) -> None:
        job = _submit(timed)
        assert job.created_at == 1_000.0
        clock.advance(2)
        running = timed.mark(job.id, JobState.RUNNING)
        assert running.state is JobState.RUNNING
        assert running.started_at == 1_002.0
        assert running.finished_at is None
        clock.advance(3)
        done = timed.mark(job.id, JobState.SUCCEEDED, result={"ok": True, "items": [1, 2]})
        assert done.state is JobState.SUCCEEDED
        assert done.terminal
        assert done.result == {"ok": True, "items": [1, 2]}
        assert done.finished_at == 1_005.0
        assert done.updated_at == 1_005.0
        assert done.created_at == 1_000.0
        assert timed.get(job.id, **OWNER) == done

    @pytest.mark.parametrize("state", sorted(TERMINAL_STATES))
    def test_queued_may_end_directly(self, backend: JobBackend, state: JobState) -> None:
        job = _submit(backend)
        error = "boom" if state is JobState.FAILED else None
        done = backend.mark(job.id, state, error=error)
        assert done.state is state
        assert done.started_at is None
        assert done.finished_at is not None
        assert done.error == error

    def test_failed_keeps_the_error_text(self, backend: JobBackend) -> None:
        job = _running(backend)
        failed = backend.mark(job.id, JobState.FAILED, error="ValueError: width must be > 0")
        assert failed.error == "ValueError: width must be > 0"
        assert failed.result is None

    @pytest.mark.parametrize("terminal", sorted(TERMINAL_STATES))
    @pytest.mark.parametrize("target", list(JobState))
    def test_terminal_is_final(
        self, backend: JobBackend, terminal: JobState, target: JobState
    ) -> None:
        job = backend.mark(_submit(backend).id, terminal)
        with pytest.raises(IllegalTransitionError, match="illegal transition"):
            backend.mark(job.id, target)
        _assert_same(job, backend.get(job.id, **OWNER))

    @pytest.mark.parametrize("target", [JobState.QUEUED, JobState.RUNNING])
    def test_running_never_goes_back(self, backend: JobBackend, target: JobState) -> None:
        job = _running(backend)
        with pytest.raises(IllegalTransitionError, match="illegal transition"):
            backend.mark(job.id, target)
        _assert_same(job, backend.get(job.id, **OWNER))

    def test_queued_cannot_be_requested(self, backend: JobBackend) -> None:
        job = _submit(backend)
        with pytest.raises(IllegalTransitionError, match="queued -> queued"):
            backend.mark(job.id, JobState.QUEUED)
        _assert_same(job, backend.get(job.id, **OWNER))

    def test_illegal_transition_error_names_both_states(self, backend: JobBackend) -> None:
        job = backend.mark(_submit(backend).id, JobState.SUCCEEDED)
        with pytest.raises(IllegalTransitionError) as info:
            backend.mark(job.id, JobState.RUNNING)
        assert info.value.current is JobState.SUCCEEDED
        assert info.value.requested is JobState.RUNNING
        assert "succeeded -> running" in str(info.value)

    def test_mark_validates_before_changing_anything(self, backend: JobBackend) -> None:
        job = _running(backend)
        with pytest.raises(ValueError, match="result"):
            backend.mark(job.id, JobState.FAILED, result={"x": 1})
        with pytest.raises(ValueError, match="error"):
            backend.mark(job.id, JobState.SUCCEEDED, error="nope")
        with pytest.raises(TypeError, match="result"):
            backend.mark(job.id, JobState.SUCCEEDED, result={"x": object()})
        with pytest.raises(ValueError, match="state"):
            backend.mark(job.id, "finished")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="error"):
            backend.mark(job.id, JobState.FAILED, error=42)  # type: ignore[arg-type]
        _assert_same(job, backend.get(job.id, **OWNER))

    def test_mark_accepts_state_values(self, backend: JobBackend) -> None:
        job = _submit(backend)
        assert backend.mark(job.id, "running").state is JobState.RUNNING  # type: ignore[arg-type]

    def test_mark_unknown_job(self, backend: JobBackend) -> None:
        with pytest.raises(JobNotFoundError, match="missing"):
            backend.mark("missing", JobState.SUCCEEDED)

    def test_only_one_of_racing_finishers_wins(self, backend: JobBackend) -> None:
        job = _running(backend)
        outcomes: list[str] = []
        lock = threading.Lock()
        barrier = threading.Barrier(8)

        def finish(i: int) -> None:
            barrier.wait()
            try:
                backend.mark(job.id, JobState.SUCCEEDED, result={"winner": i})
                outcome = f"won:{i}"
            except IllegalTransitionError:
                outcome = "lost"
            with lock:
                outcomes.append(outcome)

        threads = [threading.Thread(target=finish, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        winners = [o for o in outcomes if o.startswith("won")]
        assert len(outcomes) == 8
        assert len(winners) == 1
        final = backend.get(job.id, **OWNER)
        assert final is not None
        assert final.result == {"winner": int(winners[0].split(":")[1])}

    # --- progress ------------------------------------------------------------------------

    def test_progress_while_running(self, backend: JobBackend) -> None:
        job = _running(backend)
        updated = backend.progress(job.id, 3, 10, "resizing 3 of 10")
        assert updated.progress is not None
        assert (updated.progress.k, updated.progress.n) == (3, 10)
        assert updated.progress.message == "resizing 3 of 10"
        stored = backend.get(job.id, **OWNER)
        assert stored is not None
        assert stored.progress == updated.progress

    def test_progress_refused_unless_running(self, backend: JobBackend) -> None:
        queued = _submit(backend)
        with pytest.raises(IllegalTransitionError, match="progress"):
            backend.progress(queued.id, 1, 2)
        _assert_same(queued, backend.get(queued.id, **OWNER))
        done = backend.mark(_running(backend).id, JobState.SUCCEEDED)
        with pytest.raises(IllegalTransitionError, match="progress"):
            backend.progress(done.id, 2, 2)
        _assert_same(done, backend.get(done.id, **OWNER))
        with pytest.raises(JobNotFoundError):
            backend.progress("missing", 1, 2)

    def test_progress_validates_k_and_n(self, backend: JobBackend) -> None:
        job = backend.progress(_running(backend).id, 1, 4, "one")
        with pytest.raises(ValueError, match="k must be between"):
            backend.progress(job.id, 5, 4)
        with pytest.raises(ValueError, match="n must be"):
            backend.progress(job.id, 0, 0)
        with pytest.raises(TypeError, match="k must be an int"):
            backend.progress(job.id, 1.5, 4)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="message"):
            backend.progress(job.id, 1, 4, None)  # type: ignore[arg-type]
        _assert_same(job, backend.get(job.id, **OWNER))

    # --- cancel --------------------------------------------------------------------------

    def test_cancel_of_a_queued_job_ends_it(self, backend: JobBackend) -> None:
        job = _submit(backend)
        cancelled = backend.request_cancel(job.id, **OWNER)
        assert cancelled is not None
        assert cancelled.state is JobState.CANCELLED
        assert cancelled.cancel_requested
        assert cancelled.finished_at is not None

    def test_cancel_of_a_running_job_sets_the_flag(self, backend: JobBackend) -> None:
        job = _running(backend)
        flagged = backend.request_cancel(job.id, **OWNER)
        assert flagged is not None
        assert flagged.state is JobState.RUNNING
        assert flagged.cancel_requested
        loaded = backend.load(job.id)
        assert loaded is not None
        assert loaded.cancel_requested
        assert backend.mark(job.id, JobState.CANCELLED).state is JobState.CANCELLED

    def test_cancel_of_a_finished_job_records_nothing_and_says_so(
        self, backend: JobBackend
    ) -> None:
        for end in (JobState.SUCCEEDED, JobState.FAILED, JobState.CANCELLED):
            done = backend.mark(_submit(backend).id, end)
            assert backend.request_cancel(done.id, **OWNER) is None
            _assert_same(done, backend.get(done.id, **OWNER))

    def test_a_second_cancel_of_a_queued_job_records_nothing(self, backend: JobBackend) -> None:
        job = _submit(backend)
        assert backend.request_cancel(job.id, **OWNER)
        cancelled = backend.get(job.id, **OWNER)
        assert backend.request_cancel(job.id, **OWNER) is None
        _assert_same(cancelled, backend.get(job.id, **OWNER))  # type: ignore[arg-type]

    # --- code written for hedron 1.1.3 ----------------------------------------------------

    def test_hedron_1_1_3_job_code_runs_unchanged(self, backend: JobBackend) -> None:
        handle = backend.submit("resize", {"w": 64}, tenant_id="acme", auth_subject="alice")
        job_id = handle.job_id
        status = backend.get(job_id, auth_subject="alice", tenant_id="acme")
        assert status is not None
        assert (status.job_id, status.job_type) == (job_id, "resize")
        assert (status.tenant_id, status.auth_subject) == ("acme", "alice")
        assert status.retry_after == 2
        assert isinstance(status.retry_after, int)
        assert status.state is JobState.QUEUED
        assert not backend.request_cancel(job_id, auth_subject="mallory", tenant_id="acme")
        assert not backend.request_cancel("no-such-job", auth_subject="alice", tenant_id="acme")
        assert backend.request_cancel(job_id, auth_subject="alice", tenant_id="acme")
        assert not backend.request_cancel(job_id, auth_subject="alice", tenant_id="acme")
        running = backend.mark(_submit(backend).id, JobState.RUNNING)
        assert backend.request_cancel(running.job_id, **OWNER)
        assert backend.request_cancel(running.job_id, **OWNER)  # still asked to stop

    def test_the_1_1_3_names_are_read_only_and_not_served(self, backend: JobBackend) -> None:
        job = _submit(backend)
        for name in ("job_id", "job_type", "tenant_id", "auth_subject", "retry_after"):
            with pytest.raises((AttributeError, TypeError)):  # TypeError: CPython 3.11's slots
                setattr(job, name, "x")
            assert name not in job.to_public_dict()
        assert job.to_public_dict()["id"] == job.job_id == job.id

    def test_cancel_is_scoped(self, backend: JobBackend) -> None:
        job = _submit(backend)
        assert backend.request_cancel(job.id, **OTHER_SUBJECT) is None
        assert backend.request_cancel(job.id, **OTHER_TENANT) is None
        assert backend.request_cancel("missing", **OWNER) is None
        _assert_same(job, backend.get(job.id, **OWNER))

    # --- idempotency ---------------------------------------------------------------------

    def test_same_key_same_scope_returns_the_same_job(self, backend: JobBackend) -> None:
        first = _submit(backend, idempotency_key="order-7")
        again = _submit(backend, idempotency_key="order-7")
        assert again.id == first.id
        assert _submit(backend).id != first.id

    def test_same_key_after_progress_returns_the_current_job(self, backend: JobBackend) -> None:
        first = _submit(backend, idempotency_key="order-8")
        backend.mark(first.id, JobState.SUCCEEDED, result={"done": 1})
        again = _submit(backend, idempotency_key="order-8")
        assert again.id == first.id
        assert again.state is JobState.SUCCEEDED

    def test_keys_are_scoped(self, backend: JobBackend) -> None:
        mine = backend.submit("demo", {"n": 1}, **OWNER, idempotency_key="k")
        theirs = backend.submit("demo", {"n": 1}, **OTHER_SUBJECT, idempotency_key="k")
        other_tenant = backend.submit("demo", {"n": 1}, **OTHER_TENANT, idempotency_key="k")
        assert len({mine.id, theirs.id, other_tenant.id}) == 3
        assert backend.get(theirs.id, **OWNER) is None

    def test_key_reuse_with_other_payload_is_refused(self, backend: JobBackend) -> None:
        first = _submit(backend, {"n": 1}, idempotency_key="k")
        with pytest.raises(IdempotencyConflictError, match="idempotency_key"):
            _submit(backend, {"n": 2}, idempotency_key="k")
        with pytest.raises(IdempotencyConflictError):
            backend.submit("other", {"n": 1}, **OWNER, idempotency_key="k")
        _assert_same(first, backend.get(first.id, **OWNER))

    def test_racing_submits_with_one_key_make_one_job(self, backend: JobBackend) -> None:
        ids: list[str] = []
        lock = threading.Lock()
        barrier = threading.Barrier(8)

        def go() -> None:
            barrier.wait()
            job = _submit(backend, idempotency_key="race")
            with lock:
                ids.append(job.id)

        threads = [threading.Thread(target=go) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert len(ids) == 8
        assert len(set(ids)) == 1

    # --- retention -----------------------------------------------------------------------

    def test_cleanup_removes_only_old_terminal_jobs(
        self, timed: JobBackend, clock: VirtualClock
    ) -> None:
        old_done = timed.mark(_submit(timed).id, JobState.SUCCEEDED)
        old_failed = timed.mark(_submit(timed).id, JobState.FAILED, error="x")
        old_queued = _submit(timed)
        old_running = _running(timed)
        clock.advance(61)
        fresh_done = timed.mark(_submit(timed).id, JobState.CANCELLED)
        assert timed.cleanup_expired() == 2
        assert timed.get(old_done.id, **OWNER) is None
        assert timed.get(old_failed.id, **OWNER) is None
        for kept in (old_queued, old_running, fresh_done):
            assert timed.get(kept.id, **OWNER) is not None
        assert timed.cleanup_expired() == 0
        assert timed.cleanup_expired(now=clock() + 61) == 1

    def test_cleanup_frees_idempotency_keys(self, timed: JobBackend, clock: VirtualClock) -> None:
        first = timed.mark(_submit(timed, idempotency_key="k").id, JobState.SUCCEEDED)
        clock.advance(120)
        assert timed.cleanup_expired() == 1
        assert _submit(timed, idempotency_key="k").id != first.id


class ClaimingBackendConformance(BackendConformance):
    """Adds the lease-based claiming used by the built-in runners."""

    def test_claim_next_takes_the_oldest_queued_job(self, timed: Any, clock: VirtualClock) -> None:
        first = _submit(timed)
        clock.advance(1)
        second = _submit(timed)
        got = timed.claim_next(worker="w1", lease_s=30)
        assert got.id == first.id
        assert got.state is JobState.RUNNING
        assert got.attempts == 1
        assert got.started_at == clock()
        assert timed.claim_next(worker="w1", lease_s=30).id == second.id
        assert timed.claim_next(worker="w1", lease_s=30) is None

    def test_claim_filters_by_job_type(self, backend: Any) -> None:
        other = backend.submit("other", {}, **OWNER)
        mine = _submit(backend)
        assert backend.claim_next(worker="w", lease_s=30, job_types=["demo"]).id == mine.id
        assert backend.claim_next(worker="w", lease_s=30, job_types=["demo"]) is None
        assert backend.claim_next(worker="w", lease_s=30, job_types=[]) is None
        assert backend.load(other.id).state is JobState.QUEUED

    def test_a_live_lease_blocks_others_an_expired_one_does_not(
        self, timed: Any, clock: VirtualClock
    ) -> None:
        job = _submit(timed)
        assert timed.claim(job.id, worker="w1", lease_s=30) is not None
        assert timed.claim(job.id, worker="w2", lease_s=30) is None
        assert timed.claim_next(worker="w2", lease_s=30) is None
        clock.advance(20)
        assert timed.renew(job.id, worker="w1", lease_s=30)
        assert not timed.renew(job.id, worker="w2", lease_s=30)
        clock.advance(20)
        assert timed.claim(job.id, worker="w2", lease_s=30) is None
        clock.advance(11)
        again = timed.claim_next(worker="w2", lease_s=30)
        assert again.id == job.id
        assert again.state is JobState.RUNNING
        assert again.attempts == 2
        assert not timed.renew(job.id, worker="w1", lease_s=30)

    def test_a_released_lease_lets_another_worker_claim_at_once(
        self, timed: Any, clock: VirtualClock
    ) -> None:
        job = _submit(timed)
        assert timed.claim(job.id, worker="w1", lease_s=30) is not None
        assert not timed.release(job.id, worker="w2")  # not its lease
        assert timed.claim(job.id, worker="w2", lease_s=30) is None
        assert timed.release(job.id, worker="w1")
        again = timed.claim(job.id, worker="w2", lease_s=30)  # no time has passed
        assert again is not None
        assert again.attempts == 2

    @pytest.mark.parametrize("lease", [0, -5, float("nan"), float("inf"), "30", True, 10**400])
    def test_a_lease_that_is_not_a_finite_positive_number_is_refused(
        self, backend: Any, lease: Any
    ) -> None:
        job = _submit(backend)
        error = TypeError if isinstance(lease, str | bool) else ValueError
        with pytest.raises(error, match=r"claim: lease_s must be a (finite )?number"):
            backend.claim(job.id, worker="w1", lease_s=lease)
        with pytest.raises(error, match=r"claim_next: lease_s must be a (finite )?number"):
            backend.claim_next(worker="w1", lease_s=lease)
        _assert_same(job, backend.get(job.id, **OWNER))  # nothing claimed: a job never runs twice
        assert backend.claim(job.id, worker="w1", lease_s=30) is not None
        with pytest.raises(error, match=r"renew: lease_s must be a (finite )?number"):
            backend.renew(job.id, worker="w1", lease_s=lease)
        assert backend.claim(job.id, worker="w2", lease_s=30) is None  # w1's lease still holds

    def test_finished_and_cancelled_jobs_are_not_claimable(self, backend: Any) -> None:
        done = backend.mark(_submit(backend).id, JobState.SUCCEEDED)
        cancelled = _submit(backend)
        backend.request_cancel(cancelled.id, **OWNER)
        assert backend.claim(done.id, worker="w", lease_s=30) is None
        assert backend.claim(cancelled.id, worker="w", lease_s=30) is None
        assert backend.claim_next(worker="w", lease_s=30) is None
        assert backend.claim("missing", worker="w", lease_s=30) is None

    def test_concurrent_claimers_never_share_a_job(self, backend: Any) -> None:
        jobs = {_submit(backend).id for _ in range(60)}
        claimed: list[str] = []
        lock = threading.Lock()
        barrier = threading.Barrier(6)

        def claimer(name: str) -> None:
            barrier.wait()
            while True:
                job = backend.claim_next(worker=name, lease_s=60)
                if job is None:
                    return
                with lock:
                    claimed.append(job.id)

        threads = [threading.Thread(target=claimer, args=(f"w{i}",)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        assert sorted(claimed) == sorted(jobs)
