"""A plain ``mkdocs build`` needs no browser: on a machine where ``/usr/bin/chromium`` cannot
run, the whole site (with its Try-it runtime) still builds. Only the opt-in prepared
interpreter (``TRYIT_PREPARED=1``) starts Chromium."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from docsite.testing.browser import CHROMIUM
from tests._support.broken_chromium import MESSAGE, POSSIBLE, without_chromium

pytestmark = [
    pytest.mark.slow,  # the whole site
    pytest.mark.skipif(
        not POSSIBLE, reason="needs root's unshare to put a broken Chromium in place"
    ),
]


def test_chromium_is_really_broken_there(tmp_path: Path) -> None:
    result = without_chromium(tmp_path, [CHROMIUM, "--headless", "--version"])
    assert result.returncode != 0
    assert MESSAGE in result.stderr


def test_the_site_builds_where_chromium_cannot_run(tmp_path: Path) -> None:
    site = tmp_path / "site"
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)]
    result = without_chromium(tmp_path, command, TRYIT_PREPARED="0")
    assert result.returncode == 0, result.stderr[-3000:]
    manifest = site / "_tryit" / "pyodide" / "tryit-bundle.json"
    assert "snapshot" not in json.loads(manifest.read_text(encoding="utf-8"))
    assert (site / "recipes" / "jobs-poll" / "index.html").is_file()
