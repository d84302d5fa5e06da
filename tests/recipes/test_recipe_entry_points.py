"""What the "Try it" driver cannot run, checked here: the parts of two recipes that the
browser never executes.

- ``resq-trio``: the driver runs ``main(client)`` on asyncio (trio does not run in Pyodide);
  here ``python client.py`` runs its ``__main__`` block, ``trio.run()``, against the server on
  a real socket.
- ``resq-testing``: the recipe ships a pytest file; here it runs in a copy of the recipe
  folder, as a reader runs it, and it must also catch a bug in the code it tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tryit import load_recipe

pytestmark = pytest.mark.slow  # each recipe's entry point in a process of its own

SUBPROCESS_TIMEOUT_S = 120
#: ``python -c VIRTUAL_TIME script.py``: run a script as ``__main__`` under resq's virtual
#: clock; every request is real, only the pauses between attempts take no time.
VIRTUAL_TIME = (
    "import runpy, sys\n"
    "from resq.clock import VirtualClock, use_clock\n"
    "sys.argv = sys.argv[1:]\n"
    "with use_clock(VirtualClock()):\n"
    "    runpy.run_path(sys.argv[0], run_name='__main__')\n"
)
#: The same, with ``trio.run`` wrapped so the test sees that it ran the recipe's ``run()``.
UNDER_TRIO = (
    "import trio\n"
    "ran = []\n"
    "real_run = trio.run\n"
    "def watched(fn, *args):\n"
    "    ran.append(fn.__name__)\n"
    "    return real_run(fn, *args)\n"
    "trio.run = watched\n" + VIRTUAL_TIME + "print('trio.run ran:', ran, file=sys.stderr)\n"
)


def _printed(name: str) -> list[str]:
    lines = load_recipe(name).transcript_path.read_text(encoding="utf-8").splitlines()
    return [line[2:] for line in lines if line.startswith("> ")]


def test_trio_recipe_runs_its_main_block_under_trio(live_server: Callable[..., str]) -> None:
    recipe = load_recipe("resq-trio")
    server = recipe.load("server.py")
    base_url = live_server(server.app)
    # The driver loads client.py in the browser, where trio cannot even be imported: the
    # module must not import it at the top.
    probe = "import sys; sys.modules['trio'] = None; import client; print(client.main.__name__)"
    imported = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=recipe.folder,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_S,
        check=False,
    )
    assert imported.returncode == 0, imported.stderr
    # The __main__ block, on a real socket, with trio.run watched.
    proc = subprocess.run(
        [sys.executable, "-c", UNDER_TRIO, "client.py"],
        cwd=recipe.folder,
        env={**os.environ, "BASE_URL": base_url, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_S,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == _printed("resq-trio")
    assert proc.stderr.splitlines()[-1] == "trio.run ran: ['run']"
    assert server.checks == {"42": 4}  # the four requests of the transcript, over HTTP


def _run_pytest(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_client.py"],
        cwd=folder,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_S,
        check=False,
    )


def test_testing_recipe_tests_pass_and_catch_a_bug(tmp_path: Path) -> None:
    recipe = load_recipe("resq-testing")
    folder = tmp_path / recipe.name
    shutil.copytree(recipe.folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    passed = _run_pytest(folder)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "2 passed" in passed.stdout
    # A bug in the code under test (it polls twice as often) must make a test fail.
    client = folder / "client.py"
    source = client.read_text(encoding="utf-8")
    assert "timeout=30, delay=2)" in source
    client.write_text(source.replace("timeout=30, delay=2)", "timeout=30, delay=1)"))
    failed = _run_pytest(folder)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "1 failed, 1 passed" in failed.stdout
    assert "assert [1.0, 1.0, 1.0] == [2, 2, 2]" in failed.stdout
