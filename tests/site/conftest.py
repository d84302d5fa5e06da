"""Fixtures of the site tests: the built site, a static server for it on 127.0.0.1 with the
right MIME types. Chromium is the shared ``chromium`` fixture.

Under ``scripts/test`` the site is built once for the whole run and served to every pytest
process by one host (``docsite.testing.shared_site``, in ``<DOCSITE_TEST_SITE>/shared``).
Without one, each pytest process has a site slot of its own (``<base>/<worker id>``, ``main``
without workers), where the base is the folder named in ``DOCSITE_TEST_SITE`` or the run's
temporary folder. A slot's site is built for the address of the server that serves it
(instant navigation only treats links under ``site_url`` as internal, and canonical links name
it): a later process serves it on the same port when that port is free, and builds it again
(about ten seconds, the runtime being cached) when it is not.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from docsite.testing.shared_site import SharedSite, build_site, locked, shared
from docsite.testing.static_server import StaticServer

SHARED = "DOCSITE_TEST_SITE"  #: a folder shared by the pytest runs of one ``scripts/test``


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
def site_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StaticServer | SharedSite]:
    """The run's shared site, or a static server for this process's built site, which it
    builds first unless the site in its slot was built for the address it serves."""
    if os.environ.get(SHARED) and (site := shared(Path(os.environ[SHARED]) / "shared")):
        yield site
        return
    folder = _slot(tmp_path_factory)
    folder.mkdir(parents=True, exist_ok=True)
    root, built = folder / "site", folder / "built-for"
    with locked(folder / ".lock"):
        old = built.read_text(encoding="utf-8") if built.is_file() else ""
        port = int(old.rsplit(":", 1)[1].strip("/")) if old else 0
        server = _start(root, port)
        if old != server.url:
            built.unlink(missing_ok=True)
            root.mkdir(exist_ok=True)
            build_site(root, server.url)
            built.write_text(server.url, encoding="utf-8")
    try:
        yield server
    finally:
        server.__exit__(None, None, None)


@pytest.fixture(scope="session")
def built_site(site_server: StaticServer | SharedSite) -> Path:
    """The built site's folder (see the module docstring)."""
    return site_server.root


@pytest.fixture(scope="session")
def site_url(site_server: StaticServer | SharedSite) -> str:
    """The address the site was built for (``site_url``): its server's."""
    return site_server.url
