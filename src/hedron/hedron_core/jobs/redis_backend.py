"""``RedisJobBackend``: job status shared by every web process and worker through one Redis.

redis-py is imported lazily (only when a backend is built from a URL), so ``hedron_core`` and
``hedron_core.jobs`` import without it. Install it with ``pip install 'hedron[redis]'``.

Every change to a job is one Lua script (see :mod:`hedron_core.jobs._redis_scripts`), so state
transitions are atomic and ordered even with many processes: two workers racing to finish the
same job cannot both succeed, and an illegal transition changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import _redis_scripts as lua
from ._checks import (
    check_job_id,
    check_job_types,
    check_key,
    check_number,
    dump_json,
    is_job_id,
)
from ._clock import clock_or_current
from ._machine import (
    IdempotencyConflictError,
    IllegalTransitionError,
    JobNotFoundError,
    cleanup_now,
    coerce_state,
    make_progress,
    new_job_id,
    validate_lease,
    validate_mark,
    validate_scope,
    validate_submit,
)
from ._types import JobProgress, JobScope, JobState, JobStatus

if TYPE_CHECKING:
    import redis

__all__ = ["DEFAULT_PREFIX", "RedisJobBackend", "RedisUnavailableError"]

DEFAULT_PREFIX = "hedron:jobs:"
DEFAULT_RETENTION_S = 7 * 24 * 3600.0
_MAX_RETENTION_S = 1e9  # about 31.7 years; Redis refuses a TTL past its 64-bit milliseconds
_CLEANUP_BATCH = 500


class RedisUnavailableError(RuntimeError):
    """Redis could not be reached, or answered with an error, while handling a job.

    The message names the Redis address (never its password) and the operation.
    """


def _redacted(client: Any) -> str:
    try:
        kw = client.connection_pool.connection_kwargs
    except AttributeError:
        return "redis"
    if "path" in kw:
        return f"unix://{kw['path']}"
    return f"redis://{kw.get('host', '?')}:{kw.get('port', '?')}/{kw.get('db', 0)}"


class RedisJobBackend:
    """Job backend on Redis: shared by any number of web processes and Celery/RQ workers.

    Implements :class:`~hedron_core.jobs.JobBackend` and the claim/lease calls of
    :class:`~hedron_core.jobs.ClaimingJobBackend` with the same state machine as the in-memory
    and SQLite backends. Finished jobs are kept ``retention_s`` seconds: Redis expires their
    keys on its own, and :meth:`cleanup_expired` (run it on a schedule) removes the rest of the
    index. A job that is QUEUED or RUNNING never gets a TTL, so it can never expire.

    Args:
        client: A ``redis.Redis`` client, or a ``redis://`` / ``rediss://`` / ``unix://`` URL.
        prefix: Prefix of every key (give each application/environment its own).
        retention_s: How long terminal jobs are kept (0 keeps them until ``cleanup_expired``).
        clock: Returns "now" in seconds (default: the current clock,
            :func:`~hedron_core.jobs.use_clock`, ``time.time`` unless set).
        check: Ping Redis now, so an unreachable server fails at start-up, not later.
        owns_client: Whether :meth:`close` closes the client (default: only when built from
            a URL here).

    Raises:
        RedisUnavailableError: ``check`` is true and Redis does not answer.

    Example:
        ```python
        backend = RedisJobBackend("redis://127.0.0.1:6379/0", prefix="shop:jobs:")
        job = backend.submit("resize", {"w": 64}, auth_subject="u", tenant_id="t")
        backend.get(job.id, auth_subject="u", tenant_id="t").state  # JobState.QUEUED
        ```
    """

    def __init__(
        self,
        client: redis.Redis | str,
        *,
        prefix: str = DEFAULT_PREFIX,
        retention_s: float = DEFAULT_RETENTION_S,
        clock: Callable[[], float] | None = None,
        check: bool = True,
        owns_client: bool | None = None,
    ) -> None:
        check_key(prefix, "prefix", "RedisJobBackend")
        for name, flag in (("check", check), ("owns_client", owns_client)):
            if not isinstance(flag, bool) and not (name == "owns_client" and flag is None):
                raise TypeError(f"RedisJobBackend: {name} must be True or False, got {flag!r}")
        if retention_s == math.inf:
            raise ValueError(
                "RedisJobBackend: retention_s must be a finite number; write 0 to keep "
                "finished jobs until cleanup_expired() removes them"
            )
        retention = check_number(
            retention_s, "retention_s", "RedisJobBackend", maximum=_MAX_RETENTION_S
        )
        clock_now = clock_or_current(clock, "RedisJobBackend")  # checked before connecting
        self._owns_client = isinstance(client, str) if owns_client is None else owns_client
        conn: Any = _client_from_url(client) if isinstance(client, str) else client
        if not hasattr(conn, "register_script"):
            raise TypeError(
                "RedisJobBackend: client must be a redis.Redis or a URL, "
                f"got {type(client).__name__}"
            )
        self._r: Any = conn
        self.prefix = prefix
        self.retention_s = retention
        self._clock = clock_now
        self._where = _redacted(conn)
        self._scripts = {
            name: self._r.register_script(getattr(lua, name))
            for name in (
                "SUBMIT",
                "MARK",
                "PROGRESS",
                "CANCEL",
                "CLAIM",
                "CLAIM_NEXT",
                "RENEW",
                "CLEANUP",
                "RELEASE_IDEMPOTENCY",
            )
        }
        if check:
            try:
                self.ping()
            except RedisUnavailableError:
                self.close()
                raise

    # --- plumbing --------------------------------------------------------------------------

    @property
    def client(self) -> Any:
        """The underlying ``redis.Redis`` client."""
        return self._r

    def _ttl_ms(self) -> int:
        return math.ceil(self.retention_s * 1000)

    def _run(self, name: str, *args: Any, op: str) -> Any:
        try:
            return self._scripts[name](keys=[], args=[self.prefix, *args])
        except Exception as exc:
            raise self._unavailable(op, exc) from exc

    def _unavailable(self, op: str, exc: BaseException) -> RedisUnavailableError:
        return RedisUnavailableError(
            f"RedisJobBackend.{op}: Redis at {self._where} failed ({type(exc).__name__}: {exc})"
        )

    def _key(self, job_id: str) -> str:
        return f"{self.prefix}job:{job_id}"

    def _idem_key(self, subject: str, tenant: str, key: str) -> str:
        # Joined with NUL: none of the three holds one (submit refuses it), so two different
        # triples never give the same text.
        digest = hashlib.sha256("\x00".join((subject, tenant, key)).encode()).hexdigest()
        return f"{self.prefix}idem:{digest}"

    def ping(self) -> None:
        """Check that Redis answers; raise :class:`RedisUnavailableError` otherwise."""
        try:
            self._r.ping()
        except Exception as exc:
            raise RedisUnavailableError(
                f"Redis at {self._where} is unreachable ({type(exc).__name__}: {exc}); "
                "check the URL (HEDRON_REDIS_URL) and that redis-server is running"
            ) from exc

    # --- user-facing -----------------------------------------------------------------------

    def submit(
        self,
        job_type: str,
        payload: Any,
        *,
        auth_subject: str,
        tenant_id: str,
        idempotency_key: str | None = None,
    ) -> JobStatus:
        """Store a new QUEUED job (see :meth:`JobBackend.submit`)."""
        status, _created = self.submit_new(
            job_type,
            payload,
            auth_subject=auth_subject,
            tenant_id=tenant_id,
            idempotency_key=idempotency_key,
        )
        return status

    def submit_new(
        self,
        job_type: str,
        payload: Any,
        *,
        auth_subject: str,
        tenant_id: str,
        idempotency_key: str | None = None,
    ) -> tuple[JobStatus, bool]:
        """Like :meth:`submit`, also telling whether a new job was created (``False`` when an
        idempotency key returned an existing job). Queue dispatchers use it to send a job once.
        """
        validate_submit(job_type, auth_subject, tenant_id, idempotency_key)
        payload_json = dump_json(payload, "payload", "submit")
        ik = (
            ""
            if idempotency_key is None
            else self._idem_key(auth_subject, tenant_id, idempotency_key)
        )
        reply = self._run(
            "SUBMIT",
            new_job_id(),
            job_type,
            auth_subject,
            tenant_id,
            payload_json,
            repr(self._clock()),
            idempotency_key or "",
            ik,
            op="submit",
        )
        code = int(reply[0])
        if code == 2:
            raise IdempotencyConflictError(
                f"submit: idempotency_key {idempotency_key!r} was already used in this scope "
                "with a different job_type or payload"
            )
        return _decode(reply[2]), code == 1

    def get(self, job_id: str, *, auth_subject: str, tenant_id: str) -> JobStatus | None:
        """The job if it exists in this scope, else ``None`` (a foreign job looks missing)."""
        validate_scope(auth_subject, tenant_id, "get")
        if not is_job_id(job_id, "get"):
            return None
        status = self.load(job_id)
        if status is None or not status.owned_by(auth_subject, tenant_id):
            return None
        return status

    def request_cancel(self, job_id: str, *, auth_subject: str, tenant_id: str) -> JobStatus | None:
        """Cancel a QUEUED job, flag a RUNNING one and return it; ``None`` when no cancel was
        recorded (missing, foreign or finished job)."""
        validate_scope(auth_subject, tenant_id, "request_cancel")
        if not is_job_id(job_id, "request_cancel"):
            return None
        reply = self._run(
            "CANCEL",
            job_id,
            auth_subject,
            tenant_id,
            repr(self._clock()),
            self._ttl_ms(),
            op="request_cancel",
        )
        return _decode(reply) if reply else None

    # --- worker-side -----------------------------------------------------------------------

    def load(self, job_id: str) -> JobStatus | None:
        """Unscoped read for workers; ``None`` if the job does not exist."""
        if not is_job_id(job_id, "load"):
            return None
        try:
            fields = self._r.hgetall(self._key(job_id))
        except Exception as exc:
            raise self._unavailable("load", exc) from exc
        return _decode_mapping(fields) if fields else None

    def load_many(self, job_ids: Sequence[str]) -> list[JobStatus | None]:
        """Unscoped read of several jobs in one pipelined round trip."""
        try:
            pipe = self._r.pipeline(transaction=False)
            for job_id in job_ids:
                pipe.hgetall(self._key(job_id))
            replies = pipe.execute()
        except Exception as exc:
            raise self._unavailable("load_many", exc) from exc
        return [_decode_mapping(f) if f else None for f in replies]

    def mark(
        self, job_id: str, state: JobState, *, result: Any = None, error: str | None = None
    ) -> JobStatus:
        """Move the job forward (see :meth:`JobBackend.mark`); atomic across processes."""
        check_job_id(job_id, "mark")
        new_state = coerce_state(state)
        result_json, error = validate_mark(new_state, result, error)
        reply = self._run(
            "MARK",
            job_id,
            new_state.value,
            repr(self._clock()),
            result_json or "",
            "1" if result_json is not None else "0",
            error or "",
            "1" if error is not None else "0",
            self._ttl_ms(),
            op="mark",
        )
        return self._ok(job_id, reply, new_state.value)

    def progress(self, job_id: str, k: int, n: int, message: str = "") -> JobStatus:
        """Record progress ``k`` of ``n`` while RUNNING (see :meth:`JobBackend.progress`)."""
        check_job_id(job_id, "progress")
        prog = make_progress(k, n, message)
        reply = self._run(
            "PROGRESS",
            job_id,
            prog.k,
            prog.n,
            prog.message,
            repr(self._clock()),
            op="progress",
        )
        return self._ok(job_id, reply, "progress")

    def _ok(self, job_id: str, reply: list[Any], requested: str) -> JobStatus:
        tag = _text(reply[0])
        if tag == "missing":
            raise JobNotFoundError(str(job_id))
        if tag == "illegal":
            req: JobState | str = JobState(requested) if requested in _STATES else requested
            raise IllegalTransitionError(str(job_id), JobState(_text(reply[1])), req)
        return _decode(reply[1])

    def claim(self, job_id: str, *, worker: str, lease_s: float) -> JobStatus | None:
        """Claim a QUEUED job, or a RUNNING one whose lease ran out; ``None`` otherwise."""
        check_job_id(job_id, "claim")
        lease_s = validate_lease(worker, lease_s, "claim")
        now = self._clock()
        reply = self._run("CLAIM", job_id, worker, repr(now), repr(now + lease_s), op="claim")
        return _decode(reply) if reply else None

    def claim_next(
        self, *, worker: str, lease_s: float, job_types: Collection[str] | None = None
    ) -> JobStatus | None:
        """Claim the oldest claimable job (expired leases first), optionally of ``job_types``."""
        lease_s = validate_lease(worker, lease_s, "claim_next")
        wanted = check_job_types(job_types, "claim_next")
        if wanted == ():
            return None
        now = self._clock()
        types = ["0"] if wanted is None else ["1", *wanted]
        reply = self._run(
            "CLAIM_NEXT", worker, repr(now), repr(now + lease_s), *types, op="claim_next"
        )
        return _decode(reply) if reply else None

    def renew(self, job_id: str, *, worker: str, lease_s: float) -> bool:
        """Extend ``worker``'s lease on a RUNNING job; ``False`` if it holds none."""
        check_job_id(job_id, "renew")
        return self._lease(job_id, worker, validate_lease(worker, lease_s, "renew"), "renew")

    def release(self, job_id: str, *, worker: str) -> bool:
        """End ``worker``'s lease on a RUNNING job now, so that another worker may claim it
        at once (a runner that stops does this); ``False`` if it holds no lease."""
        check_job_id(job_id, "release")
        return self._lease(job_id, check_key(worker, "worker", "release"), 0.0, "release")

    def _lease(self, job_id: str, worker: str, lease_s: float, op: str) -> bool:
        now = self._clock()
        reply = self._run("RENEW", job_id, worker, repr(now), repr(now + lease_s), op=op)
        return bool(int(reply))

    def expired_leases(self, *, now: float | None = None, limit: int = 100) -> list[str]:
        """Ids of RUNNING jobs whose worker lease ran out (the worker is probably gone)."""
        at = self._clock() if now is None else now
        try:
            ids = self._r.zrangebyscore(f"{self.prefix}leases", "-inf", at, start=0, num=limit)
        except Exception as exc:
            raise self._unavailable("expired_leases", exc) from exc
        return [_text(i) for i in ids]

    def release_idempotency_key(self, job_id: str) -> bool:
        """Free the job's idempotency key so the same key may submit a new job.

        Used when a job never reached a worker (the broker refused it). Returns whether a key
        was freed.
        """
        return bool(int(self._run("RELEASE_IDEMPOTENCY", str(job_id), op="release")))

    def cleanup_expired(self, *, now: float | None = None) -> int:
        """Delete terminal jobs finished at least ``retention_s`` ago; return how many.

        Only jobs in the terminal index are considered and each is re-checked inside the
        script, so a QUEUED or RUNNING job is never deleted. Run it on a schedule (Celery
        beat, an RQ cron job, or a systemd timer) - Redis also expires finished jobs by itself.
        """
        cutoff = cleanup_now(now, self._clock) - self.retention_s
        total = 0
        while True:
            deleted, seen = self._run("CLEANUP", repr(cutoff), _CLEANUP_BATCH, op="cleanup")
            total += int(deleted)
            if int(seen) < _CLEANUP_BATCH:
                return total

    def close(self) -> None:
        """Close the connection pool if this backend created the client (idempotent)."""
        if self._owns_client:
            self._r.close()
            self._owns_client = False

    def __len__(self) -> int:
        """Number of jobs stored under the prefix (scans; for tests and admin only)."""
        try:
            return sum(1 for _ in self._r.scan_iter(match=f"{self.prefix}job:*", count=1000))
        except Exception as exc:
            raise self._unavailable("len", exc) from exc


# --- decoding ----------------------------------------------------------------------------------

_STATES = {s.value for s in JobState}


def _client_from_url(url: str) -> Any:
    try:
        import redis
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError("RedisJobBackend needs redis-py: pip install 'hedron[redis]'") from exc
    try:
        return redis.Redis.from_url(url, socket_connect_timeout=2.0, socket_timeout=5.0)
    except (ValueError, TypeError) as exc:  # the URL itself is not echoed: it may hold a password
        raise ValueError(
            "RedisJobBackend: client must be a redis.Redis or a redis://, rediss:// or unix:// "
            f"URL ({exc})"
        ) from None


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _decode(flat: Sequence[Any]) -> JobStatus:
    """Decode an ``HGETALL`` reply as returned from Lua (a flat field/value list)."""
    it = iter(flat)
    return _decode_mapping(dict(zip(it, it, strict=True)))


def _opt_float(fields: Mapping[str, str], name: str) -> float | None:
    raw = fields.get(name)
    return None if raw is None or raw == "" else float(raw)


def _decode_mapping(raw: Mapping[Any, Any]) -> JobStatus:
    f = {_text(k): _text(v) for k, v in raw.items()}
    progress = None
    if "progress_n" in f:
        progress = JobProgress(
            int(f["progress_k"]), int(f["progress_n"]), f.get("progress_message", "")
        )
    result = json.loads(f["result"]) if "result" in f else None
    return JobStatus(
        id=f["id"],
        state=JobState(f["state"]),
        type=f["type"],
        scope=JobScope(f["subject"], f["tenant"]),
        payload=json.loads(f["payload"]),
        result=result,
        error=f.get("error"),
        progress=progress,
        created_at=float(f["created_at"]),
        updated_at=float(f["updated_at"]),
        started_at=_opt_float(f, "started_at"),
        finished_at=_opt_float(f, "finished_at"),
        cancel_requested=f.get("cancel") == "1",
        idempotency_key=f.get("idem"),
        attempts=int(f.get("attempts", "0")),
    )
