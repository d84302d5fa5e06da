"""The reader's edited code in the "Try it" demo: compiled under its own file name, bounded,
and its errors described the way Python reports them.

- :func:`compile_edited` compiles an edited file (``client.py`` or ``app.py``) under that
  name, keeps its lines for tracebacks (``linecache``) and puts its code under the budget.
- The budget: an edited run stops when one message from the page (a Step, a Run to end, one
  request of a hedron page) has run the edited code for :data:`BUDGET_SECONDS` of wall-clock
  time (:func:`armed`), or when it has sent :data:`BUDGET_REQUESTS` requests (the stepper
  counts them). The time is checked on every backward jump of the edited code (each turn of
  a loop): ``sys.monitoring`` on Python 3.12+ (the browser's), so no other code is slowed,
  else a trace function limited to the edited frames. It raises :class:`OutOfBudget`, a
  ``BaseException``, so the edited code's own ``except Exception`` does not swallow it. Code
  that never jumps back (one long call into C) is stopped by the page, which ends the worker.
- :func:`describe_error` turns an exception into what the widget shows: Python's traceback
  (the recipe's frames only), the file and line to mark in the editor.
"""

from __future__ import annotations

import linecache
import sys
import time
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

BUDGET_SECONDS = 5.0
BUDGET_REQUESTS = 200
_TOOL = 4  # a sys.monitoring tool id no debugger or profiler claims (0, 1, 2 and 5 are)


class OutOfBudget(BaseException):
    """The edited code ran past its budget (the message says which)."""


_deadline: float | None = None
_watched: set[CodeType] = set()


def _check(*_: Any) -> None:
    if _deadline is not None and time.perf_counter() > _deadline:
        raise OutOfBudget(
            f"stopped: the edited code ran for {BUDGET_SECONDS:g} s without reaching its next"
            " request (the budget of an edited run)"
        )


def _codes(code: CodeType) -> Iterator[CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _codes(const)


_monitoring = getattr(sys, "monitoring", None)
if _monitoring is not None:  # pragma: no cover - Python 3.12+ (the browser's)
    if _monitoring.get_tool(_TOOL) is None:
        _monitoring.use_tool_id(_TOOL, "tryit budget")
    _monitoring.register_callback(_TOOL, _monitoring.events.JUMP, _check)


def _watch(code: CodeType) -> None:
    for each in _codes(code):
        _watched.add(each)
        if _monitoring is not None:  # pragma: no cover - Python 3.12+
            _monitoring.set_local_events(_TOOL, each, _monitoring.events.JUMP)


def _trace(frame: FrameType, event: str, arg: Any) -> Any:
    """Python < 3.12: trace the edited frames only, checking the time on each line."""
    if frame.f_code not in _watched:
        return None

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        _check()
        return local

    return local


@contextmanager
def armed(seconds: float = BUDGET_SECONDS) -> Iterator[None]:
    """Bound the edited code run inside the block to ``seconds`` of wall-clock time."""
    global _deadline
    previous = sys.gettrace() if _monitoring is None else None
    _deadline = time.perf_counter() + seconds
    if _monitoring is None:
        sys.settrace(_trace)
    try:
        yield
    finally:
        _deadline = None
        if _monitoring is None:
            sys.settrace(previous)


def compile_edited(text: str, filename: str) -> CodeType:
    """Compile an edited file's text under ``filename``, watched by the budget.

    Raises:
        SyntaxError: the text is not valid Python (its ``lineno`` is the line to mark).
    """
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    code = compile(text, filename, "exec", dont_inherit=True)
    _watch(code)
    return code


def budget_exceeded(exc: BaseException) -> OutOfBudget | None:
    """The :class:`OutOfBudget` in ``exc`` (maybe inside an exception group), or ``None``."""
    if isinstance(exc, OutOfBudget):
        return exc
    for inner in getattr(exc, "exceptions", ()):
        found = budget_exceeded(inner)
        if found is not None:
            return found
    return None


def _innermost(exc: BaseException) -> BaseException:
    """The first exception inside exception groups (anyio's task groups wrap an app's)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe_error(exc: BaseException, folder: Path, sources: Mapping[str, str]) -> dict[str, Any]:
    """What the widget shows of an error of the edited run.

    Returns ``{"traceback", "message", "file", "line"}``: Python's traceback limited to the
    recipe's frames (its own files by their names), its last line, and the edited file and
    line to mark (``None`` when the error is not in an edited file).
    """
    exc = _innermost(exc)
    for name, text in sources.items():  # the lines as the reader wrote them
        linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    shown = traceback.TracebackException.from_exception(exc)
    frames = []
    for frame in shown.stack:
        path = Path(frame.filename)
        if frame.filename in sources:
            frames.append(frame)
        elif path.parent == folder:
            frames.append(
                traceback.FrameSummary(path.name, frame.lineno, frame.name, line=frame.line)
            )
    shown.stack = traceback.StackSummary.from_list(frames)
    text = "".join(shown.format())
    file: str | None = None
    line: int | None = None
    if isinstance(exc, SyntaxError) and exc.filename in sources:
        file, line = exc.filename, exc.lineno
    else:
        edited = [f for f in frames if f.filename in sources]
        if edited:
            file, line = edited[-1].filename, edited[-1].lineno
    message = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[-1]
    return {"traceback": text, "message": message, "file": file, "line": line}
