"""RedisJobBackend: the shared conformance suite, plus what only Redis does (TTL, atomicity)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from docsite.testing.redis_server import RedisServer, free_port
from hedron_core.jobs import JobState, VirtualClock, redis_backend
from hedron_core.jobs.redis_backend import RedisJobBackend, RedisUnavailableError
from tests.jobs.jobs_conformance import OWNER, ClaimingBackendConformance


class TestRedisBackend(ClaimingBackendConformance):
    @pytest.fixture
    def backend_factory(self, redis_url: str) -> Iterator[Callable[..., Any]]:
        made: list[RedisJobBackend] = []

        def make(*, clock: Any = None, retention_s: float | None = None) -> RedisJobBackend:
            kwargs: dict[str, Any] = {"clock": clock, "prefix": f"conf:{uuid.uuid4().hex}:"}
            if retention_s is not None:
                kwargs["retention_s"] = retention_s
            backend = RedisJobBackend(redis_url, **kwargs)
            made.append(backend)
            return backend

        yield make
        for backend in made:
            backend.close()


@pytest.fixture
def backend(redis_url: str, prefix: str) -> Iterator[RedisJobBackend]:
    b = RedisJobBackend(redis_url, prefix=prefix, retention_s=60)
    yield b
    b.close()


def test_only_terminal_jobs_get_a_ttl(backend: RedisJobBackend, redis_client: Any) -> None:
    queued = backend.submit("demo", {}, **OWNER, idempotency_key="q")
    running = backend.mark(backend.submit("demo", {}, **OWNER).id, JobState.RUNNING)
    done = backend.mark(backend.submit("demo", {}, **OWNER, idempotency_key="d").id, "succeeded")
    key = backend.prefix + "job:"
    assert redis_client.pttl(key + queued.id) == -1
    assert redis_client.pttl(key + running.id) == -1
    assert 0 < redis_client.pttl(key + done.id) <= 60_000
    idem_keys = list(redis_client.scan_iter(match=backend.prefix + "idem:*"))
    ttls = sorted(redis_client.pttl(k) for k in idem_keys)
    assert ttls[0] == -1
    assert 0 < ttls[1] <= 60_000


def test_cleanup_never_deletes_a_running_job(backend: RedisJobBackend, redis_client: Any) -> None:
    running = backend.mark(backend.submit("demo", {}, **OWNER).id, JobState.RUNNING)
    queued = backend.submit("demo", {}, **OWNER)
    # Even a corrupted index naming live jobs as finished must not delete them.
    redis_client.zadd(backend.prefix + "finished", {running.id: 0, queued.id: 0})
    assert backend.cleanup_expired(now=1e12) == 0
    assert backend.load(running.id) == running
    assert backend.load(queued.id) == queued
    assert redis_client.zcard(backend.prefix + "finished") == 0


def test_cleanup_handles_more_than_one_batch(
    redis_url: str, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_backend, "_CLEANUP_BATCH", 50)
    clock = VirtualClock(start=10.0)
    b = RedisJobBackend(redis_url, prefix=prefix, retention_s=0, clock=clock)
    try:
        for _ in range(120):
            b.mark(b.submit("demo", {}, **OWNER).id, JobState.SUCCEEDED)
        clock.advance(1)
        assert b.cleanup_expired() == 120
        assert len(b) == 0
    finally:
        b.close()


def test_prefixes_isolate_applications(redis_url: str, backend: RedisJobBackend) -> None:
    other = RedisJobBackend(redis_url, prefix=backend.prefix + "other:")
    try:
        job = backend.submit("demo", {}, **OWNER, idempotency_key="k")
        assert other.load(job.id) is None
        assert other.get(job.id, **OWNER) is None
        assert other.submit("demo", {}, **OWNER, idempotency_key="k").id != job.id
        assert other.claim_next(worker="w", lease_s=5) is not None
        assert backend.load(job.id).state is JobState.QUEUED  # type: ignore[union-attr]
    finally:
        other.close()


def test_two_clients_see_one_state(redis_url: str, backend: RedisJobBackend) -> None:
    """Two independent connection pools (as in two processes) share every change."""
    web2 = RedisJobBackend(redis_url, prefix=backend.prefix)
    try:
        job = backend.submit("demo", {"n": 2}, **OWNER)
        assert web2.claim(job.id, worker="w2", lease_s=5) is not None
        assert backend.claim(job.id, worker="w1", lease_s=5) is None
        web2.progress(job.id, 1, 2, "half")
        seen = backend.get(job.id, **OWNER)
        assert seen is not None
        assert seen.progress is not None
        assert seen.progress.message == "half"
        assert [s.id if s else None for s in backend.load_many([job.id, "nope"])] == [job.id, None]
    finally:
        web2.close()


def test_release_idempotency_key(backend: RedisJobBackend) -> None:
    first = backend.submit("demo", {}, **OWNER, idempotency_key="pay-1")
    backend.mark(first.id, JobState.FAILED, error="broker down")
    assert backend.release_idempotency_key(first.id)
    assert not backend.release_idempotency_key(first.id)
    second, created = backend.submit_new("demo", {}, **OWNER, idempotency_key="pay-1")
    assert created
    assert second.id != first.id
    assert backend.load(first.id).state is JobState.FAILED  # type: ignore[union-attr]


def test_submit_new_tells_whether_a_job_was_created(backend: RedisJobBackend) -> None:
    job, created = backend.submit_new("demo", {}, **OWNER, idempotency_key="x")
    again, created_again = backend.submit_new("demo", {}, **OWNER, idempotency_key="x")
    assert (created, created_again) == (True, False)
    assert again.id == job.id


def test_constructor_rejects_bad_arguments(redis_url: str) -> None:
    with pytest.raises(ValueError, match="prefix"):
        RedisJobBackend(redis_url, prefix="")
    with pytest.raises(ValueError, match="retention_s"):
        RedisJobBackend(redis_url, retention_s=-1)
    with pytest.raises(TypeError, match="retention_s"):
        RedisJobBackend(redis_url, retention_s="1")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="client"):
        RedisJobBackend(42)  # type: ignore[arg-type]


def test_unreachable_redis_fails_at_construction_naming_the_url() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    with pytest.raises(RedisUnavailableError, match=r"127\.0\.0\.1:\d+/0 is unreachable"):
        RedisJobBackend(url)


def test_outage_and_restart_without_persistence() -> None:
    """Redis restarted with persistence off: clear errors while down, lost jobs look
    missing afterwards, and the same backend object works again without a restart."""
    with RedisServer(persistence=False) as server:
        b = RedisJobBackend(server.url, prefix="p:")
        try:
            job = b.submit("demo", {}, **OWNER)
            server.stop()
            with pytest.raises(RedisUnavailableError, match=r"RedisJobBackend\.load: Redis at"):
                b.get(job.id, **OWNER)
            with pytest.raises(RedisUnavailableError, match="submit"):
                b.submit("demo", {}, **OWNER)
            server.start()
            assert b.get(job.id, **OWNER) is None
            with pytest.raises(Exception, match="not found"):
                b.mark(job.id, JobState.SUCCEEDED)
            fresh = b.submit("demo", {}, **OWNER)
            assert b.mark(fresh.id, JobState.SUCCEEDED).state is JobState.SUCCEEDED
        finally:
            b.close()


def test_acknowledged_jobs_survive_kill_with_persistence_on() -> None:
    with RedisServer(persistence=True) as server:
        b = RedisJobBackend(server.url, prefix="p:")
        try:
            job = b.submit("demo", {"keep": True}, **OWNER, idempotency_key="k")
            running = b.claim(job.id, worker="w", lease_s=30)
            server.kill()
            server.start()
            after = b.load(job.id)
            assert after == running
            assert b.submit("demo", {"keep": True}, **OWNER, idempotency_key="k").id == job.id
        finally:
            b.close()


def test_claim_next_pages_through_a_long_queue(backend: RedisJobBackend) -> None:
    for _ in range(250):
        backend.submit("other", {}, **OWNER)
    wanted = backend.submit("demo", {}, **OWNER)
    got = backend.claim_next(worker="w", lease_s=5, job_types=["demo"])
    assert got is not None
    assert got.id == wanted.id
    assert backend.claim_next(worker="w", lease_s=5, job_types=["demo"]) is None
