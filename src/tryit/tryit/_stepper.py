"""Run a resq recipe's scenario one step at a time.

A scenario calls :meth:`Stepper.checkpoint` (async code) or :meth:`Stepper.checkpoint_sync`
(sync code) before every request; the first request of a step passes, the next one ends the
step and waits for the next :meth:`Stepper.step`. So one step is exactly one request, and
pytest (which steps until done) and the browser (one step per click) produce the same lines.

Sync code waits through ``block_on``: in the browser ``pyodide.ffi.run_sync`` (JSPI); on
CPython the sync part runs in a worker thread that waits on the event loop.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from tryit._edits import budget_exceeded
from tryit._record import Answer, Recorder, reason_of

MAX_STEPS = 500


@dataclass
class StepResult:
    """What one step (or a run to the end) produced.

    Attributes:
        lines: New transcript lines.
        response: The last answer the client got, as the widget's panel shows it (its status
            line, then its body), when it is new in this step; ``None`` otherwise. Text: the
            page shows it as text, never as markup.
        done: The scenario has finished.
        outcome: How it finished (``"terminal"``, ``"window"``, ``"unfinished"``,
            ``"error"``, or ``"budget"``: edited code stopped by its budget) once done.
        message: A sentence saying which (for the widget's status line).
    """

    lines: list[str] = field(default_factory=list)
    response: str | None = None
    done: bool = False
    outcome: str | None = None
    message: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form (sent from the worker to the page)."""
        return {
            "lines": self.lines,
            "response": self.response,
            "done": self.done,
            "outcome": self.outcome,
            "message": self.message,
        }


Scenario = Callable[["Stepper"], Coroutine[Any, Any, None]]


def _default_block_on() -> Callable[[Awaitable[Any]], Any]:
    if sys.platform == "emscripten":  # pragma: no cover - browser only
        from pyodide.ffi import run_sync  # type: ignore[import-not-found]

        return run_sync  # type: ignore[no-any-return]
    return _block_on_loop


def _block_on_loop(awaitable: Awaitable[Any]) -> Any:
    """CPython: called from the scenario's worker thread, wait on the stepper's loop."""
    loop = _THREAD_LOOP.get(None)
    if loop is None:
        raise RuntimeError("checkpoint_sync() outside Stepper.run_sync()")

    async def wrap() -> Any:
        return await awaitable

    return asyncio.run_coroutine_threadsafe(wrap(), loop).result()


_THREAD_LOOP: contextvars.ContextVar[asyncio.AbstractEventLoop] = contextvars.ContextVar(
    "tryit_loop"
)


class Stepper:
    """Drives one scenario; :meth:`step` runs it until the next request boundary."""

    def __init__(
        self,
        scenario: Scenario,
        recorder: Recorder,
        *,
        block_on: Callable[[Awaitable[Any]], Any] | None = None,
    ) -> None:
        self._scenario = scenario
        self._block_on = block_on or _default_block_on()
        self.recorder = recorder
        self._task: asyncio.Task[None] | None = None
        self._paused: asyncio.Future[None] | None = None
        self._release: asyncio.Future[None] | None = None
        self._requests_in_step = 0
        self._sent_lines = 0
        self._shown: Answer | None = None
        self.steps = 0
        self.error: BaseException | None = None  #: what the recipe code raised, if it did

    @property
    def done(self) -> bool:
        """The scenario has finished (or failed)."""
        return self.recorder.outcome is not None

    async def checkpoint(self) -> None:
        """Call before each request: the second request of a step ends the step."""
        if self._requests_in_step >= 1:
            loop = asyncio.get_running_loop()
            self._release = loop.create_future()
            if self._paused is not None and not self._paused.done():
                self._paused.set_result(None)
            await self._release
        self._requests_in_step += 1

    def checkpoint_sync(self) -> None:
        """:meth:`checkpoint` for sync code (blocks until the next step)."""
        self._block_on(self.checkpoint())

    async def run_sync(self, fn: Callable[[], Any]) -> Any:
        """Run sync scenario code: inline under Pyodide (JSPI), in a thread on CPython."""
        if sys.platform == "emscripten":  # pragma: no cover - browser only
            return fn()
        _THREAD_LOOP.set(asyncio.get_running_loop())
        return await asyncio.to_thread(fn)

    async def _main(self) -> None:
        try:
            await self._scenario(self)
        except Exception as exc:  # the demo reports any failure of the recipe code
            self.error = exc
            stopped = budget_exceeded(exc)
            if stopped is not None:  # inside an exception group
                self.recorder.stop("budget", str(stopped))
            else:
                self.recorder.fail(exc)
        except BaseException as exc:
            stopped = budget_exceeded(exc)
            if stopped is None:
                raise
            self.recorder.stop("budget", str(stopped))
        else:
            self.recorder.returned()

    async def step(self) -> StepResult:
        """Run until the next request boundary (or the end) and return what happened."""
        if self.done:
            return self._collect()
        loop = asyncio.get_running_loop()
        self._paused = loop.create_future()
        self._requests_in_step = 0
        self.steps += 1
        if self._task is None:
            self._task = loop.create_task(self._main())
        elif self._release is not None and not self._release.done():
            self._release.set_result(None)
        await asyncio.wait({self._paused, self._task}, return_when=asyncio.FIRST_COMPLETED)
        return self._collect()

    async def run_to_end(self, limit: int = MAX_STEPS) -> StepResult:
        """Step until done (at most ``limit`` steps) and return everything not yet returned."""
        total = StepResult()
        for _ in range(limit):
            result = await self.step()
            total.lines += result.lines
            if result.response is not None:
                total.response = result.response
            if result.done:
                total.done, total.outcome, total.message = True, result.outcome, result.message
                break
        return total

    async def halt(self, outcome: str, message: str) -> StepResult:
        """End the run from outside (an edited run past its budget of requests): cancel the
        scenario, write the end line, return what was not returned yet."""
        await self.close()
        if not self.done:
            self.recorder.stop(outcome, message)
        return self._collect()

    async def close(self) -> None:
        """Cancel the scenario if it is still running (Reset)."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            if self._release is not None and not self._release.done():
                self._release.cancel()
            await asyncio.gather(task, return_exceptions=True)

    def _collect(self) -> StepResult:
        rec = self.recorder
        lines = rec.lines
        result = StepResult(
            lines=lines[self._sent_lines :],
            done=self.done,
            outcome=rec.outcome,
            message=rec.message,
        )
        if rec.last is not None and rec.last is not self._shown:
            # the panel shows the last answer as the client got it
            result.response = f"{rec.last.status} {reason_of(rec.last.status)}\n{rec.last.body}"
        self._sent_lines, self._shown = len(lines), rec.last
        return result


def run_blocking(factory: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """``asyncio.run(factory())`` on CPython, in a helper thread if a loop already runs here
    (for example inside Playwright's sync API in the same test session)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(factory())
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(factory())).result()
