"""The "Scaling out" guide runs as written: its four files, two uvicorn processes, a Celery
worker and an RQ worker on one real Redis; the client prints what the page says it prints."""

from __future__ import annotations

import contextlib
import re
import secrets
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from docsite.paths import REPO as ROOT
from docsite.testing.redis_server import RedisServer, free_port
from docsite.testing.scale.procs import VENV_BIN, ManagedProcess, uvicorn_argv, wait_http_ready

pytestmark = pytest.mark.slow  # the guide's processes, for real

GUIDE = ROOT / "docs" / "hedron" / "scaling-out.md"
FENCE = re.compile(r'^```(\w+)(?: title="([^"]+)")?\n(.*?)^```$', re.M | re.S)


def blocks() -> tuple[dict[str, str], str]:
    files: dict[str, str] = {}
    shell = ""
    for lang, title, body in FENCE.findall(GUIDE.read_text()):
        if title:
            files[title] = body
        elif lang == "bash" and "python client.py" in body:
            shell = body
    return files, shell


def test_the_guide_has_the_files_and_commands_this_test_runs() -> None:
    files, shell = blocks()
    assert sorted(files) == ["client.py", "jobs.py", "tasks.py", "web.py"]
    for command in (
        "uvicorn web:app --port 8001 &",
        "uvicorn web:app --port 8002 &",
        "celery -A jobs:celery worker -Q hedron-jobs --concurrency 4 &",
        'rq worker -u "$HEDRON_REDIS_URL" -c jobs reports &',
        "export HEDRON_JOBS_QUEUES=report=reports",
    ):
        assert command in shell


def test_the_guide_runs_as_written(redis_server: RedisServer, tmp_path: Path, prefix: str) -> None:
    files, shell = blocks()
    for name, body in files.items():
        (tmp_path / name).write_text(body)
    expected = [line[2:] for line in shell.splitlines() if line.startswith("# ")]
    assert len(expected) == 2
    env = {
        "HEDRON_REDIS_URL": redis_server.url,
        "HEDRON_JOBS_PREFIX": prefix,
        "HEDRON_JOBS_QUEUES": "report=reports",
        "SESSION_SECRET": secrets.token_urlsafe(48),
    }
    ports = [free_port(), free_port()]
    tag = uuid.uuid4().hex[:8]
    with contextlib.ExitStack() as stack:

        def start(name: str, argv: list[str]) -> ManagedProcess:
            proc = ManagedProcess(name, argv, env, cwd=tmp_path)
            stack.callback(proc.close)
            return proc

        webs = [start(f"web{p}", uvicorn_argv("web:app", p)) for p in ports]
        celery = start(
            "celery",
            [str(VENV_BIN / "celery"), "-A", "jobs:celery", "worker", "-Q", "hedron-jobs",
             "--concurrency", "1", "-n", f"docs-{tag}@%h", "--without-gossip",
             "--without-mingle", "--without-heartbeat", "--loglevel=INFO"],
        )  # fmt: skip
        rq = start(
            "rq",
            [str(VENV_BIN / "rq"), "worker", "-u", redis_server.url, "-c", "jobs", "reports",
             "-n", f"docs-{tag}"],
        )  # fmt: skip
        celery.wait_for_log(" ready.", timeout=45)
        rq.wait_for_log("Listening on", timeout=45)
        for port, web in zip(ports, webs, strict=True):
            try:
                wait_http_ready(f"http://127.0.0.1:{port}", "/jobs/none/result", timeout=30)
            except TimeoutError as exc:
                raise TimeoutError(f"{exc}\n{web.log()[-2000:]}") from None
        client = subprocess.run(
            [sys.executable, "client.py"],
            cwd=tmp_path,
            env={
                **env,
                "PATH": str(VENV_BIN),
                "WEB1": f"http://127.0.0.1:{ports[0]}",
                "WEB2": f"http://127.0.0.1:{ports[1]}",
            },
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert client.returncode == 0, client.stderr
        assert client.stdout.splitlines() == expected
