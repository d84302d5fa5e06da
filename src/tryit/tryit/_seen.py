"""What a transcript line shows of an answer: one short line of text.

A JSON or plain answer is its text. An HTML answer is what the reader sees change: a whole
page is named by its title (``page "TaskFlow"``); an answer htmx swaps into a region is that
region and its text (``#resize-status: Running… 1/3``); an answer htmx does not swap (4xx,
5xx) says so, with the error the app raised when it raised one. Text is cut between words,
never inside one.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

MAX_SEEN = 72
_OPAQUE = re.compile(
    r"(?<![\w-])(?!(?:[A-Z][a-z]+)+(?![\w-]))"  # a CamelCase name is a word (ZeroDivisionError)
    r"(?=[\w-]*(?:\d|[A-Z][\w-]*[a-z]|[a-z][\w-]*[A-Z]))[A-Za-z0-9_-]{16,}(?![\w-])"
)
_UNSEEN = ("script", "style", "title")  # not shown on the page
_WHOLE_PAGE = re.compile(r"^\s*(?:<!doctype\b|<html\b)", re.IGNORECASE)
_PART_WORD = re.compile(r"(?:<id>|<?[\w'’-]+)$")  # a word (or ``<id>``) the cut ends in


def redact(text: str) -> str:
    """Replace opaque ids (16+ url-safe characters mixing digits or cases, but not a
    CamelCase name) by ``<id>``: job ids differ on every run, the transcript must not."""
    return _OPAQUE.sub("<id>", text)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.title: list[str] = []
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _UNSEEN:
            self._skip += 1
            self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        if tag in _UNSEEN and self._skip:
            self._skip -= 1
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title.append(data)
        elif not self._skip:
            self.parts.append(data)


def _parsed(markup: str) -> _Text:
    parser = _Text()
    parser.feed(markup)
    parser.close()
    return parser


def _collapsed(parts: list[str]) -> str:
    return " ".join(" ".join(parts).split())


def html_text(markup: str) -> str:
    """The visible text of an HTML fragment, whitespace collapsed."""
    return _collapsed(_parsed(markup).parts)


def shorten(text: str, limit: int = MAX_SEEN) -> str:
    """``text`` on at most ``limit`` characters: cut after its last whole word, ``…`` at
    the end (a text of one long word is cut where it must)."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if text[limit - 1].isalnum() or text[limit - 1] in "_'’->":  # the cut falls in a word
        whole = _PART_WORD.sub("", cut)
        cut = whole if whole.strip() else cut
    return cut.rstrip(" ,;:") + "…"


def seen(body: str, content_type: str) -> str:
    """What a reader sees of a response body (or a printed line), on one short line."""
    if "json" in content_type:
        try:
            text = json.dumps(json.loads(body), separators=(", ", ": "), sort_keys=False)
        except ValueError:
            text = body
    elif "html" in content_type:
        text = html_text(body)
    else:
        text = body
    return shorten(redact(" ".join(text.split())))


def answer_seen(
    body: str, content_type: str, *, status: int, region: str = "", error: str = ""
) -> str:
    """What a transcript line shows of one answer.

    Args:
        region: The id of the element htmx swaps the answer into (its ``HX-Target``
            header), when htmx sent the request.
        error: ``Type: message`` of what the app raised (its answer is a 500).
    """
    if "html" in content_type and _WHOLE_PAGE.match(body) and not region:
        parsed = _parsed(body)
        title = _collapsed(parsed.title)
        if title:
            return shorten(redact(f'page "{title}"'))
        return shorten(redact(f"page: {_collapsed(parsed.parts)}"))
    what = shorten(redact(" ".join(error.split()))) if error else seen(body, content_type)
    if not region:
        return what
    name = "#" + " ".join(region.split())
    if status >= 400 or status == 204:  # htmx swaps neither an error nor "no content"
        return shorten(redact(f"{name} not swapped: {what}" if what else f"{name} not swapped"))
    return shorten(redact(f"{name}: {what}" if what else name))
