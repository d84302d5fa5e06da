"""Entry points of the site's Web Worker (runs inside Pyodide only).

The worker's JavaScript only relays messages: :func:`boot` once, then :func:`handle` for every
click (``{"action": "step" | "run" | "reset", "recipe": name, "session": widget key,
"fresh": bool}``), which answers
with a :class:`tryit.StepResult` as JSON. All stepping logic is here, in Python.

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
from tryit._stepper import Stepper, StepResult, open_demo

_demos: dict[str, Stepper] = {}


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
    return recipe.library == "resq" and recipe.demo.get("adapter", "requests") == "requests"


async def handle(message: str) -> str:
    """Answer one message from the page (see the module docstring)."""
    msg = json.loads(message)
    action, name = msg.get("action"), msg.get("recipe")
    if not isinstance(name, str):
        raise ValueError("handle(): message needs a 'recipe' name")
    key = str(msg.get("session") or name)  # one session per widget on the page
    if action == "reset" or msg.get("fresh"):
        old = _demos.pop(key, None)
        if old is not None:
            await old.close()
        if action == "reset":
            return json.dumps(StepResult().as_dict())
    if action not in ("step", "run"):
        raise ValueError(f"handle(): action must be 'step', 'run' or 'reset', got {action!r}")
    if _needs_blocking(name) and not can_block():
        reason = "this browser cannot pause synchronous Python code (no JSPI)"
        return json.dumps({**StepResult().as_dict(), "unsupported": reason})
    stepper = _demos.get(key)
    if stepper is None:
        stepper = _demos[key] = open_demo(name)
    result = await (stepper.step() if action == "step" else stepper.run_to_end())
    return json.dumps(result.as_dict())
