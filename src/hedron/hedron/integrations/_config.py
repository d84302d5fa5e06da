"""One place for the scale-out settings: Redis URL, key prefix, queue names, retention TTL."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from hedron_core.jobs._checks import check_encodable, check_key, check_number
from hedron_core.jobs.redis_backend import RedisUnavailableError

if TYPE_CHECKING:
    from hedron_core.jobs.redis_backend import RedisJobBackend

_SCHEMES = ("redis", "rediss", "unix")
_MAX_SECONDS = 1e9  # about 31.7 years
_MIN_TIMEOUT_S = 0.001


def _scheme(url: str) -> str:
    try:
        return urlsplit(url).scheme
    except ValueError:  # "redis://[::1" and the like
        return ""


def _shown_url(value: object) -> str:
    """``value`` for an error message, without a password."""
    if not isinstance(value, str):
        return type(value).__name__
    try:
        return repr(redact_url(value))
    except ValueError:
        return "an unparseable URL"


DEFAULT_TTL_SECONDS = 7 * 24 * 3600.0


def redact_url(url: str) -> str:
    """Return ``url`` with any password replaced by ``***`` (safe for logs and errors).

    Example:
        >>> redact_url("redis://:s3cret@cache:6379/0")
        'redis://:***@cache:6379/0'
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    netloc = f"{user}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _env_queues(environ: Mapping[str, str], name: str) -> dict[str, str]:
    raw = environ.get(name, "").strip()
    routes: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in raw.split(","))):
        job_type, sep, queue = item.partition("=")
        if not sep or not job_type.strip() or not queue.strip():
            raise ValueError(
                f"{name} must look like 'report=reports,thumbnail=images', got {raw!r}"
            )
        routes[job_type.strip()] = queue.strip()
    return routes


def _env_float(environ: Mapping[str, str], name: str, default: float) -> float:
    raw = environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, got {raw!r}") from None


@dataclass(frozen=True)
class ScaleConfig:
    """Everything the Redis backend and the Celery/RQ integrations share, read in one place.

    Every web process and every worker must use the same values, or they will not see each
    other's jobs. Build it once from the environment with :meth:`from_env` and call
    :meth:`check` at start-up so an unreachable Redis fails the deploy, not the first request.

    Args:
        redis_url: where job status lives (``redis://``, ``rediss://`` or ``unix://``); Celery
            and RQ use the same Redis as their broker unless ``broker_url`` is set.
        key_prefix: prefix of every key hedron writes; give each application/environment its own.
        queue: the default queue name for Celery and RQ.
        queues: per job type queue names (``{"report": "slow"}``); other types use ``queue``.
        ttl_seconds: how long a finished (terminal) job is kept; running jobs never expire.
        broker_url: a separate broker for Celery (defaults to ``redis_url``).
        connect_timeout_s: socket connect/read timeout towards Redis.

    Example:
        >>> cfg = ScaleConfig(redis_url="redis://127.0.0.1:6379/0", key_prefix="shop:jobs:")
        >>> cfg.queue_for("report")
        'hedron-jobs'
    """

    redis_url: str = "redis://127.0.0.1:6379/0"
    key_prefix: str = "hedron:jobs:"
    queue: str = "hedron-jobs"
    queues: Mapping[str, str] = field(default_factory=dict)
    ttl_seconds: float = DEFAULT_TTL_SECONDS
    broker_url: str | None = None
    connect_timeout_s: float = 2.0

    def __post_init__(self) -> None:
        for name in ("redis_url", "key_prefix", "queue"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"ScaleConfig.{name} must be a non-empty string, got {value!r}")
            check_encodable(value, name, "ScaleConfig")
        check_key(self.key_prefix, "key_prefix", "ScaleConfig")  # what RedisJobBackend takes
        for name in ("redis_url", "broker_url"):
            value = getattr(self, name)
            if value is None:
                continue
            if not isinstance(value, str) or _scheme(value) not in _SCHEMES:
                raise ValueError(
                    f"ScaleConfig.{name} must start with redis://, rediss:// or unix://, "
                    f"got {_shown_url(value)}"
                )
        if not isinstance(self.queues, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in self.queues.items()
        ):
            raise ValueError("ScaleConfig.queues must map job types to non-empty queue names")
        for name in ("ttl_seconds", "connect_timeout_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise ValueError(f"ScaleConfig.{name} must be a positive number, got {value!r}")
            check_number(value, name, "ScaleConfig", positive=True, maximum=_MAX_SECONDS)
        if self.connect_timeout_s < _MIN_TIMEOUT_S:  # shorter, every connection would time out
            raise ValueError(
                f"ScaleConfig.connect_timeout_s must be at least {_MIN_TIMEOUT_S} seconds, "
                f"got {self.connect_timeout_s!r}"
            )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ScaleConfig:
        """Read ``HEDRON_REDIS_URL``, ``HEDRON_JOBS_PREFIX``, ``HEDRON_JOBS_QUEUE``,
        ``HEDRON_JOBS_QUEUES`` (``type=queue,...``), ``HEDRON_JOBS_TTL_SECONDS`` and
        ``HEDRON_BROKER_URL``; unset values keep their defaults.

        Example:
            >>> ScaleConfig.from_env({"HEDRON_JOBS_PREFIX": "shop:"}).key_prefix
            'shop:'
        """
        env = os.environ if environ is None else environ
        kwargs: dict[str, Any] = {}
        for key, name in (
            ("HEDRON_REDIS_URL", "redis_url"),
            ("HEDRON_JOBS_PREFIX", "key_prefix"),
            ("HEDRON_JOBS_QUEUE", "queue"),
            ("HEDRON_BROKER_URL", "broker_url"),
        ):
            if env.get(key):
                kwargs[name] = env[key]
        kwargs["ttl_seconds"] = _env_float(env, "HEDRON_JOBS_TTL_SECONDS", DEFAULT_TTL_SECONDS)
        kwargs["queues"] = _env_queues(env, "HEDRON_JOBS_QUEUES")
        return cls(**kwargs)

    @property
    def effective_broker_url(self) -> str:
        """The Celery broker URL (``broker_url`` or, by default, ``redis_url``)."""
        return self.broker_url or self.redis_url

    def queue_for(self, job_type: str) -> str:
        """The queue a job type is sent to."""
        return self.queues.get(job_type, self.queue)

    def redis_client(self) -> Any:
        """A new ``redis.Redis`` client for ``redis_url`` (bytes replies, bounded timeouts)."""
        try:
            import redis
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise RuntimeError(
                "the Redis integration needs redis-py: pip install 'hedron[redis]'"
            ) from exc
        return redis.Redis.from_url(
            self.redis_url,
            socket_connect_timeout=self.connect_timeout_s,
            socket_timeout=self.connect_timeout_s,
            health_check_interval=30,
        )

    def check(self, client: Any = None) -> None:
        """Ping Redis now; raise :class:`RedisUnavailableError` naming the URL if it fails.

        Call it at start-up (web process import/lifespan, worker init) so a wrong URL or a
        stopped Redis fails the deploy instead of the first request.
        """
        own = client is None
        conn = self.redis_client() if own else client
        try:
            conn.ping()
        except Exception as exc:
            raise RedisUnavailableError(
                f"Redis at {redact_url(self.redis_url)} is unreachable "
                f"({type(exc).__name__}: {exc}); check HEDRON_REDIS_URL and that redis-server runs"
            ) from exc
        finally:
            if own:
                conn.close()

    def backend(self, *, check: bool = True) -> RedisJobBackend:
        """A :class:`~hedron_core.jobs.redis_backend.RedisJobBackend` for these settings.

        With ``check=True`` (default) Redis is pinged first, so start-up fails clearly.
        """
        from hedron_core.jobs.redis_backend import RedisJobBackend

        client = self.redis_client()
        if check:
            try:
                self.check(client)
            except RedisUnavailableError:
                client.close()
                raise
        return RedisJobBackend(
            client,
            prefix=self.key_prefix,
            retention_s=self.ttl_seconds,
            check=False,
            owns_client=True,
        )
