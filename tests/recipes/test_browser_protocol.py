"""The worker's message protocol (``tryit.browser.handle``), exercised on CPython.

In the worker every message is handled on the same event loop; so is each test here.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from docsite.pages import recipes as site_pages
from tryit import browser, load_recipe, run_blocking
from tryit.recipe import ROOT_ENV

ROOT = Path(__file__).resolve().parents[2]


async def _send(**message: Any) -> dict[str, Any]:
    return dict(json.loads(await browser.handle(json.dumps(message))))


def test_sessions_step_run_and_reset_independently() -> None:
    committed = load_recipe("resq-async-poll").transcript_path.read_text().splitlines()
    name = "resq-async-poll"

    async def go() -> None:
        first = await _send(action="step", recipe=name, session="a", fresh=True)
        assert first["lines"] == committed[:1]
        assert first["done"] is False
        assert first["response"].startswith("503 Service Unavailable\n")  # text, never markup
        other = await _send(action="run", recipe=name, session="b", fresh=True)
        assert other["lines"] == committed  # a second widget has its own run
        rest = await _send(action="run", recipe=name, session="a")
        assert rest["lines"] == committed[1:]
        assert rest["outcome"] == "terminal"
        assert (await _send(action="reset", recipe=name, session="a"))["lines"] == []
        again = await _send(action="step", recipe=name, session="a")
        assert again["lines"] == committed[:1]  # after Reset the run starts over
        await _send(action="reset", recipe=name, session="a")
        await _send(action="reset", recipe=name, session="b")

    run_blocking(go)


def test_sync_recipe_without_jspi_is_reported_unsupported() -> None:
    reply = run_blocking(
        lambda: _send(action="step", recipe="resq-sync-poll", session="s", fresh=True)
    )
    assert "no JSPI" in reply["unsupported"]  # CPython has no pyodide.ffi.run_sync
    assert reply["lines"] == []


def test_bad_messages_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="'recipe'"):
        run_blocking(lambda: _send(action="step"))
    with pytest.raises(ValueError, match="action must be"):
        run_blocking(lambda: _send(action="jump", recipe="resq-async-poll"))


def test_hedron_messages_play_the_server_at_the_virtual_time_given() -> None:
    """What panel.mjs sends for a hedron recipe: open, request (at virtual time t), end."""
    name, session = "jobs-poll", "p"

    async def go() -> None:
        settings = await _send(action="open", recipe=name, session=session)
        assert settings == {"interval": 2, "window": 30, "page": "/",
                            "actions": [{"click": "form button[type=submit]", "at": 0.0}],
                            "title": "Jobs poll"}  # fmt: skip
        page = await _send(action="request", recipe=name, session=session, method="GET",
                           url="/", headers=[["Accept", "text/html"]], body=None, t=0)  # fmt: skip
        assert page["status"] == 200
        html = base64.b64decode(page["body"]).decode()
        assert "hedron.css" in html
        assert page["lines"] == [load_recipe(name).transcript_path.read_text().splitlines()[0]]
        assert not [k for k, _ in page["headers"] if k.lower() == "set-cookie"]  # hidden
        css = await _send(action="request", recipe=name, session=session, method="GET",
                          url="/_hedron/static/hedron.css", headers=[], body=None, t=0)  # fmt: skip
        assert (css["status"], css["lines"]) == (200, [])  # the app's own files are not lines
        end = await _send(action="end", recipe=name, session=session, how="idle")
        assert end["lines"] == ["= done: the page sends no further request"]
        with pytest.raises(ValueError, match="how must be 'idle' or 'window'"):
            await _send(action="end", recipe=name, session=session, how="later")
        with pytest.raises(ValueError, match="url must be root-relative"):
            await _send(action="request", recipe=name, session=session, method="GET",
                        url="http://elsewhere/", headers=[], body=None, t=1)  # fmt: skip
        await _send(action="reset", recipe=name, session=session)
        with pytest.raises(ValueError, match="'request' before 'open'"):
            await _send(action="request", recipe=name, session=session, method="GET",
                        url="/", headers=[], body=None, t=0)  # fmt: skip

    run_blocking(go)


def test_install_writes_a_recipes_files_the_site_publishes_then_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runtime carries no recipe: the page sends each one's files first (``install``),
    the files ``_tryit/recipes/<name>.json`` publishes as ``runtime``."""
    name = "resq-async-poll"
    published = site_pages.editor_files(load_recipe(name))["runtime"]
    assert {"recipe.toml", "client.py", "server.py"} <= set(published)
    assert "page.md" not in published
    assert "transcript.txt" not in published
    monkeypatch.setenv(ROOT_ENV, str(tmp_path))
    committed = load_recipe(name, ROOT / "recipes").transcript_path.read_text().splitlines()

    async def go() -> None:
        with pytest.raises(ValueError, match="no recipe named"):
            await _send(action="run", recipe=name, session="i", fresh=True)
        assert await _send(action="install", recipe=name, files=published) == {"installed": name}
        written.extend(sorted(p.name for p in (tmp_path / name).iterdir()))
        run = await _send(action="run", recipe=name, session="i", fresh=True)
        assert run["lines"] == committed
        await _send(action="reset", recipe=name, session="i")

    written: list[str] = []  # what install wrote (the run adds Python's __pycache__)
    run_blocking(go)
    assert written == sorted(published)


@pytest.mark.parametrize(
    ("recipe", "files", "message"),
    [
        ("../up", {"recipe.toml": ""}, "is not a recipe's name"),
        ("ok", {"client.py": ""}, "with recipe.toml"),
        ("ok", {"recipe.toml": "", "../../x.py": ""}, "is not a recipe file's name"),
        ("ok", {"recipe.toml": "", "sub/x.py": ""}, "is not a recipe file's name"),
        ("ok", {"recipe.toml": "", ".hidden": ""}, "is not a recipe file's name"),
        ("ok", {"recipe.toml": 3}, "is not a recipe file's name"),
        ("ok", ["recipe.toml"], "with recipe.toml"),
    ],
)
def test_install_refuses_what_is_not_a_recipes_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recipe: str, files: Any, message: str
) -> None:
    monkeypatch.setenv(ROOT_ENV, str(tmp_path))
    with pytest.raises(ValueError, match=message):
        run_blocking(lambda: _send(action="install", recipe=recipe, files=files))
    assert list(tmp_path.iterdir()) == []
