"""The conformance suite against the two built-in backends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from jobs_conformance import ClaimingBackendConformance

from hedron_core.jobs import InMemoryJobBackend, SQLiteJobBackend


class TestInMemoryBackend(ClaimingBackendConformance):
    @pytest.fixture
    def backend_factory(self) -> Callable[..., Any]:
        def make(*, clock: Any = None, retention_s: float | None = None) -> InMemoryJobBackend:
            if retention_s is None:
                return InMemoryJobBackend(clock=clock)
            return InMemoryJobBackend(clock=clock, retention_s=retention_s)

        return make


class TestSQLiteBackend(ClaimingBackendConformance):
    @pytest.fixture
    def backend_factory(self, tmp_path: Path) -> Iterator[Callable[..., Any]]:
        made: list[SQLiteJobBackend] = []

        def make(*, clock: Any = None, retention_s: float | None = None) -> SQLiteJobBackend:
            path = tmp_path / f"jobs-{len(made)}.db"
            if retention_s is None:
                backend = SQLiteJobBackend(path, clock=clock)
            else:
                backend = SQLiteJobBackend(path, clock=clock, retention_s=retention_s)
            made.append(backend)
            return backend

        yield make
        for backend in made:
            backend.close()
