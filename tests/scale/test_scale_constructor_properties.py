"""Every public scale-out constructor refuses a bad value naming the parameter, storing and
sending nothing, or works with it: RedisJobBackend, ScaleConfig, QueuedJobBackend,
CeleryJobs and RQJobs, against the real redis-server of the session.

"Nothing stored or sent" is checked in Redis itself: after a refusal no key carries the
test's prefix or queue name. See ``tests/_support/bad_values.py`` for the values and the rule.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docsite.testing.redis_server import RedisServer
from docsite.testing.scale.tasks import TASKS
from hedron.integrations import QueuedJobBackend, RedisJobBackend, ScaleConfig
from hedron.integrations.celery import CeleryJobs
from hedron.integrations.rq import RQJobs
from hedron_core.jobs import JobState
from tests._support.bad_values import JUNK, NOT_CALLABLE, refused_or_works, sweep

OWNER = {"auth_subject": "alice", "tenant_id": "acme"}
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Scene:
    """One constructor under the rule, in a fresh key namespace of the session's Redis."""

    def __init__(self, redis_server: RedisServer) -> None:
        import redis

        self.url = redis_server.url
        self.client = redis.Redis.from_url(self.url)
        self.tag = ""

    def fresh(self) -> str:
        self.tag = f"prop:{uuid.uuid4().hex[:10]}:"
        return self.tag

    def keys(self) -> set[bytes]:
        """Every key in the session's Redis (other tests' too: compare before and after)."""
        return set(self.client.scan_iter(count=1000))

    def refusing(self, build: Callable[[], Any]) -> Any:
        before = self.keys()
        try:
            return build()
        except (TypeError, ValueError):
            assert self.keys() - before == set(), "a refused build stored or sent something"
            raise

    def config(self, **changes: Any) -> ScaleConfig:
        tag = self.tag
        values: dict[str, Any] = {
            "redis_url": self.url,
            "key_prefix": tag,
            "queue": f"{tag}queue",
            **changes,
        }
        return ScaleConfig(**values)


@pytest.fixture(scope="module")
def scene(redis_server: RedisServer) -> Any:
    made = Scene(redis_server)
    yield made
    made.client.close()


def _works(backend: Any) -> None:
    job = backend.submit("report", {"rows": 1}, **OWNER)
    assert backend.get(job.id, **OWNER) is not None
    running = backend.mark(job.id, JobState.RUNNING)
    backend.progress(running.id, 1, 2, "half")
    backend.mark(job.id, JobState.SUCCEEDED, result={"ok": True})
    backend.cleanup_expired()


def _redis_backend(scene: Scene, param: str, value: Any) -> RedisJobBackend:
    prefix = scene.fresh()
    kwargs: dict[str, Any] = {"client": scene.url, "prefix": prefix, param: value}
    client = kwargs.pop("client")
    return scene.refusing(lambda: RedisJobBackend(client, **kwargs))


def _redis_works(backend: RedisJobBackend) -> None:
    try:
        _works(backend)
    finally:
        backend.close()
        if not backend._owns_client:
            backend.client.close()


def _config(scene: Scene, param: str, value: Any) -> ScaleConfig:
    scene.fresh()
    return scene.config(**{param: value})


def _config_works(config: ScaleConfig) -> None:
    backend = config.backend()
    try:
        _works(backend)
        assert config.queue_for("report")
    finally:
        backend.close()


class _Dispatcher:
    engine = "test"

    def __init__(self) -> None:
        self.sent: list[str] = []

    def send(self, status: Any) -> None:
        self.sent.append(status.id)

    def revoke(self, job_id: str) -> None:
        pass


def _queued(scene: Scene, param: str, value: Any) -> QueuedJobBackend:
    redis_backend = RedisJobBackend(scene.url, prefix=scene.fresh())
    kwargs: dict[str, Any] = {"backend": redis_backend, "dispatcher": _Dispatcher(), param: value}
    try:
        return scene.refusing(lambda: QueuedJobBackend(**kwargs))
    except (TypeError, ValueError):
        redis_backend.close()
        raise


def _queued_works(backend: QueuedJobBackend) -> None:
    try:
        job = backend.submit("report", {"rows": 1}, **OWNER)
        assert backend.dispatcher.sent == [job.id]  # type: ignore[attr-defined]
    finally:
        backend.redis.close()
        backend.close()


def _engine(kind: str) -> Callable[[Scene, str, Any], Any]:
    engine = CeleryJobs if kind == "celery" else RQJobs

    def build(scene: Scene, param: str, value: Any) -> Any:
        scene.fresh()
        kwargs: dict[str, Any] = {"config": scene.config(), "tasks": TASKS, param: value}
        config, tasks = kwargs.pop("config"), kwargs.pop("tasks")
        return scene.refusing(lambda: engine(config, tasks, **kwargs))

    return build


def _engine_works(jobs: Any) -> None:
    try:
        job = jobs.backend.submit("report", {"rows": 1}, **OWNER)
        assert jobs.backend.get(job.id, **OWNER) is not None
    finally:
        jobs.close()


CONSTRUCTORS: dict[str, tuple[Any, Any, tuple[str, ...], frozenset[str]]] = {
    "RedisJobBackend": (
        _redis_backend,
        _redis_works,
        ("client", "prefix", "retention_s", "clock", "check", "owns_client"),
        frozenset({"clock"}),
    ),
    "ScaleConfig": (
        _config,
        _config_works,
        (
            *("redis_url", "key_prefix", "queue", "queues", "ttl_seconds", "broker_url"),
            "connect_timeout_s",
        ),
        frozenset(),
    ),
    "QueuedJobBackend": (
        _queued,
        _queued_works,
        ("backend", "dispatcher", "max_attempts"),
        frozenset(),
    ),
    "CeleryJobs": (
        _engine("celery"),
        _engine_works,
        ("tasks", "celery_app", "lease_s", "max_attempts", "redelivery_s", "check"),
        frozenset(),
    ),
    "RQJobs": (
        _engine("rq"),
        _engine_works,
        ("tasks", "lease_s", "max_attempts", "job_timeout", "check"),
        frozenset(),
    ),
}
# Values that are fine whatever they are (their truth value is taken), and would only make
# the sweep slow: random values only.
LENIENT = {"check", "owns_client"}


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
@FAST
@given(data=st.data())
def test_a_bad_argument_is_refused_naming_it_or_works(scene: Scene, name: str, data: Any) -> None:
    build, use, params, callables = CONSTRUCTORS[name]
    param = data.draw(st.sampled_from(params), label="param")
    value = data.draw(NOT_CALLABLE if param in callables else JUNK, label="value")
    refused_or_works(lambda: build(scene, param, value), use, param, value)


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
def test_every_tricky_argument_is_refused_naming_it_or_works(scene: Scene, name: str) -> None:
    build, use, params, callables = CONSTRUCTORS[name]
    swept = tuple(p for p in params if p not in LENIENT)
    sweep(lambda p, v: build(scene, p, v), use, swept, callables=callables)
