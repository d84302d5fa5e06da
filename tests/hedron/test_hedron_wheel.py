"""The built hedron wheel carries htmx (fetched at build time), the stylesheet and the icon."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hedron_support import ROOT


@pytest.mark.slow
def test_wheel_contains_static_files(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         str(ROOT / "src" / "hedron"), "-w", str(tmp_path)],
        check=True, timeout=240, capture_output=True,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("hedron-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        htmx = zf.read("hedron/static/vendor/htmx.min.js")
    assert {"hedron/static/hedron.css", "hedron/static/favicon.svg"} <= names
    assert b'version:"2.0.11"' in htmx
    assert "hedron_core/components/_live.py" in names
