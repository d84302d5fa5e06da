"""Fixtures of the site tests: the built site, a static server for it on 127.0.0.1 with the
right MIME types. Chromium is the shared ``chromium`` fixture.

Each pytest process has a site slot of its own (``<base>/<worker id>``, ``main`` without
workers), where the base is the folder named in ``DOCSITE_TEST_SITE`` (``scripts/test`` names
one) or the run's temporary folder. A slot's site is built for the address
of the server that serves it (instant navigation only treats links under ``site_url`` as
internal, and canonical links name it): a later process serves it on the same port when that
port is free, and builds it again (about ten seconds, the runtime being cached) when it is not.
So browser tests can run in several processes, each with its own origin.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from docsite.paths import REPO as ROOT
from docsite.testing.static_server import StaticServer

SHARED = "DOCSITE_TEST_SITE"  #: a folder shared by the pytest runs of one ``scripts/test``


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _build(target: Path, url: str) -> None:
    """``mkdocs build --strict`` of the whole site (with the Try it runtime and its prepared
    interpreter, whose tests need it) for ``url``."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": url, "TRYIT_PREPARED": "1"}
    env.pop("TRYIT_SKIP_RUNTIME", None)
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(target)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _slot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This process's site folder (see the module docstring)."""
    shared = os.environ.get(SHARED)
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    run = tmp_path_factory.getbasetemp()  # a worker's is a folder in its run's
    base = Path(shared) if shared else (run.parent if worker else run) / "site"
    return base / (worker or "main")


def _start(root: Path, port: int) -> StaticServer:
    try:
        return StaticServer(root, port=port).__enter__()
    except OSError:  # taken (by another run, or not free yet): any port, and a new build
        return StaticServer(root).__enter__()


@pytest.fixture(scope="session")
def site_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StaticServer]:
    """A static server for this process's built site, which it builds first unless the site
    in its slot was built for the address it serves."""
    folder = _slot(tmp_path_factory)
    folder.mkdir(parents=True, exist_ok=True)
    root, built = folder / "site", folder / "built-for"
    with _locked(folder / ".lock"):
        old = built.read_text(encoding="utf-8") if built.is_file() else ""
        port = int(old.rsplit(":", 1)[1].strip("/")) if old else 0
        server = _start(root, port)
        if old != server.url:
            built.unlink(missing_ok=True)
            root.mkdir(exist_ok=True)
            _build(root, server.url)
            built.write_text(server.url, encoding="utf-8")
    try:
        yield server
    finally:
        server.__exit__(None, None, None)


@pytest.fixture(scope="session")
def built_site(site_server: StaticServer) -> Path:
    """The built site's folder (see the module docstring)."""
    return site_server.root


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> str:
    """The address the site was built for (``site_url``): its server's."""
    return (built_site.parent / "built-for").read_text(encoding="utf-8")
