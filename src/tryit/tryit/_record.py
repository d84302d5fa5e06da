"""The transcript: one line per request (what was asked, the status, what the reader sees).

One :class:`Recorder` (fed by the :class:`RecordingApp` middleware) writes every transcript:
the demo in the browser, the same demo on CPython, and the real replay under uvicorn.
"""

from __future__ import annotations

import io
import math
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hedron_core.htmx import STOP_POLLING_STATUS as STOP_POLLING
from tryit._seen import answer_seen, redact, seen, shorten


def fmt_time(t: float) -> str:
    """Virtual seconds as ``t=4s`` / ``t=4.5s``."""
    return f"t={t:g}s"


def reason_of(status: int) -> str:
    """The reason phrase of a status (``286`` is htmx's stop-polling status)."""
    from http import HTTPStatus

    if status == 286:
        return "Stop Polling"
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


@dataclass(frozen=True)
class Answer:
    """The last answered request: its status and body (the resq demo panel shows them), and
    when it arrived (clock seconds)."""

    status: int
    body: str
    at: float


LATE_ALLOWED = 0.9  # of an interval: latency only ever makes a real run later


def _rounded(t: float, interval: float) -> float:
    """``t`` shown as its poll slot: a multiple of the recipe's interval, up to nine tenths
    of an interval late or a tenth early. A demo's times are exact; a real run's requests
    come a little later, and each poll's latency adds to the next one's (a client pauses
    after each answer), which no transcript time should show. Never before 0 (a real page's
    own request comes before it is ready)."""
    return max(0.0, math.floor(t / interval + 1 - LATE_ALLOWED) * interval)


def _exact(t: float, precision: float) -> float:
    """``t`` to the nearest multiple of ``precision`` (an edited run's times, as they are)."""
    return max(0.0, round(round(t / precision) * precision, 6))


class Recorder:
    """Writes the transcript of one run, virtual or real: one line per answered request
    (through :class:`RecordingApp`), ``> `` lines for what the code prints, and the ``=``
    line that says how the run ended.

    A request's time is its arrival, counted from the first request or, for a real hedron
    page, from the moment the page was ready (:meth:`page_ready`), and shown as its poll
    slot (see :func:`_rounded`), or as it is, to ``precision`` (an edited run: its code may
    poll at another interval than the recipe's).

    Args:
        clock: Seconds, virtual or real (the real replay uses wall-clock seconds, the
            browser's own time of the page being ready is given in them).
        interval: The recipe's poll interval: every time is shown as a multiple of it.
        precision: Show times as they are, to this many seconds, instead (``interval`` is
            then not used).
        window: hedron: seconds after which the page is said to have given up.
        ok: resq: the engine's own verdict on a status (its ``raise_for_status`` rule).
        origin_from_page: A real page's run: times count from :meth:`page_ready` only (its
            own request comes before it).
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float],
        interval: float = 1.0,
        precision: float | None = None,
        window: float = 30.0,
        ok: Callable[[int], bool] | None = None,
        origin_from_page: bool = False,
    ) -> None:
        # (arrival in clock seconds, or None for a line without a time; the rest of the line)
        self._entries: list[tuple[float | None, str]] = []
        self.last: Answer | None = None
        self.outcome: str | None = None
        self.message = ""
        self._clock, self._interval, self._window = clock, interval, window
        self._precision = precision
        self._ok = ok or (lambda status: 200 <= status < 300)
        self._origin_from_page = origin_from_page
        self._origin: float | None = None
        self._changed = threading.Condition()

    @property
    def lines(self) -> list[str]:
        """The transcript so far."""
        with self._changed:
            return [self._render(at, rest) for at, rest in self._entries]

    def _render(self, at: float | None, rest: str) -> str:
        return rest if at is None else f"{fmt_time(self._shown(at))} {rest}"

    def _shown(self, at: float) -> float:
        t = at - (self._origin or 0.0)
        if self._precision is not None:
            return _exact(t, self._precision)
        return _rounded(t, self._interval)

    def timeline(self) -> list[str]:
        """The request lines with their unrounded times (to explain a difference)."""
        with self._changed:
            origin = self._origin or 0.0
            return [f"{at - origin:8.3f}s {rest}" for at, rest in self._entries if at is not None]

    # requests (RecordingApp calls these) -------------------------------------------------
    def arrived(self, at: float | None = None) -> float:
        """A request arrived (at ``at``, clock seconds, when another process tells): its
        time."""
        now = self._clock() if at is None else at
        with self._changed:
            if self._origin is None and not self._origin_from_page:
                self._origin = now
                self._changed.notify_all()
        return now

    def answered(
        self,
        at: float,
        method: str,
        path: str,
        status: int,
        body: str,
        content_type: str,
        region: str = "",
        error: str = "",
    ) -> None:
        """Record one answered request that arrived at ``at`` (``region``: the element htmx
        swaps the answer into; ``error``: what the app raised, see :func:`answer_seen`)."""
        line = redact(f"{method} {path} -> {status} {reason_of(status)}")
        what = answer_seen(body, content_type, status=status, region=region, error=error)
        with self._changed:
            self._entries.append((at, f"{line} | {what}" if what else line))
            self.last = Answer(status, body, at)
            self._changed.notify_all()

    def wait(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait (bounded) until ``predicate()`` holds after a recorded request."""
        with self._changed:
            return self._changed.wait_for(predicate, timeout)

    def count(self) -> int:
        """How many requests were recorded."""
        with self._changed:
            return sum(at is not None for at, _ in self._entries)

    def page_ready(self, at: float) -> None:
        """hedron, real run: the page was ready at ``at`` (clock seconds); count from there.

        The page's own timers (its polls) and the reader's click start when htmx has
        started (``DOMContentLoaded``). In the demo that is virtual time 0, the time of the
        page's own request; a real browser takes a moment to fetch the page's stylesheet
        and scripts first, which no transcript time should show (the page's own request is
        shown at 0).
        """
        with self._changed:
            self._origin = at
            self._changed.notify_all()

    def wait_for_origin(self, timeout: float) -> bool:
        """Wait (bounded) until the time origin is known (the first request, or the page
        being ready); whether it is."""
        with self._changed:
            return self._changed.wait_for(lambda: self._origin is not None, timeout)

    def origin_time(self) -> float:
        """The time origin in clock seconds (0 while it is not known)."""
        with self._changed:
            return self._origin or 0.0

    def elapsed(self) -> float:
        """Seconds since the time origin (0 before the first request)."""
        with self._changed:
            return 0.0 if self._origin is None else self._clock() - self._origin

    # what the code prints ----------------------------------------------------------------
    def printed(self, text: str) -> None:
        """One line the recipe's code printed."""
        self.line(f"> {seen(text, 'text/plain')}")

    def event(self, at: float, text: str) -> None:
        """Something the real run did around the app at ``at`` seconds from the time origin
        (``[real] restart``): a ``# t=...s ...`` line, its time as scripted, not rounded."""
        self.line(f"# {fmt_time(at)} {text}")

    def printer(self) -> _Printer:
        """A text stream whose lines (what the recipe prints) become ``> ...`` lines."""
        return _Printer(self)

    # how the run ended -------------------------------------------------------------------
    def _when(self) -> str:
        return fmt_time(self._shown(self.last.at)) if self.last is not None else fmt_time(0)

    def returned(self) -> None:
        """resq: the recipe code returned; the outcome follows from the last response."""
        if self.outcome is not None:
            return
        last, when = self.last, self._when()
        if last is None:
            self.stop("terminal", "done: the code returned without a request")
        elif self._ok(last.status):
            reason = reason_of(last.status)
            self.stop("terminal", f"done: terminal state, {last.status} {reason} at {when}")
        else:
            # Why the code stopped with a bad answer (its window, max_attempts, a Retry-After
            # past the window, or no polling at all) is the code's business: say what was seen.
            reason = reason_of(last.status)
            self.stop(
                "unfinished",
                f"done: the code returned with a bad last response, {last.status} {reason}"
                f" at {when}",
            )

    def page_ended(self, how: str) -> None:
        """hedron: the page sends no more requests (``how="idle"``) or its next one would
        come after the window (``how="window"``)."""
        if self.outcome is not None:
            return
        last = self.last
        if last is not None and last.status == STOP_POLLING:
            self.stop(
                "terminal",
                f"done: terminal state, the app answered {STOP_POLLING} at {self._when()}"
                " (htmx swaps it and stops polling)",
            )
        elif how == "window":
            self.stop(
                "window", f"done: window elapsed ({self._window:g}s) before the app answered 286"
            )
        else:
            self.stop("terminal", "done: the page sends no further request")

    def fail(self, exc: BaseException) -> None:
        """The recipe code raised: record it as the end of the run."""
        self.failed(type(exc).__name__, str(exc))

    def failed(self, kind: str, text: str) -> None:
        """The recipe code raised ``kind`` with ``text`` (a real run reads them off stderr)."""
        self.stop("error", f"error: {kind}: {_one_line(text)}")

    def line(self, text: str) -> None:
        """Add a transcript line without a time (opaque ids redacted)."""
        with self._changed:
            self._entries.append((None, redact(text)))

    def stop(self, outcome: str, message: str) -> None:
        """End the run: ``outcome`` is ``"terminal"``, ``"window"``, ``"unfinished"`` (resq
        code that returned holding a bad answer), ``"error"`` or ``"budget"`` (edited code
        stopped by its budget: ``tryit._edits``)."""
        self.outcome, self.message = outcome, message
        self.line(f"= {message}")


class _Printer(io.TextIOBase):
    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder
        self._pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._pending += text
        *done, self._pending = self._pending.split("\n")
        for line in done:
            self._recorder.printed(line)
        return len(text)


# A real page in the real replay says when it sent each htmx request (wall-clock milliseconds,
# ``docsite.replay.real``): its time is then the page's own, as the demo's is, not its arrival
# at a server that a busy machine may be slow to schedule.
SENT_HEADER = b"x-tryit-sent"


def _sent_at(value: str | None) -> float | None:
    """The ``SENT_HEADER`` value in seconds, or None (no header, or not a finite number)."""
    try:
        ms = float(value) if value is not None else math.nan
    except ValueError:
        return None
    return ms / 1000 if math.isfinite(ms) else None


class RecordingApp:
    """ASGI middleware: each answered request becomes one transcript line of ``recorder``.

    The same wrapper records the in-process demo (Pyodide or CPython) and the real replay
    under uvicorn. Requests under ``skip`` (hedron's static files: the page's stylesheet and
    scripts) are not lines. The line is written before the answer's last byte is sent, so it
    always comes before anything the client does next; but an answer of 500 is written once
    the app has raised (its server sends the 500 first), so that the line names the error.
    A request htmx sent names the element its answer goes into (``HX-Target``); one whose
    page said when it sent it (``SENT_HEADER``) is timed then.
    """

    def __init__(self, app: Any, recorder: Recorder, *, skip: str | None = None) -> None:
        self.app, self.recorder = app, recorder
        self._skip = skip.rstrip("/") + "/" if skip else None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or (self._skip and scope["path"].startswith(self._skip)):
            await self.app(scope, receive, send)
            return
        asked = {k.lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        t = self.recorder.arrived(_sent_at(asked.get(SENT_HEADER)))
        query = scope.get("query_string", b"").decode("latin-1")
        # uvicorn's raw_path is the path alone, httpx's carries the query too: use the path
        raw = scope.get("raw_path") or scope["path"].encode()
        path = raw.decode("latin-1").partition("?")[0] + (f"?{query}" if query else "")
        region = asked.get(b"hx-target", "") if b"hx-request" in asked else ""
        head: dict[str, Any] = {"status": 500, "type": ""}
        body = bytearray()
        pending: list[Any] = []  # a 500's line, written when the app has raised
        recorded: list[bool] = []

        def record(error: str = "") -> None:
            recorded.append(True)
            text = body.decode("utf-8", "replace")
            method, status, kind = scope["method"], head["status"], head["type"]
            self.recorder.answered(t, method, path, status, text, kind, region, error)

        async def recording_send(message: Any) -> None:
            if message["type"] == "http.response.start":
                head["status"] = message["status"]
                for key, value in message.get("headers", []):
                    if key.lower() == b"content-type":
                        head["type"] = value.decode("latin-1")
            elif message["type"] == "http.response.body":
                body.extend(message.get("body", b""))
                if not message.get("more_body", False):
                    if head["status"] == 500:
                        pending.append(record)
                    else:
                        record()
            await send(message)

        try:
            await self.app(scope, receive, recording_send)
        except Exception as exc:
            if pending or not recorded:  # the app raised before it answered: its server's 500
                (pending.pop() if pending else record)(f"{type(exc).__name__}: {exc}")
            raise
        finally:
            if pending:
                pending.pop()()


def _one_line(text: str) -> str:
    return shorten(re.sub(r"\s+", " ", text).strip(), 200)


def as_text(lines: list[str]) -> str:
    """The transcript file's content."""
    return "".join(f"{line}\n" for line in lines)
