"""Fixtures for the example-tree tests: the scripts loaded by path, a temporary recipe, and
a static file server on 127.0.0.1 (what ``mkdocs build`` output looks like when served)."""

from __future__ import annotations

import contextlib
import functools
import http.server
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "scripts" / "site") not in sys.path:
    sys.path.insert(0, str(ROOT / "scripts" / "site"))

from scriptload import load_script  # noqa: E402


@pytest.fixture(scope="session")
def examples() -> ModuleType:
    return load_script("examples", ROOT / "scripts" / "examples.py")


@pytest.fixture(scope="session")
def downloader() -> ModuleType:
    return load_script("download_example", ROOT / "scripts" / "download_example.py")


@pytest.fixture(scope="session")
def hook() -> ModuleType:
    return load_script("examples_hook", ROOT / "scripts" / "site" / "examples_hook.py")


APP_PY = b'''"""A tiny app for the example-tree tests."""

from fastapi import FastAPI

app = FastAPI()
'''

RECIPE_TOML = """title = "Demo poll"
summary = "A recipe made up by the tests."
library = "hedron"
files = ["app.py", "helpers/util.py"]
run = ["uvicorn app:app --reload"]
requirements = ["hedron", "fastapi"]
"""


@pytest.fixture
def recipes_dir(tmp_path: Path) -> Path:
    """A ``recipes/`` folder with one recipe, ``demo-poll`` (two exported files)."""
    folder = tmp_path / "recipes" / "demo-poll"
    (folder / "helpers").mkdir(parents=True)
    (folder / "recipe.toml").write_text(RECIPE_TOML)
    (folder / "app.py").write_bytes(APP_PY)
    (folder / "helpers" / "util.py").write_bytes(b"VALUE = 1\r\n# CRLF kept as is\r\n")
    (folder / "page.md").write_text("Not exported.\n")
    return tmp_path / "recipes"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def serve_directory(folder: Path) -> Iterator[str]:
    """Serve ``folder`` on a free 127.0.0.1 port; yield its base URL (ending with ``/``)."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def static_server() -> object:
    """The :func:`serve_directory` context manager (``with static_server(folder) as url``)."""
    return serve_directory
