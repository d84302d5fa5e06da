"""A recipe's ``[real]`` table: what a real run needs that a browser tab cannot run.

A recipe with a ``[real]`` table has no "Try it": its page says why (``why``), offers the
download and shows the transcript of a real run, and the test suite runs it for real
(``scripts/site/replay/stack.py``): its app in a process of its own, the services and worker
processes the table names beside it, and the restarts it asks for, at their times.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

SERVICES = ("redis",)  #: what ``services`` may name (``redis``: a real ``redis-server``)


def _seconds(value: Any, what: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1e6:
        raise ValueError(f"{where}: [real] {what} must be a number of seconds >= 0")
    return float(value)


def _text(value: Any, what: str, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: [real] {what} must be a non-empty string")
    return value.strip()


def _only(table: dict[str, Any], keys: set[str], what: str, where: str) -> None:
    unknown = sorted(set(table) - keys)
    if unknown:
        raise ValueError(f"{where}: [real] {what} has unknown keys {unknown}")


@dataclass(frozen=True)
class Worker:
    """A process started beside the app (a Celery or RQ worker), in the recipe's folder.

    Attributes:
        command: The command, as a reader types it (``$NAME`` takes the run's environment:
            ``$HEDRON_REDIS_URL``).
        ready: What it prints once it takes work (the run waits for it before it starts).
    """

    command: str
    ready: str

    @property
    def argv(self) -> list[str]:
        """The command's words."""
        return shlex.split(self.command)


@dataclass(frozen=True)
class Restart:
    """Stop the app as Ctrl+C does at ``stop`` seconds, start it again at ``start``."""

    stop: float
    start: float


@dataclass(frozen=True)
class Real:
    """The ``[real]`` table.

    Attributes:
        why: Why the recipe does not run in a browser (the page says it, as is).
        services: Services to start first (``"redis"``: its URL is ``$HEDRON_REDIS_URL``).
        workers: Processes to start beside the app, each waited for.
        restart: When to stop the app and start it again, if ever.
        env: More environment for the app, the workers and the client.
    """

    why: str
    services: tuple[str, ...] = ()
    workers: tuple[Worker, ...] = ()
    restart: Restart | None = None
    env: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, table: Any, where: str) -> Real:
        """Check and read a ``[real]`` table (every error names its key)."""
        if not isinstance(table, dict):
            raise ValueError(f"{where}: [real] must be a table")
        _only(table, {"why", "services", "workers", "restart", "env"}, "table", where)
        why = _text(table.get("why"), "why", where)
        if '"' in why:
            raise ValueError(f"{where}: [real] why must not contain a double quote")
        services = table.get("services", [])
        if not isinstance(services, list) or any(s not in SERVICES for s in services):
            raise ValueError(f"{where}: [real] services must list some of {list(SERVICES)}")
        workers = []
        for entry in _list_of_tables(table.get("workers", []), "workers", where):
            _only(entry, {"command", "ready"}, "workers entry", where)
            command = _text(entry.get("command"), "workers command", where)
            workers.append(Worker(command, _text(entry.get("ready"), "workers ready", where)))
        restart = None
        if "restart" in table:
            raw = table["restart"]
            if not isinstance(raw, dict):
                raise ValueError(f"{where}: [real] restart must be a table (stop, start)")
            _only(raw, {"stop", "start"}, "restart", where)
            stop = _seconds(raw.get("stop"), "restart stop", where)
            start = _seconds(raw.get("start"), "restart start", where)
            if start <= stop:
                raise ValueError(f"{where}: [real] restart start must come after its stop")
            restart = Restart(stop, start)
        env = table.get("env", {})
        if not isinstance(env, dict) or not all(
            isinstance(k, str) and k and isinstance(v, str) for k, v in env.items()
        ):
            raise ValueError(f"{where}: [real] env must map names to strings")
        return cls(why, tuple(services), tuple(workers), restart, tuple(sorted(env.items())))


def _list_of_tables(value: Any, what: str, where: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ValueError(f"{where}: [real] {what} must be a list of tables")
    return value
