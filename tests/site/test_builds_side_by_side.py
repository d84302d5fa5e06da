"""Builds in one checkout take turns on the runtime's cache: two ``mkdocs build`` started at
once, on a cache that has to make the runtime, both succeed with the same runtime; a later
build reuses it instead of making it again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docsite.paths import CACHE, REPO

pytestmark = pytest.mark.slow  # two whole builds, each making the runtime's bytecode

# What a build downloads (kept, so the test needs no network); what it makes is left out.
DOWNLOADS = ("npm", "site/pyodide", "site/wheels", "site/editor")


def _cache(tmp_path: Path) -> Path:
    cache = tmp_path / "cache"
    for part in DOWNLOADS:
        if (CACHE / part).is_dir():
            shutil.copytree(CACHE / part, cache / part)
    return cache


def _build(cache: Path, out: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "DOCSITE_CACHE": str(cache), "TRYIT_PREPARED": "0"}
    env |= {"NO_MKDOCS_2_WARNING": "1"}
    env.pop("TRYIT_SKIP_RUNTIME", None)
    return subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_two_builds_at_once_both_succeed_and_a_third_reuses_the_runtime(tmp_path: Path) -> None:
    cache = _cache(tmp_path)
    assert not (cache / "site" / "runtime").exists()  # both builds must make it
    first, second = _build(cache, tmp_path / "a"), _build(cache, tmp_path / "b")
    for build in (first, second):
        output, _ = build.communicate(timeout=1200)
        assert build.returncode == 0, output[-3000:]
    index = "_tryit/pyodide/tryit-files.json"
    assert (tmp_path / "a" / index).read_bytes() == (tmp_path / "b" / index).read_bytes()
    made = (cache / "site" / "runtime" / ".stamp").stat().st_mtime_ns
    third = _build(cache, tmp_path / "c")
    output, _ = third.communicate(timeout=1200)
    assert third.returncode == 0, output[-3000:]
    assert (cache / "site" / "runtime" / ".stamp").stat().st_mtime_ns == made
