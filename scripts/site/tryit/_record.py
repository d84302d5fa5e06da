"""The transcript: one line per request (what was asked, the status, what the reader sees)."""

from __future__ import annotations

import html
import io
import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser

MAX_SEEN = 72
_OPAQUE = re.compile(
    r"(?<![\w-])(?=[\w-]*(?:\d|[A-Z][\w-]*[a-z]|[a-z][\w-]*[A-Z]))[A-Za-z0-9_-]{16,}(?![\w-])"
)


def redact(text: str) -> str:
    """Replace opaque ids (16+ url-safe characters mixing digits or cases) by ``<id>``: job
    ids differ on every run, the transcript must not."""
    return _OPAQUE.sub("<id>", text)


@dataclass(frozen=True)
class Swap:
    """One HTML swap for the demo panel, done by htmx in the page (``htmx.swap``).

    Attributes:
        target: CSS selector inside the demo panel (``""`` = the panel itself).
        style: htmx swap style (``innerHTML``, ``outerHTML``...).
        html: The markup to swap in.
    """

    target: str
    style: str
    html: str

    def as_dict(self) -> dict[str, str]:
        """JSON-friendly form."""
        return {"target": self.target, "style": self.style, "html": self.html}


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def html_text(markup: str) -> str:
    """The visible text of an HTML fragment, whitespace collapsed."""
    parser = _Text()
    parser.feed(markup)
    parser.close()
    return " ".join(" ".join(parser.parts).split())


def seen(body: str, content_type: str) -> str:
    """What a reader sees of a response body, on one short line."""
    if "json" in content_type:
        try:
            text = json.dumps(json.loads(body), separators=(", ", ": "), sort_keys=False)
        except ValueError:
            text = body
    elif "html" in content_type:
        text = html_text(body)
    else:
        text = body
    text = redact(" ".join(text.split()))
    return text if len(text) <= MAX_SEEN else text[: MAX_SEEN - 1] + "…"


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


class Recorder:
    """Collects transcript lines and panel swaps, and how the run ended."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.swaps: list[Swap] = []
        self.outcome: str | None = None
        self.message = ""
        self.last_status: int | None = None
        # Whether the engine itself calls the last answer a success (its raise_for_status
        # rule: requests' ``ok``, httpx's ``is_success``), never a rule of our own.
        self.last_ok = False
        self.last_time = 0.0
        self._settled = False

    # resq scenarios ---------------------------------------------------------------------
    def note_sleep(self) -> None:
        """The poll paused (it will retry)."""
        self._settled = True

    def before_request(self) -> None:
        """A request is about to go out (see :meth:`settle`)."""
        self.settle()

    def settle(self) -> None:
        """Something other than a pause follows the last response: if that response was bad,
        the poll gave up on it (its window elapsed) and handed it back. Say so, once."""
        status = self.last_status
        if status is not None and not self.last_ok and not self._settled:
            self.lines.append(
                f"{fmt_time(self.last_time)} window elapsed: poll returned the last response"
                f" ({status} {reason_of(status)})"
            )
        self._settled = True

    def response(
        self,
        t: float,
        method: str,
        path: str,
        status: int,
        body: str,
        content_type: str,
        *,
        ok: bool,
    ) -> None:
        """Record one answered request as a transcript line (``ok``: the engine's verdict)."""
        line = f"{fmt_time(t)} {method} {path} -> {status} {reason_of(status)}"
        what = seen(body, content_type)
        self.line(f"{line} | {what}" if what else line)
        self.last_status, self.last_time, self.last_ok = status, t, ok
        self._settled = False
        escaped = html.escape(f"{status} {reason_of(status)}\n{body}")
        self.swaps.append(Swap("", "innerHTML", f'<pre class="tryit__response">{escaped}</pre>'))

    def finish(self) -> None:
        """The recipe code returned: the outcome follows from the last response."""
        if self.outcome is not None:
            return
        status = self.last_status
        when = fmt_time(self.last_time)
        if status is not None and self.last_ok:
            self.stop("terminal", f"done: terminal state, {status} {reason_of(status)} at {when}")
        elif status is not None:
            self.settle()
            self.stop("window", f"done: window elapsed, last response {status} at {when}")
        else:
            self.stop("terminal", "done: the code returned without a request")

    def printer(self) -> _Printer:
        """A text stream whose lines (what the recipe prints) become ``> ...`` lines."""
        return _Printer(self)

    # both -------------------------------------------------------------------------------
    def swap(self, target: str, style: str, markup: str) -> None:
        """Queue a swap of ``markup`` into ``target`` of the demo panel."""
        self.swaps.append(Swap(target, style, markup))

    def line(self, text: str) -> None:
        """Add a transcript line (opaque ids redacted)."""
        self.lines.append(redact(text))

    def stop(self, outcome: str, message: str) -> None:
        """End the run: ``outcome`` is ``"terminal"``, ``"window"`` or ``"error"``."""
        self.outcome, self.message = outcome, message
        self.lines.append(f"= {message}")

    def fail(self, exc: BaseException) -> None:
        """The recipe code raised: record it as the end of the run."""
        self.stop("error", f"error: {type(exc).__name__}: {_one_line(exc)}")


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
            self._recorder.settle()
            self._recorder.line(f"> {seen(line, 'text/plain')}")
        return len(text)


def _one_line(exc: BaseException) -> str:
    return re.sub(r"\s+", " ", str(exc)).strip()[:200]


def as_text(lines: list[str]) -> str:
    """The transcript file's content."""
    return "".join(f"{line}\n" for line in lines)
