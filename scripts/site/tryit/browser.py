"""Entry points of the site's Web Worker (runs inside Pyodide only).

The worker's JavaScript only relays messages: :func:`boot` once, then :func:`handle` for each
message, which answers in JSON. Every message names ``"recipe"`` and ``"session"`` (one per
widget on the page):

- resq recipes, one per click: ``{"action": "step" | "run" | "reset", "fresh": bool}``,
  answered with a :class:`tryit.StepResult`; the stepping happens here, in Python.
- hedron recipes are driven by the page (``panel.mjs``: the real htmx sends every request),
  and Python only plays the server (:class:`tryit._server.PageServer`):
  ``{"action": "open"}`` starts a fresh app and answers the demo's settings;
  ``{"action": "request", "method", "url", "headers", "body", "t"}`` answers one request at
  virtual time ``t`` (with the new transcript lines); ``{"action": "end", "how"}`` writes the
  line that says how the run ended; ``{"action": "reset"}`` drops the session.

Pyodide has no threads, so :func:`install_inline_threadpool` makes anyio's thread offload
(what Starlette/FastAPI use for plain ``def`` endpoints and dependencies) call the function
inline. That is only correct in this single-user, in-process demo runtime.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any

from tryit._recipes import load_recipe
from tryit._server import PageServer
from tryit._stepper import Stepper, StepResult, open_demo

_demos: dict[str, Stepper] = {}
_pages: dict[str, PageServer] = {}


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


async def boot() -> str:
    """Import the libraries (a missing wheel fails here, loudly) and install the shim."""
    import fastapi  # noqa: F401
    import httpx  # noqa: F401

    import hedron  # noqa: F401
    import resq  # noqa: F401

    if sys.platform == "emscripten":
        install_inline_threadpool()
    return json.dumps({"python": sys.version.split()[0], "jspi": can_block()})


@functools.cache  # every click asks; recipe.toml files do not change during a visit
def _needs_blocking(name: str) -> bool:
    recipe = load_recipe(name)
    return recipe.library == "resq" and recipe.demo.adapter == "requests"


async def handle(message: str) -> str:
    """Answer one message from the page (see the module docstring)."""
    msg = json.loads(message)
    action, name = msg.get("action"), msg.get("recipe")
    if not isinstance(name, str):
        raise ValueError("handle(): message needs a 'recipe' name")
    key = str(msg.get("session") or name)  # one session per widget on the page
    if action == "reset" or msg.get("fresh"):
        await _drop(key)
        if action == "reset":
            return json.dumps(StepResult().as_dict())
    if action in ("open", "request", "end"):
        return json.dumps(await _serve(action, name, key, msg))
    if action not in ("step", "run"):
        raise ValueError(
            "handle(): action must be 'step', 'run', 'reset', 'open', 'request' or 'end', "
            f"got {action!r}"
        )
    if _needs_blocking(name) and not can_block():
        reason = "this browser cannot pause synchronous Python code (no JSPI)"
        return json.dumps({**StepResult().as_dict(), "unsupported": reason})
    stepper = _demos.get(key)
    if stepper is None:
        stepper = _demos[key] = open_demo(name)
    result = await (stepper.step() if action == "step" else stepper.run_to_end())
    return json.dumps(result.as_dict())


async def _drop(key: str) -> None:
    old = _demos.pop(key, None)
    if old is not None:
        await old.close()
    page = _pages.pop(key, None)
    if page is not None:
        await page.aclose()


async def _serve(action: str, name: str, key: str, msg: dict[str, Any]) -> dict[str, Any]:
    """The hedron demo's server side: open a fresh app, answer a request, end the run."""
    if action == "open":
        await _drop(key)
        fresh = _pages[key] = PageServer(load_recipe(name))
        return fresh.settings()
    server = _pages.get(key)
    if server is None:
        raise ValueError(f"handle(): {action!r} before 'open' for session {key!r}")
    if action == "end":
        return server.end(str(msg.get("how")))
    return await server.request(
        str(msg.get("method", "GET")).upper(),
        msg.get("url"),
        list(msg.get("headers") or []),
        msg.get("body"),
        msg.get("t"),
    )
