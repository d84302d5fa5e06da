"""A plain ``mkdocs build`` needs no browser: on a machine where ``/usr/bin/chromium`` cannot
run, the whole site (with its Try-it runtime) still builds. Only the opt-in prepared
interpreter (``TRYIT_PREPARED=1``) starts Chromium."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docsite.paths import REPO
from docsite.testing.browser import CHROMIUM

pytestmark = [
    pytest.mark.slow,  # the whole site
    pytest.mark.skipif(
        shutil.which("unshare") is None or os.geteuid() != 0,
        reason="needs root's unshare to put a broken Chromium in place",
    ),
]

# In a mount namespace of its own, /usr/bin/chromium is replaced by a program that fails.
BROKEN = 'mount --bind "$1" "$2" && shift 2 && exec "$@"'


def _broken(tmp_path: Path, command: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``command`` where ``/usr/bin/chromium`` is a program that fails."""
    broken = tmp_path / "chromium"
    broken.write_text("#!/bin/sh\necho 'chromium cannot run here' >&2\nexit 1\n")
    broken.chmod(0o755)
    return subprocess.run(
        ["unshare", "--mount", "--", "sh", "-c", BROKEN, "sh", str(broken), CHROMIUM, *command],
        cwd=REPO,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def test_chromium_is_really_broken_there(tmp_path: Path) -> None:
    result = _broken(tmp_path, [CHROMIUM, "--headless", "--version"])
    assert result.returncode != 0
    assert "chromium cannot run here" in result.stderr


def test_the_site_builds_where_chromium_cannot_run(tmp_path: Path) -> None:
    site = tmp_path / "site"
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)]
    result = _broken(tmp_path, command, TRYIT_PREPARED="0")
    assert result.returncode == 0, result.stderr[-3000:]
    manifest = site / "_tryit" / "pyodide" / "tryit-bundle.json"
    assert "snapshot" not in json.loads(manifest.read_text(encoding="utf-8"))
    assert (site / "recipes" / "jobs-poll" / "index.html").is_file()
