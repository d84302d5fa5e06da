"""The benchmark script runs (a short version; the 30 s load test is for humans)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench" / "bench_jobs.py"


def test_bench_jobs_short_run_reports_numbers_and_no_errors() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--iterations", "200", "--pollers", "20", "--duration", "1"],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "in-memory :" in out
    assert "sqlite    :" in out
    assert "20 concurrent pollers" in out
    assert "errors    : 0" in out
    # every poller was answered, through a window of the second asked for (how many answers
    # fit in it is the benchmark's figure, not a pass mark: a busy machine gives one each)
    requests = int(out.split("requests  : ")[1].split()[0])
    assert requests >= 20
    window = float(out.split("20 concurrent pollers for ")[1].split()[0])
    assert window >= 1.0
