"""Builds in one checkout take turns on the runtime's cache: two ``mkdocs build`` started at
once, on a cache that has to make the runtime, both succeed with the same runtime; a later
build reuses it instead of making it again.

The cache starts with what a build downloads and with the parts made before the runtime (the
wheels of this checkout and their bytecode, about 20 s of CPU under Node): every step of a
build holds the same lock (``docsite.runtime.build``), and what the builds race for is the
runtime's folder and its staging folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from docsite.paths import CACHE, REPO

# three whole builds, one of them making the runtime: over 300 s on a busy machine (a fresh
# clone's run with two CPU hogs beside it), so 900 s in all
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

# What a build downloads (kept, so the test needs no network) and what it makes before the
# runtime; the runtime itself is left out.
KEPT = ("npm", "site/pyodide", "site/wheels", "site/editor")
KEPT += ("site/local", "site/tryit", "site/bytecode")  # made by the build, before the runtime


def _cache(tmp_path: Path) -> Path:
    cache = tmp_path / "cache"
    for part in KEPT:
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


@pytest.fixture
def builds() -> Iterator[list[subprocess.Popen[str]]]:
    """The builds a test starts: none is left running after it, passed or failed."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for build in started:
        if build.poll() is None:
            build.kill()
        build.communicate()


def test_two_builds_at_once_both_succeed_and_a_third_reuses_the_runtime(
    tmp_path: Path, builds: list[subprocess.Popen[str]]
) -> None:
    cache = _cache(tmp_path)
    assert (cache / "site" / "bytecode" / ".stamp").is_file()
    assert not (cache / "site" / "runtime").exists()  # both builds must make it
    builds += [_build(cache, tmp_path / "a"), _build(cache, tmp_path / "b")]
    for build in builds:
        output, _ = build.communicate(timeout=1200)
        assert build.returncode == 0, output[-3000:]
    index = "_tryit/pyodide/tryit-files.json"
    assert (tmp_path / "a" / index).read_bytes() == (tmp_path / "b" / index).read_bytes()
    made = (cache / "site" / "runtime" / ".stamp").stat().st_mtime_ns
    builds.append(third := _build(cache, tmp_path / "c"))
    output, _ = third.communicate(timeout=1200)
    assert third.returncode == 0, output[-3000:]
    assert (cache / "site" / "runtime" / ".stamp").stat().st_mtime_ns == made
