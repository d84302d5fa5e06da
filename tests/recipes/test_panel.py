"""The hedron demo panel (``docs/assets/tryit/panel.mjs``) in Chromium, answered on CPython.

The same panel code as on the site runs the recipe's real page with the real htmx; the
worker's own entry point (``tryit.browser.handle``) plays the server here, without Pyodide
(the Pyodide path is ``tests/site/test_browser.py``). Every hedron recipe folder is stepped
to its committed transcript, one request per step, then Reset and run to its end.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from docsite.replay._loop import BrowserLoop
from docsite.replay.panel import PanelPage
from docsite.replay.runs import panel_server
from tryit import Demo, Recipe, load_recipe, recipe_names
from tryit import browser as worker
from tryit.recipe import Action

pytestmark = pytest.mark.browser

HEDRON = [
    n for n in recipe_names() if load_recipe(n).driver == "page" and load_recipe(n).in_browser
]


@pytest.fixture(scope="module")
def panel() -> Iterator[tuple[BrowserLoop, str]]:
    with BrowserLoop() as loop, panel_server() as url:
        yield loop, url


async def _step_to_end(panel: PanelPage) -> list[list[str]]:
    steps: list[list[str]] = []
    while len(steps) < 100:
        result = await panel.step()
        steps.append(list(result["lines"]))
        if result["done"]:
            break
    return steps


@pytest.mark.parametrize("name", HEDRON)
def test_stepping_gives_the_committed_transcript_one_request_per_step(
    panel: tuple[BrowserLoop, str], name: str
) -> None:
    loop, url = panel
    recipe = load_recipe(name)
    committed = recipe.transcript_path.read_text(encoding="utf-8").splitlines()

    async def go() -> dict[str, Any]:
        page = await PanelPage.open(loop.browser, url, name)
        try:
            steps = await _step_to_end(page)
            title = await page.page.get_attribute(".tryit__frame", "title")
            text = await page.frame_text()
            await page.reset()
            assert await page.page.locator(".tryit__frame").count() == 0
            again = await page.run()
            return {"steps": steps, "title": title, "text": text, "again": again["lines"],
                    "errors": page.errors, "notes": await page.notes()}  # fmt: skip
        finally:
            await page.close()

    seen = loop.run(go())
    assert [line for step in seen["steps"] for line in step] == committed, (
        f"the demo no longer gives recipes/{name}/transcript.txt; if the change is meant, "
        f"record it: scripts/recipe sync {name}"
    )
    for lines in seen["steps"]:
        assert len([line for line in lines if " -> " in line]) == 1, lines
    assert seen["again"] == committed  # Reset, then Run to end: the same run
    assert seen["title"] == f"Demo app: {recipe.title}"
    last_answer = [line for line in committed if " -> " in line][-1].split(" | ")[1]
    region, _, text = last_answer.partition(": ")  # "#export-status: Cancelled. Start another"
    assert region.startswith("#"), last_answer  # the line names the region it swapped
    assert text.split()[0] in seen["text"]  # the app's page shows the last answer
    assert seen["errors"] == []
    assert seen["notes"] == []


SYNTHETIC_APP = '''
from pathlib import Path

import hedron
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, Response

HTMX = Path(hedron.__file__).parent / "static" / "vendor" / "htmx.min.js"
PAGE = """<!DOCTYPE html><html><head><title>Synthetic</title>
<script src="/static/htmx.js" defer></script></head><body>
<a id="away" href="/elsewhere">Away</a>
<form id="plain" action="/elsewhere" method="post"><button id="send">Send</button></form>
<form id="multi" hx-post="/upload" hx-encoding="multipart/form-data" hx-target="#out">
<input name="note" value="h&eacute;llo"><button type="submit">Upload</button></form>
<div id="out"></div>
<div hx-get="/tick" hx-trigger="every 1s">0</div></body></html>"""

app = FastAPI()
app.static_prefix = "/static"  # what hedron apps have: these files are not transcript lines
ticks = []


@app.get("/static/htmx.js")
def htmx() -> Response:
    return Response(HTMX.read_bytes(), media_type="text/javascript")


@app.get("/")
def page() -> HTMLResponse:
    return HTMLResponse(PAGE)


@app.post("/upload")
async def upload(request: Request) -> HTMLResponse:
    form = await request.form()
    kind = request.headers["content-type"].split(";")[0]
    return HTMLResponse(f"<p>got {form['note']} as {kind}</p>")


@app.get("/tick")
def tick() -> HTMLResponse:
    ticks.append(1)
    return HTMLResponse(f"tick {len(ticks)}")
'''


@pytest.fixture
def synthetic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A hedron-style recipe that polls forever, uploads a multipart form, and has a plain
    link and form htmx does not handle."""
    (tmp_path / "app.py").write_text(SYNTHETIC_APP, encoding="utf-8")
    recipe = Recipe(
        name="synthetic",
        folder=tmp_path,
        library="hedron",
        title="Synthetic",
        summary="A page that polls forever.",
        files=("app.py",),
        run=("uvicorn app:app --port 8000",),
        demo=Demo(interval=1, window=3, click="#multi button"),
    )
    real = worker.load_recipe
    monkeypatch.setattr(worker, "load_recipe", lambda n: recipe if n == "synthetic" else real(n))
    return recipe.name


def test_the_window_ends_a_page_that_polls_forever_and_the_browser_encodes_forms(
    panel: tuple[BrowserLoop, str], synthetic: str
) -> None:
    loop, url = panel

    async def go() -> list[str]:
        page = await PanelPage.open(loop.browser, url, synthetic)
        try:
            return list((await page.run())["lines"])
        finally:
            await page.close()

    assert loop.run(go()) == [
        't=0s GET / -> 200 OK | page "Synthetic"',
        "t=0s POST /upload -> 200 OK | #out: got héllo as multipart/form-data",  # FormData
        "t=1s GET /tick -> 200 OK | tick 1",
        "t=2s GET /tick -> 200 OK | tick 2",
        "t=3s GET /tick -> 200 OK | tick 3",
        "= done: window elapsed (3s) before the app answered 286",  # the next tick is at 4 s
    ]


def test_links_and_forms_htmx_does_not_handle_keep_the_panel_on_its_page(
    panel: tuple[BrowserLoop, str], synthetic: str
) -> None:
    loop, url = panel

    async def go() -> tuple[list[str], str, list[str]]:
        page = await PanelPage.open(loop.browser, url, synthetic)
        try:
            await page.step()  # the page is open (and the scripted upload waits)
            frame = page.page.frame_locator(".tryit__frame")
            await frame.locator("body").evaluate("body => { body.dataset.mark = 'same' }")
            await frame.locator("#away").click()
            await frame.locator("#send").click()
            mark = await frame.locator("body").get_attribute("data-mark")
            notes = await page.notes()
            after = [list((await page.step())["lines"]) for _ in range(2)]
            return notes, str(mark), [line for lines in after for line in lines]
        finally:
            await page.close()

    notes, mark, after = loop.run(go())
    assert mark == "same"  # still the same document: nothing navigated the iframe
    assert notes == [
        "The demo app stays on its page: the link “Away” would leave it.",
        "The demo app stays on its page: this form would leave it.",
    ]
    # and no request went out for them: the next ones are the scripted upload and the poll
    assert [line.split(" -> ")[0] for line in after] == ["t=0s POST /upload", "t=1s GET /tick"]


def test_a_readers_own_click_is_sent_by_htmx_and_delivered_in_turn(
    panel: tuple[BrowserLoop, str], synthetic: str
) -> None:
    loop, url = panel

    async def go() -> list[list[str]]:
        page = await PanelPage.open(loop.browser, url, synthetic)
        try:
            steps = [list((await page.step())["lines"]) for _ in range(2)]  # page, upload
            frame = page.page.frame_locator(".tryit__frame")
            await frame.get_by_role("button", name="Upload").click()  # the reader, again
            steps += [list((await page.step())["lines"]) for _ in range(3)]
            return steps
        finally:
            await page.close()

    steps = loop.run(go())
    requests = [line.split(" -> ")[0] for step in steps for line in step]
    assert requests == [
        "t=0s GET /",
        "t=0s POST /upload",  # the scripted click
        "t=1s GET /tick",  # was already on its way when the reader clicked
        "t=1s POST /upload",  # the reader's click, sent by htmx, delivered in its turn
        "t=2s GET /tick",
    ]


def test_timed_actions_come_at_their_virtual_time_on_the_pages_own_timers(
    panel: tuple[BrowserLoop, str], synthetic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``[demo] actions``: each click is a timer of the page at its time (1.5 s here, between
    the polls at 1 s and 2 s); a selector that finds nothing is told to the reader."""
    loop, url = panel
    recipe = worker.load_recipe(synthetic)
    actions = (Action("#multi button", 1.5), Action("#nothing-here", 2.5))
    timed = dataclasses.replace(recipe, demo=dataclasses.replace(recipe.demo, click=None,
                                                                 actions=actions))  # fmt: skip
    monkeypatch.setattr(worker, "load_recipe", lambda n: timed)

    async def go() -> tuple[list[list[str]], list[str]]:
        page = await PanelPage.open(loop.browser, url, synthetic)
        try:
            return await _step_to_end(page), await page.notes()
        finally:
            await page.close()

    steps, notes = loop.run(go())
    assert [line.split(" | ")[0] for step in steps for line in step] == [
        "t=0s GET / -> 200 OK",
        "t=1s GET /tick -> 200 OK",
        "t=1s POST /upload -> 200 OK",  # at 1.5 s, shown as its poll slot
        "t=2s GET /tick -> 200 OK",
        "t=3s GET /tick -> 200 OK",
        "= done: window elapsed (3s) before the app answered 286",
    ]
    assert notes == ["The demo found nothing to click for “#nothing-here”."]


# Replaces the next message the frame's driver sends the panel by `forged` (a script given to
# the frame by the browser's debugger: the frame's policy runs none of the page's).
FORGE = """(forged) => {
  const post = MessagePort.prototype.postMessage;
  MessagePort.prototype.postMessage = function (message, ...rest) {
    MessagePort.prototype.postMessage = post;
    return post.call(this, forged, ...rest);
  };
}"""


@pytest.mark.parametrize(
    ("forged", "why"),
    [
        ("a string", "the message is not an object"),
        ({"kind": "eval", "code": "parent.document.title = 1"}, "its kind is unknown"),
        ({"kind": "opened"}, "a message it had no reason to send (opened)"),
        ({"kind": "paused", "how": "later", "held": 0}, "paused how is unknown"),
        (
            {
                "kind": "request",
                "id": 1,
                "method": "GET",
                "url": "//elsewhere/",
                "headers": [],
                "body": None,
                "t": 1,
            },
            "url is not a path of the app",
        ),
        (
            {
                "kind": "request",
                "id": 1,
                "method": "GET",
                "url": "/tick",
                "headers": [["X", 1]],
                "body": None,
                "t": 1,
            },
            "headers[0] value is not a string",
        ),
        (
            {
                "kind": "request",
                "id": 1,
                "method": "GET",
                "url": "/tick",
                "headers": [],
                "body": "text",
                "t": 1,
            },
            "body is not bytes",
        ),
        (
            {
                "kind": "request",
                "id": 1,
                "method": "GET",
                "url": "/tick",
                "headers": [],
                "body": None,
                "t": 3600,
            },
            "it sent a request out of its turn",
        ),
    ],
)
def test_a_message_from_the_frame_that_is_not_what_the_panel_expects_ends_the_run(
    panel: tuple[BrowserLoop, str], synthetic: str, forged: Any, why: str
) -> None:
    loop, url = panel

    async def go() -> tuple[dict[str, Any], dict[str, Any], str, list[str]]:
        page = await PanelPage.open(loop.browser, url, synthetic)
        try:
            await page.step()  # the page is open
            [frame] = [f for f in page.page.frames if f.parent_frame is page.page.main_frame]
            await frame.evaluate(FORGE, forged)
            ended = await page.step()
            again = await page.step()  # and it stays ended
            src = await page.page.get_attribute(".tryit__frame", "src")
            return ended, again, str(src), page.errors
        finally:
            await page.close()

    ended, again, src, errors = loop.run(go())
    assert ended["done"] is True
    assert ended["outcome"] == "stopped"
    assert ended["message"].startswith("the demo app's page was stopped: ")
    assert why in ended["message"]
    assert (again["done"], again["lines"]) == (True, [])
    assert src == "about:blank"  # the frame is emptied
    assert errors == []
