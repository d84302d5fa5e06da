"""What a recipe page tells a reader to paste, when something goes wrong.

- The "Download and install" block stops at its first failure: a site that cannot be reached,
  or a download the script refuses, never leaves a virtual environment in the reader's folder
  or in a folder that was already there.
- A "Run" block says so when another server already answers on the example's port (in a
  network namespace of its own, with another HTTP server on that port; ``paste_harness.py``).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from docsite.examples import docs as examples_docs
from docsite.examples.plan import port_taken
from tryit.recipe import load_recipe

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
BLOCK_TIMEOUT_S = 120.0


def _setup_block(recipes_dir: Path, url: str) -> str:
    quick = examples_docs.quickstart(load_recipe("demo-poll", recipes_dir), url)
    return _blocks(quick)[examples_docs.SETUP_TITLE]


def _blocks(markdown: str) -> dict[str, str]:
    found = re.findall(r'^```bash title="([^"]+)"\n(.*?)\n```$', markdown, flags=re.M | re.S)
    return dict(found)


def _paste(block: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``bash -s`` reads the block line by line, as a terminal does with a paste."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PIP_NO_INDEX"] = "1"  # should pip ever run, it must not reach a package index
    return subprocess.run(
        ["bash", "-s"],
        input=block + "\n",
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT_S,
        check=False,
    )


def _venvs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("pyvenv.cfg"))


def test_the_setup_block_stops_when_the_site_cannot_be_reached(
    recipes_dir: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{sock.getsockname()[1]}/"  # bound, never listening
        proc = _paste(_setup_block(recipes_dir, down), work)
    assert proc.returncode != 0
    assert "curl: (7)" in proc.stderr
    assert list(work.iterdir()) == []  # no script, no folder, no .venv


def test_the_setup_block_stops_when_the_download_is_refused(
    recipes_dir: Path, site: tuple[str, Path], tmp_path: Path
) -> None:
    """The reader's own ``demo-poll/`` is there: the script refuses to overwrite it, and the
    block goes no further (no ``cd`` into it, no venv in it)."""
    url, _ = site
    work = tmp_path / "work"
    mine = work / "demo-poll"
    mine.mkdir(parents=True)
    (mine / "app.py").write_text("# the reader's own app\n")
    proc = _paste(_setup_block(recipes_dir, url), work)
    assert proc.returncode != 0
    assert "download_example.py: error: " in proc.stderr
    assert "--force" in proc.stderr
    assert _venvs(work) == []
    assert [p.name for p in mine.iterdir()] == ["app.py"]


def test_the_download_names_the_site_it_used(
    recipes_dir: Path, site: tuple[str, Path], tmp_path: Path
) -> None:
    """The page's command names its site twice (the script's URL and ``--base-url``), and the
    script's success line names the site it downloaded from."""
    url, _ = site
    block = _setup_block(recipes_dir, url)
    download = block.split(" \\\n  && cd ", 1)[0]  # the download, without the venv and pip
    assert download.count(url) == 2
    work = tmp_path / "work"
    work.mkdir()
    proc = _paste(download, work)
    assert proc.returncode == 0, proc.stderr
    assert f"demo-poll: 6 files from {url} in demo-poll/" in proc.stdout


def _taken(name: str, tmp_path: Path) -> dict[str, Any]:
    """Paste ``name``'s run block (from its page) in its recipe folder, with another HTTP
    server on the example's port, in a network namespace of its own."""
    probe = subprocess.run(["unshare", "--net", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("needs `unshare --net` (root): " + probe.stderr.decode())
    recipe = load_recipe(name)
    quick = examples_docs.quickstart(recipe, "https://docs.test/")
    spec = {
        "kind": "taken",
        "folder": str(ROOT / "recipes" / name),
        "bin": str(Path(sys.executable).parent),
        "run": _blocks(quick)[examples_docs.RUN_TITLE],
        "port": recipe.plan.server.port,
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    cmd = ["unshare", "--net", "--", sys.executable, str(HERE / "paste_harness.py"), str(path)]
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S + 30, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def test_a_client_run_block_says_its_port_is_taken_and_runs_nothing(tmp_path: Path) -> None:
    """A server in the background would fail to start, and the client would talk to the
    other server: the block checks the port first."""
    report = _taken("resq-sync-poll", tmp_path)
    assert port_taken(8000) in report["stderr"], report
    assert report["squatter_paths"] == ["/"], report  # the check only: the client never ran
    assert report["stdout"] == ""


def test_an_app_run_block_says_its_port_is_taken(tmp_path: Path) -> None:
    """In the foreground, uvicorn itself says the port is taken, and stops."""
    report = _taken("jobs-poll", tmp_path)
    assert report["code"] not in (0, None), report
    assert "address already in use" in report["stderr"], report
    assert report["squatter_paths"] == [], report
