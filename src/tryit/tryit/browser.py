"""Entry points of the site's Web Worker (runs inside Pyodide only).

The worker's JavaScript only relays messages: :func:`boot` once, then :func:`handle` for each
message, which answers in JSON. Every message names ``"recipe"`` and ``"session"`` (one per
widget on the page). The runtime carries no recipe: before the first message about a recipe
the page sends ``{"action": "install", "files": {name: text}}``, the files the site publishes
in ``_tryit/recipes/<name>.json`` (:func:`install`). Then:

- resq recipes, one per click: ``{"action": "step" | "run" | "reset", "fresh": bool}``,
  answered with a :class:`tryit.StepResult`; the stepping happens here, in Python.
- hedron recipes are driven by the page (``panel.mjs``: the real htmx sends every request),
  and Python only plays the server (:class:`tryit._server.PageServer`):
  ``{"action": "open"}`` starts a fresh app and answers the demo's settings;
  ``{"action": "request", "method", "url", "headers", "body", "t"}`` answers one request at
  virtual time ``t`` (with the new transcript lines); ``{"action": "end", "how"}`` writes the
  line that says how the run ended; ``{"action": "reset"}`` drops the session.

The reader's edited code (the widget's editor) comes with the message that starts a session
(a fresh ``step``/``run``, or ``open``): ``"code": {"client.py": text}`` (or ``app.py``), which
that session loads instead of the recipe's file. An edited session is bounded
(``tryit._edits``: time per message, requests per run), and an error of its code is answered
as ``"error": {"traceback", "message", "file", "line"}`` (with the transcript's end line)
instead of failing the message.

Pyodide has no threads, so :func:`install_inline_threadpool` makes anyio's thread offload
(what Starlette/FastAPI use for plain ``def`` endpoints and dependencies) call the function
inline. That is only correct in this single-user, in-process demo runtime.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import sys
from collections.abc import Callable
from typing import Any

from tryit._edits import BUDGET_REQUESTS, armed, budget_exceeded, describe_error
from tryit._record import Recorder
from tryit._resq_demo import open_demo
from tryit._server import PageServer
from tryit._stepper import Stepper, StepResult
from tryit.recipe import NAME_RE, ROOT_ENV, Recipe, load_recipe, recipes_root

_demos: dict[str, Stepper] = {}
_pages: dict[str, PageServer] = {}
_edited: dict[str, Recipe] = {}  # the sessions that run the reader's edited code


def install_inline_threadpool() -> None:
    """Make ``anyio.to_thread.run_sync`` run the function inline (no threads in Pyodide)."""
    import anyio.to_thread

    async def run_inline(func: Callable[..., Any], *args: Any, **_: Any) -> Any:
        return func(*args)

    anyio.to_thread.run_sync = run_inline  # type: ignore[assignment]


def can_block() -> bool:
    """Whether sync recipe code can wait for a click (JSPI: ``pyodide.ffi.run_sync``)."""
    try:
        from pyodide.ffi import can_run_sync  # type: ignore[import-not-found]
    except ImportError:
        return False
    return bool(can_run_sync())


#: Where the worker keeps the files of the recipes it runs (``install`` writes them).
RECIPES = "/home/pyodide/recipes"
_FILE_NAME = re.compile(r"^[A-Za-z0-9_][\w.-]*$")


async def boot() -> str:
    """Import the libraries (a missing wheel fails here, loudly) and install the shim."""
    import fastapi  # noqa: F401
    import httpx  # noqa: F401

    import hedron  # noqa: F401
    import resq  # noqa: F401

    if sys.platform == "emscripten":
        install_inline_threadpool()
        os.environ.setdefault(ROOT_ENV, RECIPES)  # where install() writes each recipe
    return json.dumps({"python": sys.version.split()[0], "jspi": can_block()})


@functools.cache  # every click asks; recipe.toml files do not change during a visit
def _needs_blocking(name: str) -> bool:
    recipe = load_recipe(name)
    return recipe.driver == "client" and recipe.demo.adapter == "requests"


def install(name: str, files: Any) -> None:
    """Write a recipe's files (``{file name: text}``, as the site publishes them in
    ``_tryit/recipes/<name>.json``) into the recipes folder, replacing what was there.

    Raises:
        ValueError: a name that is not a recipe's or a file's plain name, or a text that is
            not a string.
    """
    if not NAME_RE.match(name):
        raise ValueError(f"install: {name!r:.60} is not a recipe's name")
    if not isinstance(files, dict) or "recipe.toml" not in files:
        raise ValueError("install: files must be an object {file name: text} with recipe.toml")
    for file, text in files.items():
        if not isinstance(file, str) or not _FILE_NAME.match(file) or not isinstance(text, str):
            raise ValueError(f"install: {file!r:.60} is not a recipe file's name and text")
    folder = recipes_root() / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for file, text in files.items():
        (folder / file).write_text(text, encoding="utf-8")
    _needs_blocking.cache_clear()


async def handle(message: str) -> str:
    """Answer one message from the page (see the module docstring)."""
    msg = json.loads(message)
    action, name = msg.get("action"), msg.get("recipe")
    if not isinstance(name, str):
        raise ValueError("handle(): message needs a 'recipe' name")
    if action == "install":
        install(name, msg.get("files"))
        return json.dumps({"installed": name})
    key = str(msg.get("session") or name)  # one session per widget on the page
    if action == "reset" or msg.get("fresh"):
        await _drop(key)
        if action == "reset":
            return json.dumps(StepResult().as_dict())
    if msg.get("code") is not None:
        if not (msg.get("fresh") or action == "open"):
            raise ValueError("handle(): 'code' comes with the message that starts a session")
        _edited[key] = load_recipe(name).edited(msg["code"])
    if action in ("open", "request", "end"):
        return json.dumps(await _serve(action, name, key, msg))
    if action not in ("step", "run"):
        raise ValueError(
            "handle(): action must be 'install', 'step', 'run', 'reset', 'open', 'request' or "
            "'end', "
            f"got {action!r}"
        )
    if _needs_blocking(name) and not can_block():
        reason = "this browser cannot pause synchronous Python code (no JSPI)"
        return json.dumps({**StepResult().as_dict(), "unsupported": reason})
    edited = _edited.get(key)
    stepper = _demos.get(key)
    if stepper is None:
        stepper = _demos[key] = open_demo(edited or name)
    if edited is None:
        result = await (stepper.step() if action == "step" else stepper.run_to_end())
        return json.dumps(result.as_dict())
    return json.dumps(await _step_edited(stepper, action, edited))


async def _step_edited(stepper: Stepper, action: str, recipe: Recipe) -> dict[str, Any]:
    """A step (or a run) of edited code: bounded, its error described."""
    with armed():
        if action == "step":
            result = await stepper.step()
        else:
            result = await stepper.run_to_end(limit=max(1, BUDGET_REQUESTS - stepper.steps))
    if not result.done and stepper.steps >= BUDGET_REQUESTS:
        message = (
            f"stopped: the edited code sent {BUDGET_REQUESTS} requests without ending"
            " (the budget of an edited run)"
        )
        end = await stepper.halt("budget", message)
        result.lines += end.lines
        result.done, result.outcome, result.message = True, end.outcome, end.message
    answer = result.as_dict()
    if result.done and stepper.error is not None and budget_exceeded(stepper.error) is None:
        answer["error"] = describe_error(stepper.error, recipe.folder, recipe.sources)
    return answer


async def _drop(key: str) -> None:
    old = _demos.pop(key, None)
    if old is not None:
        await old.close()
    page = _pages.pop(key, None)
    if page is not None:
        await page.aclose()
    _edited.pop(key, None)


async def _serve(action: str, name: str, key: str, msg: dict[str, Any]) -> dict[str, Any]:
    """The hedron demo's server side: open a fresh app, answer a request, end the run."""
    edited = _edited.get(key)
    if action == "open":
        await _drop(key)
        recipe = edited or load_recipe(name)
        recipe.check_in_browser()
        if edited is None:
            fresh = _pages[key] = PageServer(recipe)
            return fresh.settings()
        _edited[key] = edited
        try:
            with armed():
                fresh = _pages[key] = PageServer(recipe)
        except BaseException as exc:  # the edited app.py does not even load
            return _page_error(exc, Recorder(clock=lambda: 0.0), recipe)
        return fresh.settings()
    server = _pages.get(key)
    if server is None:
        raise ValueError(f"handle(): {action!r} before 'open' for session {key!r}")
    if action == "end":
        return server.end(str(msg.get("how")))
    request = server.request(
        str(msg.get("method", "GET")).upper(),
        msg.get("url"),
        list(msg.get("headers") or []),
        msg.get("body"),
        msg.get("t"),
    )
    if edited is None:
        return await request
    try:
        with armed():
            return await request
    except BaseException as exc:  # the edited app failed (or ran past its budget)
        answer = _page_error(exc, server.recorder, edited)
        return {**answer, "lines": server.new_lines()}


def _page_error(exc: BaseException, recorder: Recorder, recipe: Recipe) -> dict[str, Any]:
    """The answer to a hedron page when the edited app fails: how the run ended, and why."""
    stopped = budget_exceeded(exc)
    if stopped is not None:
        recorder.stop("budget", str(stopped))
    elif isinstance(exc, Exception):
        recorder.fail(exc)
    else:
        raise exc
    answer: dict[str, Any] = {
        "lines": recorder.lines,
        "outcome": recorder.outcome,
        "message": recorder.message,
    }
    if stopped is None:
        answer["error"] = describe_error(exc, recipe.folder, recipe.sources)
    return answer
