#!/usr/bin/env python
"""How long an edit takes to show under ``scripts/serve``: the maintainer's edit loop.

Starts ``scripts/serve`` on a free port, waits for the first build, then makes each edit in
turn (a comment line in a recipe's ``client.py``, a sentence in its ``page.md``, a sentence in
a hand-written page) and measures the time from saving the file to the served page (and, for
the code, the served download and the file the Try-it editor opens) showing it. Each edit is
undone afterwards, and the time for that to show is not counted.

Usage: ``.venv/bin/python scripts/bench/bench_edit.py [--repeat N]``
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

from docsite.paths import REPO

TIMEOUT_S = 300.0
RECIPE = "resq-sync-poll"
# (what is edited, the file, the addresses that must show the edit)
EDITS = [
    (
        "a recipe's client.py",
        REPO / "recipes" / RECIPE / "client.py",
        [
            f"recipes/{RECIPE}/",
            f"examples/{RECIPE}/client.py",
            f"_tryit/recipes/{RECIPE}.json",
        ],
    ),
    ("a recipe's page.md", REPO / "recipes" / RECIPE / "page.md", [f"recipes/{RECIPE}/"]),
    ("a hand-written page", REPO / "docs" / "resq" / "polling.md", ["resq/polling/"]),
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(response.read().decode("utf-8", "replace"))
    except (urllib.error.URLError, OSError):
        return ""


def _wait_for(urls: list[str], text: str, present: bool = True) -> float:
    """Seconds until every URL's body contains ``text`` (or none does)."""
    start = time.monotonic()
    while time.monotonic() - start < TIMEOUT_S:
        if all((text in _get(url)) == present for url in urls):
            return time.monotonic() - start
        time.sleep(0.1)  # polling an HTTP server from outside: no event to wait on
    raise TimeoutError(f"{urls} did not show the edit within {TIMEOUT_S:.0f} s")


@contextlib.contextmanager
def _serving(port: int) -> Iterator[str]:
    env = {**os.environ, "PORT": str(port)}
    proc = subprocess.Popen(
        [str(REPO / "scripts" / "serve")],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        _wait_for([url], "resq")
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _edit(path: Path, marker: str) -> str:
    """Append a line holding ``marker`` (a comment in Python, a sentence in Markdown)."""
    original = path.read_text(encoding="utf-8")
    line = f"# {marker}\n" if path.suffix == ".py" else f"\nEdited {marker}.\n"
    path.write_text(original + line, encoding="utf-8")
    return original


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    port = _free_port()
    results: dict[str, list[float]] = {what: [] for what, _, _ in EDITS}
    with _serving(port) as base:
        for _ in range(args.repeat):
            for what, path, pages in EDITS:
                marker = f"bench-{uuid.uuid4().hex[:8]}"
                urls = [base + page for page in pages]
                original = _edit(path, marker)
                try:
                    results[what].append(_wait_for(urls, marker))
                finally:
                    path.write_text(original, encoding="utf-8")
                _wait_for(urls, marker, present=False)
    print(f"edit to served page under scripts/serve (median of {args.repeat}; goal 10 s):")
    for what, times in results.items():
        spread = f"[{min(times):.1f}-{max(times):.1f}]"
        print(f"  {what:22} {statistics.median(times):5.1f} s {spread}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
