"""Run a command on a machine where Chromium cannot run: in a mount namespace of its own
(``unshare --mount``, root only), ``/usr/bin/chromium`` is replaced by a program that fails."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from docsite.paths import REPO
from docsite.testing.browser import CHROMIUM

#: Whether this machine can do it (root's ``unshare``).
POSSIBLE = shutil.which("unshare") is not None and os.geteuid() == 0
BROKEN = 'mount --bind "$1" "$2" && shift 2 && exec "$@"'
MESSAGE = "chromium cannot run here"


def without_chromium(
    tmp_path: Path, command: list[str], timeout: float = 900, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` (from the repository's root, with ``env`` added to this environment)
    where ``/usr/bin/chromium`` fails with :data:`MESSAGE`."""
    broken = tmp_path / "chromium"
    broken.write_text(f"#!/bin/sh\necho '{MESSAGE}' >&2\nexit 1\n")
    broken.chmod(0o755)
    return subprocess.run(
        ["unshare", "--mount", "--", "sh", "-c", BROKEN, "sh", str(broken), CHROMIUM, *command],
        cwd=REPO,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
