"""``SQLiteJobBackend``: the embedded durable backend for one host (stdlib ``sqlite3``, WAL)."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported lazily: Pyodide ships sqlite3 as a separate package
    import sqlite3

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
    _ALLOWED,
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
from ._memory import DEFAULT_RETENTION_S
from ._types import JobProgress, JobScope, JobState, JobStatus

__all__ = ["SQLiteJobBackend"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS hedron_jobs (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    auth_subject TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    state TEXT NOT NULL,
    payload TEXT NOT NULL,
    result TEXT,
    error TEXT,
    progress_k INTEGER,
    progress_n INTEGER,
    progress_message TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    started_at REAL,
    finished_at REAL,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    idempotency_key TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until REAL
);
CREATE UNIQUE INDEX IF NOT EXISTS hedron_jobs_idem
    ON hedron_jobs (auth_subject, tenant_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS hedron_jobs_pending ON hedron_jobs (created_at)
    WHERE state IN ('queued', 'running');
"""

_COLUMNS = (
    "id, type, auth_subject, tenant_id, state, payload, result, error, progress_k, progress_n, "
    "progress_message, created_at, updated_at, started_at, finished_at, cancel_requested, "
    "idempotency_key, attempts"
)
# Written so that SQLite uses the partial index ``hedron_jobs_pending``; only ever joined
# with AND (wrapped in parentheses the planner would not match the index's condition).
_CLAIMABLE = (
    "state IN ('queued', 'running') "
    "AND (state = 'queued' OR lease_until IS NULL OR lease_until <= ?)"
)
_SYNC_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")
_MAX_BUSY_S = (2**31 - 1) / 1000  # SQLite keeps the busy timeout in an int of milliseconds


class SQLiteJobBackend:
    """Jobs in one SQLite file (WAL mode): survives restarts, shared by processes on one host.

    ``submit`` returns only after the job is committed, so an acknowledged job is never lost
    when the process is killed (even ``kill -9``). With the default ``synchronous="NORMAL"``
    a committed job survives any process crash; pass ``synchronous="FULL"`` to also survive
    power loss (slower). Several processes (for example ``uvicorn --workers 4``) may open the
    same file: every state change is a single atomic SQL statement, and writers wait for each
    other up to ``busy_timeout_s``.

    Each thread gets its own connection; :meth:`close` closes them all.

    Args:
        path: The database file (created if missing). ``":memory:"`` is refused: every
            connection would see a different empty database.
        clock: Returns "now" in seconds (default: the current clock,
            :func:`~hedron_core.jobs.use_clock`, ``time.time`` unless set).
        retention_s: How long terminal jobs are kept before ``cleanup_expired`` removes them.
        synchronous: SQLite's ``synchronous`` pragma: ``"NORMAL"`` (default) or ``"FULL"``.
        busy_timeout_s: How long a writer waits for another process's lock.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "jobs.db")
        >>> with SQLiteJobBackend(path) as backend:
        ...     job = backend.submit("demo", {"n": 1}, auth_subject="u", tenant_id="t")
        >>> with SQLiteJobBackend(path) as reopened:  # a restart keeps the job
        ...     reopened.get(job.id, auth_subject="u", tenant_id="t").state.value
        'queued'
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Callable[[], float] | None = None,
        retention_s: float = DEFAULT_RETENTION_S,
        synchronous: str = "NORMAL",
        busy_timeout_s: float = 10.0,
    ) -> None:
        text = _check_path(path)
        if not isinstance(synchronous, str) or synchronous.upper() not in _SYNC_MODES:
            raise ValueError(f"SQLiteJobBackend: synchronous must be one of {_SYNC_MODES}")
        retention = check_number(
            retention_s, "retention_s", "SQLiteJobBackend", infinite="keep finished jobs for ever"
        )
        busy = check_number(
            busy_timeout_s, "busy_timeout_s", "SQLiteJobBackend", maximum=_MAX_BUSY_S
        )
        self.path = Path(text)
        self._clock = clock_or_current(clock, "SQLiteJobBackend")
        self._retention_s = retention
        self._synchronous = synchronous.upper()
        self._busy_timeout_s = busy
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._all_lock = threading.Lock()
        self._closed = False
        import sqlite3

        try:
            conn = self._conn()
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            self.close()
            raise ValueError(
                f"SQLiteJobBackend: path {_quoted(text)} cannot be opened as a SQLite database "
                f"({exc})"
            ) from None

    # --- connections -------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        if self._closed:
            raise RuntimeError("SQLiteJobBackend is closed")
        import sqlite3

        conn = sqlite3.connect(
            self.path,
            timeout=self._busy_timeout_s,
            isolation_level=None,  # autocommit: every statement below is its own transaction
            check_same_thread=False,  # closed from the owning object's close()
        )
        conn.execute(f"PRAGMA busy_timeout={int(self._busy_timeout_s * 1000)}")
        conn.execute(f"PRAGMA synchronous={self._synchronous}")
        self._local.conn = conn
        with self._all_lock:
            self._all.append(conn)
        return conn

    def close(self) -> None:
        """Close every connection this backend opened (idempotent)."""
        with self._all_lock:
            self._closed = True
            conns, self._all = self._all, []
        for conn in conns:
            conn.close()
        self._local = threading.local()

    def __enter__(self) -> SQLiteJobBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- user-facing -------------------------------------------------------------------

    def submit(
        self,
        job_type: str,
        payload: Any,
        *,
        auth_subject: str,
        tenant_id: str,
        idempotency_key: str | None = None,
    ) -> JobStatus:
        """Store a new QUEUED job, committed before this returns (see ``JobBackend.submit``)."""
        validate_submit(job_type, auth_subject, tenant_id, idempotency_key)
        payload_json = dump_json(payload, "payload", "submit")
        now = self._clock()
        job_id = new_job_id()
        conn = self._conn()
        cur = conn.execute(
            "INSERT INTO hedron_jobs (id, type, auth_subject, tenant_id, state, payload, "
            "created_at, updated_at, idempotency_key) VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING",
            (job_id, job_type, auth_subject, tenant_id, payload_json, now, now, idempotency_key),
        )
        if cur.rowcount == 1:
            return JobStatus(
                id=job_id,
                state=JobState.QUEUED,
                type=job_type,
                scope=JobScope(auth_subject, tenant_id),
                payload=json.loads(payload_json),
                created_at=now,
                updated_at=now,
                idempotency_key=idempotency_key,
            )
        row = conn.execute(
            f"SELECT {_COLUMNS} FROM hedron_jobs WHERE auth_subject = ? AND tenant_id = ? "
            "AND idempotency_key = ?",
            (auth_subject, tenant_id, idempotency_key),
        ).fetchone()
        if row is None:  # pragma: no cover - a 144-bit id collision
            raise RuntimeError("submit: could not store the job (id collision); retry")
        existing = _row_to_status(row)
        if existing.type != job_type or row[5] != payload_json:
            raise IdempotencyConflictError(
                f"submit: idempotency_key {idempotency_key!r} was already used in this scope "
                "with a different job_type or payload"
            )
        return existing

    def get(self, job_id: str, *, auth_subject: str, tenant_id: str) -> JobStatus | None:
        """The job if it exists in this scope, else ``None``."""
        validate_scope(auth_subject, tenant_id, "get")
        if not is_job_id(job_id, "get"):
            return None
        row = (
            self._conn()
            .execute(
                f"SELECT {_COLUMNS} FROM hedron_jobs WHERE id = ? AND auth_subject = ? "
                "AND tenant_id = ?",
                (job_id, auth_subject, tenant_id),
            )
            .fetchone()
        )
        return None if row is None else _row_to_status(row)

    def request_cancel(self, job_id: str, *, auth_subject: str, tenant_id: str) -> JobStatus | None:
        """Cancel a QUEUED job, flag a RUNNING one and return it; ``None`` when no cancel was
        recorded (missing, foreign or finished job)."""
        validate_scope(auth_subject, tenant_id, "request_cancel")
        if not is_job_id(job_id, "request_cancel"):
            return None
        now = self._clock()
        row = (
            self._conn()
            .execute(
                "UPDATE hedron_jobs SET cancel_requested = 1, updated_at = ?, "
                "state = CASE state WHEN 'queued' THEN 'cancelled' ELSE state END, "
                "finished_at = CASE state WHEN 'queued' THEN ? ELSE finished_at END "
                "WHERE id = ? AND auth_subject = ? AND tenant_id = ? "
                f"AND state IN ('queued', 'running') RETURNING {_COLUMNS}",
                (now, now, job_id, auth_subject, tenant_id),
            )
            .fetchone()
        )
        return None if row is None else _row_to_status(row)

    # --- worker-side -------------------------------------------------------------------

    def load(self, job_id: str) -> JobStatus | None:
        """Unscoped read for workers."""
        if not is_job_id(job_id, "load"):
            return None
        row = (
            self._conn()
            .execute(f"SELECT {_COLUMNS} FROM hedron_jobs WHERE id = ?", (job_id,))
            .fetchone()
        )
        return None if row is None else _row_to_status(row)

    def mark(
        self, job_id: str, state: JobState, *, result: Any = None, error: str | None = None
    ) -> JobStatus:
        """Move the job forward in one atomic statement (see ``JobBackend.mark``)."""
        check_job_id(job_id, "mark")
        new_state = coerce_state(state)
        result_json, error = validate_mark(new_state, result, error)
        now = self._clock()
        sources = [s.value for s, targets in _ALLOWED.items() if new_state in targets]
        marks = ", ".join("?" for _ in sources)
        if new_state is JobState.RUNNING:
            sql = (
                "UPDATE hedron_jobs SET state = ?, updated_at = ?, started_at = ? "
                f"WHERE id = ? AND state IN ({marks}) RETURNING {_COLUMNS}"
            )
            params: tuple[Any, ...] = (new_state.value, now, now, job_id, *sources)
        else:
            sql = (
                "UPDATE hedron_jobs SET state = ?, updated_at = ?, finished_at = ?, result = ?, "
                "error = ?, lease_owner = NULL, lease_until = NULL "
                f"WHERE id = ? AND state IN ({marks}) RETURNING {_COLUMNS}"
            )
            params = (new_state.value, now, now, result_json, error, job_id, *sources)
        row = self._conn().execute(sql, params).fetchone()
        if row is None:
            current = self.load(job_id)
            if current is None:
                raise JobNotFoundError(str(job_id))
            raise IllegalTransitionError(job_id, current.state, new_state)
        return _row_to_status(row)

    def progress(self, job_id: str, k: int, n: int, message: str = "") -> JobStatus:
        """Record progress while RUNNING (see ``JobBackend.progress``)."""
        check_job_id(job_id, "progress")
        prog = make_progress(k, n, message)
        row = (
            self._conn()
            .execute(
                "UPDATE hedron_jobs SET progress_k = ?, progress_n = ?, progress_message = ?, "
                f"updated_at = ? WHERE id = ? AND state = 'running' RETURNING {_COLUMNS}",
                (prog.k, prog.n, prog.message, self._clock(), job_id),
            )
            .fetchone()
        )
        if row is None:
            current = self.load(job_id)
            if current is None:
                raise JobNotFoundError(str(job_id))
            raise IllegalTransitionError(job_id, current.state, "progress")
        return _row_to_status(row)

    def claim(self, job_id: str, *, worker: str, lease_s: float) -> JobStatus | None:
        """Claim a QUEUED job or a RUNNING one whose lease ran out (atomic)."""
        check_job_id(job_id, "claim")
        lease_s = validate_lease(worker, lease_s, "claim")
        now = self._clock()
        row = (
            self._conn()
            .execute(
                "UPDATE hedron_jobs SET state = 'running', attempts = attempts + 1, "
                "started_at = COALESCE(started_at, ?), updated_at = ?, lease_owner = ?, "
                f"lease_until = ? WHERE id = ? AND {_CLAIMABLE} RETURNING {_COLUMNS}",
                (now, now, worker, now + lease_s, job_id, now),
            )
            .fetchone()
        )
        return None if row is None else _row_to_status(row)

    def claim_next(
        self, *, worker: str, lease_s: float, job_types: Collection[str] | None = None
    ) -> JobStatus | None:
        """Claim the oldest claimable job, optionally only of ``job_types`` (atomic)."""
        lease_s = validate_lease(worker, lease_s, "claim_next")
        types = check_job_types(job_types, "claim_next")
        now = self._clock()
        type_sql = ""
        type_params: tuple[str, ...] = ()
        if types is not None:
            type_params = types
            if not type_params:
                return None
            type_sql = f" AND type IN ({', '.join('?' for _ in type_params)})"
        row = (
            self._conn()
            .execute(
                "UPDATE hedron_jobs SET state = 'running', attempts = attempts + 1, "
                "started_at = COALESCE(started_at, ?), updated_at = ?, lease_owner = ?, "
                "lease_until = ? WHERE id = (SELECT id FROM hedron_jobs WHERE "
                f"{_CLAIMABLE}{type_sql} ORDER BY created_at, rowid LIMIT 1) "
                f"AND {_CLAIMABLE} RETURNING {_COLUMNS}",
                (now, now, worker, now + lease_s, now, *type_params, now),
            )
            .fetchone()
        )
        return None if row is None else _row_to_status(row)

    def renew(self, job_id: str, *, worker: str, lease_s: float) -> bool:
        """Extend ``worker``'s lease on a RUNNING job."""
        check_job_id(job_id, "renew")
        return self._lease(job_id, worker, validate_lease(worker, lease_s, "renew"))

    def release(self, job_id: str, *, worker: str) -> bool:
        """End ``worker``'s lease on a RUNNING job now, so that another worker may claim it
        at once (a runner that stops does this); ``False`` if it holds no lease."""
        check_job_id(job_id, "release")
        return self._lease(job_id, check_key(worker, "worker", "release"), 0.0)

    def _lease(self, job_id: str, worker: str, lease_s: float) -> bool:
        cur = self._conn().execute(
            "UPDATE hedron_jobs SET lease_until = ? WHERE id = ? AND lease_owner = ? "
            "AND state = 'running'",
            (self._clock() + lease_s, job_id, worker),
        )
        return cur.rowcount == 1

    def cleanup_expired(self, *, now: float | None = None) -> int:
        """Delete terminal jobs finished more than ``retention_s`` ago."""
        cutoff = cleanup_now(now, self._clock) - self._retention_s
        cur = self._conn().execute(
            "DELETE FROM hedron_jobs WHERE state IN ('succeeded', 'failed', 'cancelled') "
            "AND finished_at <= ?",
            (cutoff,),
        )
        return cur.rowcount

    def __len__(self) -> int:
        row = self._conn().execute("SELECT COUNT(*) FROM hedron_jobs").fetchone()
        return int(row[0])


def _check_path(path: object) -> str:
    """The database file's path as text, refused (naming ``path``) when SQLite could not
    open it as a file of its own: not a path, ``":memory:"``, a NUL, a folder, or a file in
    a folder that does not exist."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"SQLiteJobBackend: path must be a str or path, got {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str):
        raise TypeError(f"SQLiteJobBackend: path must be a str or path, got {type(text).__name__}")
    if not text or text == ":memory:" or text.startswith("file::memory:"):
        raise ValueError(
            "SQLiteJobBackend: path must name a file (':memory:' would give every "
            "connection its own empty database); use InMemoryJobBackend for that"
        )
    if "\x00" in text:
        raise ValueError("SQLiteJobBackend: path must not contain a NUL character ('\\x00')")
    where = Path(text)
    try:
        is_folder, in_folder = where.is_dir(), where.parent.is_dir()
    except OSError as exc:  # a name too long for the file system, say
        raise ValueError(
            f"SQLiteJobBackend: path {_quoted(text)} cannot be used ({exc.strerror})"
        ) from None
    if is_folder:
        raise ValueError(
            f"SQLiteJobBackend: path {_quoted(text)} is a folder; name a file in it (such as "
            f"{_quoted(str(where / 'jobs.db'))})"
        )
    if not in_folder:
        raise ValueError(
            f"SQLiteJobBackend: path {_quoted(text)} is in a folder that does not exist "
            f"({_quoted(str(where.parent))}); create it first"
        )
    return text


def _quoted(path: str) -> str:
    return repr(path) if len(path) <= 200 else repr(path[:200]) + "..."


def _row_to_status(row: tuple[Any, ...]) -> JobStatus:
    (
        job_id,
        job_type,
        subject,
        tenant,
        state,
        payload,
        result,
        error,
        pk,
        pn,
        pmsg,
        created_at,
        updated_at,
        started_at,
        finished_at,
        cancel_requested,
        idem,
        attempts,
    ) = row
    progress = JobProgress(pk, pn, pmsg or "") if pn is not None else None
    return JobStatus(
        id=job_id,
        state=JobState(state),
        type=job_type,
        scope=JobScope(subject, tenant),
        payload=json.loads(payload),
        result=None if result is None else json.loads(result),
        error=error,
        progress=progress,
        created_at=created_at,
        updated_at=updated_at,
        started_at=started_at,
        finished_at=finished_at,
        cancel_requested=bool(cancel_requested),
        idempotency_key=idem,
        attempts=attempts,
    )
