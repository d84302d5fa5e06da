"""Bad values found by probing (issue 29) that are not a backend method's: the SQLite file's
path, and the status helpers' ``retry_after_s`` and scope."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hedron.jobs import job_result_response, job_status_response
from hedron_core.jobs import InMemoryJobBackend, SQLiteJobBackend
from tests._support.bad_values import JUNK

OWNER = {"auth_subject": "alice", "tenant_id": "acme"}


# --- SQLiteJobBackend(path) -------------------------------------------------------------------


def test_a_folder_as_the_path_is_refused_naming_path(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"SQLiteJobBackend: path '.+' is a folder; name a file"):
        SQLiteJobBackend(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_path_in_a_missing_folder_is_refused_naming_path(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"path '.+' is in a folder that does not exist"):
        SQLiteJobBackend(tmp_path / "missing" / "jobs.db")
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("path", ["jobs\x00.db", b"jobs.db", 42, None, "", ":memory:"])
def test_a_path_that_is_not_a_file_name_is_refused_naming_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: Any
) -> None:
    monkeypatch.chdir(tmp_path)  # nothing may be created here either
    with pytest.raises((TypeError, ValueError), match=r"^SQLiteJobBackend: path must"):
        SQLiteJobBackend(path)
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_is_not_a_database_is_refused_naming_path(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_bytes(b"not a database, just some text that is long enough to be read" * 20)
    with pytest.raises(ValueError, match=r"path '.+notes.txt' cannot be opened as a SQLite"):
        SQLiteJobBackend(text)


def test_a_name_too_long_for_the_file_system_is_refused_naming_path(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"SQLiteJobBackend: path '.+\.\.\. cannot be"):
        SQLiteJobBackend(tmp_path / ("x" * 5000) / "jobs.db")


# --- job_status_response / job_result_response ------------------------------------------------


def _queued() -> Any:
    backend = InMemoryJobBackend()
    return backend.get(backend.submit("demo", {}, **OWNER).id, **OWNER)


@settings(max_examples=80, deadline=None)
@given(value=st.one_of(JUNK, st.integers()))
@pytest.mark.parametrize("helper", [job_status_response, job_result_response])
def test_retry_after_is_whole_seconds_up_to_a_day_or_refused_naming_it(
    helper: Any, value: Any
) -> None:
    status = _queued()
    try:
        answer = helper(status, **OWNER, retry_after_s=value)
    except (TypeError, ValueError) as exc:
        message = str(exc)
    else:
        message = ""
    if message:
        assert message.startswith(f"{helper.__name__}(retry_after_s=...) must be")
        return
    assert type(value) is int
    assert answer.headers["retry-after"] == str(value)
    assert 0 <= value <= 86_400


@settings(max_examples=80, deadline=None)
@given(value=st.one_of(JUNK, st.sampled_from(["x" * 1025, "a\x00b"]), st.text(max_size=5)))
@pytest.mark.parametrize("param", ["auth_subject", "tenant_id"])
def test_the_scope_of_a_status_answer_is_checked_like_a_backends(param: str, value: Any) -> None:
    status = _queued()
    try:
        answer = job_status_response(status, **{**OWNER, param: value})
    except (TypeError, ValueError) as exc:
        message = str(exc)
    else:
        message = ""
    if message:
        assert message.startswith(f"job_status_response: {param} "), message
        assert message.split(": ", 1)[1].startswith((f"{param} must", f"{param} holds"))
        return
    assert type(value) is str
    assert value.strip()
    assert "\x00" not in value
    assert len(value) <= 1024
    assert answer.status_code == (200 if value == OWNER[param] else 404)
