#!/usr/bin/env python
"""How long each tier of the test suite takes: the maintainer's wait for an answer.

Runs ``scripts/test`` once per tier asked for and prints each run's wall time, its exit
status, the tests it ran and the machine's load average before and after, against the goals
(``--quick`` 3 min, ``--recipe jobs-poll`` 2 min, the whole suite 12 min).

``--fresh-clone`` first clones the checkout's ``HEAD`` into a temporary folder and runs there,
so the first tier pays for everything a fresh clone builds (its virtualenv, the Try-it runtime,
the editor). ``--hog N`` keeps N processes spinning on the CPU beside the runs: the suite's
real-time checks must hold at a load average of 4 on this 2-core machine (``--hog 2``).

Usage: ``.venv/bin/python scripts/bench/bench_tests.py [TIER ...] [--fresh-clone] [--hog N]``
with TIER one of ``quick``, ``recipe``, ``full`` (default: all three, in that order).
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from docsite.paths import REPO

TIERS = {
    "quick": (["--quick"], 180.0),
    "recipe": (["--recipe", "jobs-poll"], 120.0),
    "full": ([], 720.0),
}
_COUNTS = re.compile(r"=+ (.*?) in [\d.]+s")


def _spin() -> None:
    while True:
        pass


@contextlib.contextmanager
def _hog(processes: int) -> Iterator[None]:
    """``processes`` busy loops beside the block (none for 0)."""
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(processes)]
    for spinner in spinners:
        spinner.start()
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.terminate()
            spinner.join()


@contextlib.contextmanager
def _checkout(fresh: bool) -> Iterator[Path]:
    """The repository to test: this one, or a fresh clone of its ``HEAD``."""
    if not fresh:
        yield REPO
        return
    with tempfile.TemporaryDirectory(prefix="bench-tests-") as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
        yield clone


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def run_tier(repo: Path, name: str) -> tuple[float, int, str]:
    """One ``scripts/test`` run of a tier: (seconds, exit status, pytest's count lines)."""
    args, _ = TIERS[name]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "DOCSITE_TEST_SITE")}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(REPO / ".venv"))
    )
    start = time.perf_counter()
    proc = subprocess.run(
        [str(repo / "scripts" / "test"), *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    counts = "; ".join(m.group(1) for m in _COUNTS.finditer(proc.stdout))
    if proc.returncode:
        sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-2000:])
    return seconds, proc.returncode, counts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tiers", nargs="*", metavar="TIER", help=f"one of {', '.join(TIERS)}")
    parser.add_argument("--fresh-clone", action="store_true")
    parser.add_argument("--hog", type=int, default=0, metavar="N")
    args = parser.parse_args(argv)
    unknown = [t for t in args.tiers if t not in TIERS]
    if unknown:
        parser.error(f"unknown tier {unknown[0]!r} (the tiers: {', '.join(TIERS)})")
    tiers = args.tiers or list(TIERS)
    failed = 0
    with _checkout(args.fresh_clone) as repo, _hog(args.hog):
        where = "a fresh clone" if args.fresh_clone else "this checkout"
        print(f"scripts/test tiers in {where}, {args.hog} CPU hog(s) beside:", flush=True)
        for name in tiers:
            before = _load()
            seconds, status, counts = run_tier(repo, name)
            goal = TIERS[name][1]
            verdict = "passed" if status == 0 else f"FAILED (exit {status})"
            print(
                f"  {name:6} {seconds / 60:5.1f} min (goal {goal / 60:.0f} min) {verdict};"
                f" load {before} -> {_load()}; {counts}",
                flush=True,
            )
            failed = failed or status
    return failed


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
