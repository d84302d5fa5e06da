"""Fixtures for the example-tree tests: the scripts loaded by path, a temporary recipe, and
a static file server on 127.0.0.1 (what ``mkdocs build`` output looks like when served)."""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from examples_data import LOCAL_DEPS, LOCK_TEXT, VERSIONS

from docsite.examples import download_example, publish, tree


@pytest.fixture(scope="session")
def examples() -> ModuleType:
    return tree


@pytest.fixture(scope="session")
def downloader() -> ModuleType:
    return download_example


@pytest.fixture(scope="session")
def hook() -> ModuleType:
    return publish


APP_PY = b'''"""A tiny app for the example-tree tests."""

from fastapi import FastAPI

app = FastAPI()
'''

EXTRA_PY = b'''"""The same app, spelled out differently."""

from fastapi import FastAPI

app = FastAPI()
'''

RECIPE_TOML = """title = "Demo poll"
summary = "A recipe made up by the tests."
library = "hedron"
files = ["app.py", "helpers/util.py", "extra.py"]
run = ["uvicorn app:app --port 8000"]
requirements = ["hedron", "fastapi"]
form_data = "steps=2"
"""

TRANSCRIPT = """t=0s GET / -> 200 OK | page "Demo page"
t=0s POST /tasks/demo -> 200 OK | #demo-flow: Queued… Cancel
t=2s GET /tasks/demo/<id>/status -> 286 Stop Polling | #demo-status: Done.
= done: terminal state, the app answered 286 at t=2s (htmx swaps it and stops polling)
"""

CLIENT_TOML = """title = "Demo client"
summary = "A client recipe made up by the tests."
library = "resq"
files = ["server.py", "client.py"]
run = ["uvicorn server:app --port 8000 --log-level warning &", "python client.py"]
requirements = ["resq", "uvicorn"]
"""

CLIENT_TRANSCRIPT = """t=0s GET /job/1 -> 503 Service Unavailable | {"state": "running"}
t=2s GET /job/1 -> 200 OK | {"state": "done"}
> 200 done
= done: terminal state, 200 OK at t=2s
"""


@pytest.fixture
def recipes_dir(tmp_path: Path) -> Path:
    """A ``recipes/`` folder with two recipes: ``demo-poll`` (a hedron app: three exported
    files, one an extra app, and a form) and ``demo-client`` (a resq client and server)."""
    folder = tmp_path / "recipes" / "demo-poll"
    (folder / "helpers").mkdir(parents=True)
    (folder / "recipe.toml").write_text(RECIPE_TOML)
    (folder / "app.py").write_bytes(APP_PY)
    (folder / "extra.py").write_bytes(EXTRA_PY)
    (folder / "helpers" / "util.py").write_bytes(b"VALUE = 1\r\n# CRLF kept as is\r\n")
    (folder / "page.md").write_text("Not exported.\n")
    (folder / "transcript.txt").write_text(TRANSCRIPT)
    client = tmp_path / "recipes" / "demo-client"
    client.mkdir()
    (client / "recipe.toml").write_text(CLIENT_TOML)
    (client / "server.py").write_bytes(APP_PY)
    (client / "client.py").write_text('import os\nprint(os.environ.get("BASE_URL"))\n')
    (client / "transcript.txt").write_text(CLIENT_TRANSCRIPT)
    return tmp_path / "recipes"


@pytest.fixture(scope="session")
def build(examples: ModuleType) -> Callable[..., dict[str, bytes]]:
    """``build(recipes_dir, site_url, versions=VERSIONS)``: the tree of made-up recipes."""

    def make(
        recipes_dir: Path, site_url: str, versions: dict[str, str] | None = None
    ) -> dict[str, bytes]:
        return dict(
            examples.build_tree(
                examples.load_recipes(recipes_dir),
                site_url=site_url,
                versions=versions or VERSIONS,
                lock=examples.examples_lock.parse_lock(LOCK_TEXT),
                local_deps=LOCAL_DEPS,
            )
        )

    return make


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


PUBLISHED = "https://docs.test/"


@pytest.fixture
def site(
    build: Callable[..., dict[str, bytes]],
    examples: ModuleType,
    hook: ModuleType,
    recipes_dir: Path,
    tmp_path: Path,
) -> Iterator[tuple[str, Path]]:
    """A site folder published by the hook from the made-up recipes, served; (url, folder)."""
    examples.write_tree(build(recipes_dir, PUBLISHED), tmp_path / "tree")
    wheels = {}
    for dist, version in (("resq", "1.1.0"), ("hedron", "1.2.0")):
        wheels[dist] = tmp_path / f"{dist}-{version}-py3-none-any.whl"
        wheels[dist].write_bytes(f"not really a {dist} wheel".encode())
    site_dir = tmp_path / "site"
    with serve_directory(site_dir) as url:
        hook.publish(site_dir, site_url=url, examples_dir=tmp_path / "tree", wheels=wheels)
        yield url, site_dir
