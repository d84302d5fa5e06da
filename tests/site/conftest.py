"""Fixtures of the site tests: the built site, a static server for it on 127.0.0.1 with the
right MIME types. Chromium is the shared ``chromium`` fixture.

The site is built once and shared: by the pytest workers of one run (a lock in their shared
temporary folder), and by both runs of ``scripts/test`` (it names a folder in
``DOCSITE_TEST_SITE``). The build is for the URL of the server that first serves it; a later
run serves it on the same port when that port is free, and builds again when it is not and
its tests need the site's own address (the browser run: instant navigation only treats links
under ``site_url`` as internal).
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


def _worker() -> bool:
    """Whether this is one of several pytest-xdist workers of a run."""
    return "PYTEST_XDIST_WORKER" in os.environ


def _start(root: Path, port: int) -> StaticServer:
    try:
        return StaticServer(root, port=port).__enter__()
    except OSError:  # taken (another worker of this run serves it there): any port
        return StaticServer(root).__enter__()


@pytest.fixture(scope="session")
def site_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StaticServer]:
    """A static server for the built site, which it builds first if no run has yet."""
    shared = os.environ.get(SHARED)
    run = tmp_path_factory.getbasetemp()  # a worker's is a folder in its run's
    folder = Path(shared) if shared else (run.parent if _worker() else run) / "site"
    folder.mkdir(parents=True, exist_ok=True)
    root, built = folder / "site", folder / "built-for"
    with _locked(folder / ".lock"):
        old = built.read_text(encoding="utf-8") if built.is_file() else ""
        port = int(old.rsplit(":", 1)[1].strip("/")) if old else 0
        server = _start(root, port)
        alone = not _worker()  # instant navigation: its own URL
        if not old or (alone and old != server.url):
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
    """The address the site was built for (``site_url``); a pytest worker that did not build
    it may serve it on another port (``site_server.url``)."""
    return (built_site.parent / "built-for").read_text(encoding="utf-8")
