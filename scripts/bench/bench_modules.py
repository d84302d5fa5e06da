#!/usr/bin/env python
"""What each test module costs the machine: its CPU time and its wall time, run alone.

The whole suite is bound by the two cores (decision record 0028), so a module's share of the
run is its CPU time, Chromium's processes included: this runs each module named (default:
every module with a browser test) in a pytest process of its own, one after the other, and
reads the machine's busy time from ``/proc/stat`` around it. Nothing else should run beside
it. The site is built once first, by the host ``scripts/test`` uses
(``docsite.testing.shared_site``), and is not counted.

Usage: ``.venv/bin/python scripts/bench/bench_modules.py [MODULE ...]``, after one
``scripts/test`` (or ``scripts/build``) has made the Try-it runtime.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from docsite.paths import REPO
from docsite.testing.shared_site import shared

TICKS = os.sysconf("SC_CLK_TCK")


def busy_seconds() -> float:
    """CPU time the machine's cores have spent working, since boot: user, nice, system, irq
    and softirq. Not steal (time a shared host gave to other machines), and not guest, which
    user already holds."""
    with open("/proc/stat", encoding="ascii") as stat:
        user, nice, system, _idle, _iowait, irq, softirq = map(int, stat.readline().split()[1:8])
    return (user + nice + system + irq + softirq) / TICKS


def browser_modules() -> list[str]:
    """Every test module that opens Chromium (by its ``browser`` mark, as pytest selects)."""
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "browser", "tests"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted({line.split("::")[0] for line in listed.splitlines() if "::" in line})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="test modules (default: the browser ones)")
    modules = parser.parse_args().modules or browser_modules()
    with tempfile.TemporaryDirectory(prefix="bench-modules-") as folder:
        env = {**os.environ, "DOCSITE_TEST_SITE": folder, "NO_MKDOCS_2_WARNING": "1"}
        host = subprocess.Popen(
            [sys.executable, "-m", "docsite.testing.shared_site", f"{folder}/shared"],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            started = host.stdout.readline().strip() if host.stdout else ""
            # shared() waits for the build the host announces with "building"
            if started != "building" or shared(Path(folder) / "shared") is None:
                print("the site's host did not start", file=sys.stderr)
                return 1
            print(f"load average {os.getloadavg()[0]:.1f}; each module alone:")
            print(f"{'CPU s':>7} {'wall s':>7}  module")
            rows, failed = [], 0
            for module in modules:
                cpu, wall = busy_seconds(), time.monotonic()
                run = subprocess.run(
                    [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", module],
                    cwd=REPO,
                    env=env,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                rows.append((busy_seconds() - cpu, time.monotonic() - wall, module))
                print(f"{rows[-1][0]:7.1f} {rows[-1][1]:7.1f}  {module}", flush=True)
                if run.returncode not in (0, 5):
                    failed += 1
                    print(run.stdout[-2000:])
            print(f"{sum(r[0] for r in rows):7.1f} {sum(r[1] for r in rows):7.1f}  in all")
            return 1 if failed else 0
        finally:
            if host.stdin:
                host.stdin.close()  # the host ends when its standard input closes
            host.wait(timeout=60)


if __name__ == "__main__":
    sys.exit(main())
