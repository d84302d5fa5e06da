"""Benchmark of ``scripts/build``: a warm build (the runtime and the editor cached in
``.cache/site/``), as a maintainer or a docs CI job with a cache runs it.

Prints each run's wall time, their median against the goal (<= 60 s on the 2-core machine),
what a run printed beyond its expected lines (a clean build prints only warnings that need
action), what the built runtime's first click downloads (with the ``.gz`` copies the worker
inflates itself, on any host; with the ``.br`` copies, from a host that serves them; with
neither), and what a host's on-the-fly gzip (level 6) makes of a recipe page and of the
search index.

Usage: ``python scripts/bench/bench_build.py [--repeat N] [--site-url URL]``. One untimed
build first fills the caches (it may take minutes on a fresh clone).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from docsite.paths import REPO as ROOT

GOAL_S = 60.0
# What a clean build prints: the runtime's and the editor's cache lines, and its result.
EXPECTED = ("runtime ready in ", "editor ready in ", "scripts/build: the site for ")
MANIFEST = Path("_tryit") / "pyodide" / "tryit-bundle.json"
ON_THE_FLY = ("recipes/jobs-poll/index.html", "search/search_index.json")


def run_build(site_url: str, out: Path) -> tuple[float, list[str]]:
    """One ``scripts/build`` into ``out``: (seconds, the lines it printed)."""
    env = {**os.environ, "SITE_URL": site_url}
    env.pop("TRYIT_PREPARED", None)
    env.pop("TRYIT_SKIP_RUNTIME", None)
    start = time.perf_counter()
    proc = subprocess.run(
        [str(ROOT / "scripts" / "build"), str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"scripts/build failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return seconds, (proc.stdout + proc.stderr).splitlines()


def first_click(site: Path) -> dict[str, int]:
    """Bytes a first click downloads, from the built runtime's manifest."""
    manifest = json.loads((site / MANIFEST).read_text(encoding="utf-8"))
    return {
        "gz copies (any host)": int(manifest["download"]),
        "br copies (a host serving them)": int(manifest["brotli"]),
        "neither": int(manifest["plain"]),
    }


def on_the_fly(site: Path) -> dict[str, tuple[int, int]]:
    """``{file: (bytes, bytes gzipped at level 6)}`` for :data:`ON_THE_FLY`."""
    sizes = {}
    for name in ON_THE_FLY:
        data = (site / name).read_bytes()
        sizes[name] = (len(data), len(gzip.compress(data, compresslevel=6, mtime=0)))
    return sizes


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed builds (median)")
    parser.add_argument("--site-url", default="https://example.org/docs/")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "site"
        print("warming the caches (one untimed build) ...", flush=True)
        run_build(args.site_url, out)
        times, extra = [], set()
        for run in range(args.repeat):
            seconds, lines = run_build(args.site_url, out)
            times.append(seconds)
            extra |= {line for line in lines if not line.startswith(EXPECTED)}
            print(f"run {run + 1}: {seconds:.1f} s", flush=True)
        median = statistics.median(times)
        verdict = "ok" if median <= GOAL_S else "over the goal"
        print(
            f"warm scripts/build: median {median:.1f} s of {len(times)} (goal <= {GOAL_S:.0f} s: "
            f"{verdict}); load average {os.getloadavg()[0]:.1f}"
        )
        print("printed beyond the expected lines:", sorted(extra) or "nothing")
        for what, size in first_click(out).items():
            print(f"first click downloads, {what}: {size / 1e6:.1f} MB ({size} bytes)")
        for name, (plain, zipped) in on_the_fly(out).items():
            print(f"on-the-fly gzip: {name}: {plain / 1e3:.0f} kB -> {zipped / 1e3:.0f} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
