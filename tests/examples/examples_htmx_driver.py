"""Drive a running hedron app over HTTP the way htmx in a browser would, with a resq client.

Used by the end-to-end example test: open ``/``, submit the page's form when there is one
(with the page's CSRF token in ``X-CSRF-Token``, from its ``hx-headers``, as htmx sends it),
load ``hx-trigger="load"`` fragments,
and follow every polling element (``hx-trigger="every …"``) with a resq ``Session`` until the
endpoint answers ``HTTP 286`` (hedron's stop rule), then check that polling really stopped.
"""

from __future__ import annotations

import html.parser
import json
from dataclasses import dataclass, field

from resq import Session

STOP_POLLING_STATUS = 286


@dataclass
class _Element:
    tag: str
    attrs: dict[str, str]


@dataclass
class _Form:
    attrs: dict[str, str]
    fields: dict[str, str] = field(default_factory=dict)


class _Scanner(html.parser.HTMLParser):
    """Collect elements carrying htmx attributes, and forms with their fields."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[_Element] = []
        self.forms: list[_Form] = []
        self.headers: dict[str, str] = {}  # the page's hx-headers (the CSRF token)
        self._form: _Form | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if values.get("hx-headers"):
            self.headers.update(json.loads(values["hx-headers"]))
        if any(k.startswith("hx-") for k in values):
            self.elements.append(_Element(tag, values))
        if tag == "form":
            self._form = _Form(values)
            self.forms.append(self._form)
        elif tag in ("input", "select", "textarea") and self._form is not None:
            name = values.get("name")
            kind = values.get("type", "text")
            if name and kind not in ("submit", "button", "checkbox", "radio"):
                self._form.fields[name] = values.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None


def _scan(text: str) -> _Scanner:
    scanner = _Scanner()
    scanner.feed(text)
    scanner.close()
    return scanner


@dataclass
class Outcome:
    """What the driver saw: the requests it made and the final polled answer."""

    steps: list[str] = field(default_factory=list)
    final_status: int | None = None
    final_text: str = ""
    final_state: str | None = None  # the job's state, when the endpoint also speaks JSON


def _hx_url(attrs: dict[str, str]) -> tuple[str, str] | None:
    for method in ("get", "post"):
        if attrs.get(f"hx-{method}"):
            return method.upper(), attrs[f"hx-{method}"]
    return None


def drive(base_url: str, *, window_s: float = 30.0, delay_s: float = 0.1) -> Outcome:
    """Run the app at ``base_url`` to its terminal state; return what happened.

    Raises:
        AssertionError: no polling element was ever found, polling did not end with
            ``HTTP 286`` within ``window_s``, or the endpoint kept polling after it.
    """
    outcome = Outcome()
    with Session(base_url, adapter="requests", timeout=10) as client:
        page = client.get("/")
        outcome.steps.append(f"GET / -> {page.status_code}")
        assert page.status_code == 200, page.text
        page_headers = _scan(page.text).headers
        pending = [page.text]
        for _ in range(10):  # bounded: a page, a form answer, lazy fragments
            if not pending:
                break
            scanner = _scan(pending.pop(0))
            polls = [e for e in scanner.elements if "every" in e.attrs.get("hx-trigger", "")]
            if polls:
                method, url = _hx_url(polls[0].attrs) or ("GET", "")
                r = client.request(
                    method,
                    url,
                    timeout=window_s,
                    delay=delay_s,
                    until=lambda resp: resp.status_code == STOP_POLLING_STATUS,
                    headers={"HX-Request": "true"},
                )
                outcome.steps.append(f"poll {method} {url} -> {r.status_code}")
                outcome.final_status = r.status_code
                outcome.final_text = r.text
                assert r.status_code == STOP_POLLING_STATUS, f"{url}: {r.status_code} {r.text}"
                # A job-status endpoint also answers JSON: read the state it ended in.
                as_json = client.request(method, url, headers={"Accept": "application/json"})
                if as_json.headers.get("content-type", "").startswith("application/json"):
                    outcome.final_state = str(as_json.json().get("state"))
                    outcome.steps.append(f"json {method} {url} -> {outcome.final_state}")
                return outcome
            for element in scanner.elements:
                if element.attrs.get("hx-trigger") == "load" and _hx_url(element.attrs):
                    method, url = _hx_url(element.attrs) or ("GET", "")
                    r = client.request(method, url, headers={"HX-Request": "true"})
                    outcome.steps.append(f"load {method} {url} -> {r.status_code}")
                    pending.append(r.text)
            for form in scanner.forms:
                target = _hx_url(form.attrs)
                method, url = target or (
                    form.attrs.get("method", "get").upper(),
                    form.attrs.get("action", "/"),
                )
                headers = {**page_headers, "HX-Request": "true"}
                r = client.request(method, url, data=form.fields, headers=headers)
                outcome.steps.append(f"submit {method} {url} -> {r.status_code}")
                assert r.status_code < 400, f"{url}: {r.status_code} {r.text}"
                pending.append(r.text)
    raise AssertionError(f"no polling element reached; steps: {outcome.steps}")
