"""Find what htmx would act on in a hedron fragment: the polling element and a form to submit.

Only reading attributes: the swaps themselves are done by the real htmx in the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

_EVERY = re.compile(r"every\s+(\d+(?:\.\d+)?)(ms|s)\b")


@dataclass(frozen=True)
class PollSpec:
    """An element with ``hx-get`` and ``hx-trigger="every …"``.

    Attributes:
        url: What it GETs.
        interval_s: Seconds between requests.
        target: CSS selector of the swap target.
        swap: htmx swap style.
    """

    url: str
    interval_s: float
    target: str
    swap: str


@dataclass
class FormSpec:
    """A form htmx would submit (``hx-post`` or ``method="post"``), with its default values."""

    url: str
    target: str
    swap: str
    fields: dict[str, str] = field(default_factory=dict)


def _selector(attrs: dict[str, str], own: str) -> str:
    target = attrs.get("hx-target", "this")
    return own if target == "this" else target


class _Scanner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.poll: PollSpec | None = None
        self.form: FormSpec | None = None
        self._in_form = False
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, raw: list[tuple[str, str | None]]) -> None:
        attrs = {k: v or "" for k, v in raw}
        own = f"#{attrs['id']}" if attrs.get("id") else tag
        every = _EVERY.search(attrs.get("hx-trigger", ""))
        if every and attrs.get("hx-get") and self.poll is None:
            amount, unit = float(every.group(1)), every.group(2)
            self.poll = PollSpec(
                url=attrs["hx-get"],
                interval_s=amount / 1000 if unit == "ms" else amount,
                target=_selector(attrs, own),
                swap=attrs.get("hx-swap", "innerHTML"),
            )
        if tag == "form" and self.form is None:
            url = attrs.get("hx-post") or (
                attrs.get("action", "") if attrs.get("method", "").lower() == "post" else ""
            )
            if url:
                self.form = FormSpec(url, _selector(attrs, own), attrs.get("hx-swap", "innerHTML"))
                self._in_form = True
        elif self._in_form and self.form is not None:
            name = attrs.get("name")
            if tag == "input" and name and attrs.get("type") not in ("checkbox", "radio"):
                self.form.fields[name] = attrs.get("value", "")
            elif tag == "select" and name:
                self._select = name
            elif tag == "option" and self._select and self._select not in self.form.fields:
                self.form.fields[self._select] = attrs.get("value", "")
            elif tag == "textarea" and name:
                self._textarea = name
                self.form.fields[name] = ""

    def handle_data(self, data: str) -> None:
        if self._textarea and self.form is not None:
            self.form.fields[self._textarea] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in_form = False
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def scan(markup: str) -> tuple[PollSpec | None, FormSpec | None]:
    """The first polling element and the first postable form of ``markup``."""
    scanner = _Scanner()
    scanner.feed(markup)
    scanner.close()
    return scanner.poll, scanner.form
