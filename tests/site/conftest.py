"""Fixtures of the site tests: the built site (once per session), a static server for it on
127.0.0.1 with the right MIME types. Chromium is the shared ``chromium`` fixture."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from docsite.paths import REPO as ROOT
from docsite.testing.static_server import StaticServer


@pytest.fixture(scope="session")
def site_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StaticServer]:
    """A static server for the built site (started first: the build needs its URL)."""
    root = tmp_path_factory.mktemp("site") / "site"
    root.mkdir()
    with StaticServer(root) as server:
        yield server


@pytest.fixture(scope="session")
def built_site(site_server: StaticServer) -> Path:
    """``mkdocs build --strict`` of the whole site (with the Try it runtime and its prepared
    interpreter), once.

    ``SITE_URL`` is the test server's URL: the theme's instant navigation only treats links
    under ``site_url`` (same port) as internal.
    """
    target = site_server.root
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": site_server.url}
    env["TRYIT_PREPARED"] = "1"  # the prepared interpreter's tests need it
    env.pop("TRYIT_SKIP_RUNTIME", None)
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(target)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return target
