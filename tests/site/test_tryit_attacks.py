"""Edited code that tries to get out of "Try it": through a share link and typed into the
editor, each attack stepped to its end must leave the site's page, storage and location as
they were, and the run must still end as a run does.

Headless Chromium against the built site. The attacks share one browser context, made warm
once: its runtime started from the prepared interpreter (a host serving the ``.br`` copies, a
fast link) on another recipe's page, and what the worker keeps stored. Each attack must leave
that context as it found it, which it checks before and after each of its two ways in, one
after the other: the link (``#tryit=``, made by the site's own encoder, opened as a new
page), then the same code typed into the editor. After an attack that fails, the next one
gets a new warm context (so one attack's leftovers never fail another).

The hedron attacks replace ``jobs-poll``'s page with markup of their own (its htmx and
hedron.js kept, so htmx runs). The worker attacks are Python: edited code reaches the
worker's global object through ``js``. The flood plays a frame whose page did run a script:
it is given one through the browser's debugger, which no policy stops.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from docsite.testing.static_server import StaticServer
from tests._support.tryit_visit import IDLE, LOAD_MS, ROOT, Visit

pytestmark = pytest.mark.browser

# What each attack's script does wherever it runs: mark the document it runs in, then try
# to reach the site's page (parent, top), its storage, its cookies and its location.
PAYLOAD = (
    "(function(){document.documentElement.dataset.ran='1';"
    "var ws=[parent,top];for(var i=0;i<ws.length;i++){var w=ws[i];"
    "try{w.document.title='PWNED'}catch(e){}"
    "try{w.document.body.dataset.pwned='1'}catch(e){}"
    "try{w.localStorage.setItem('pwned','1')}catch(e){}"
    "try{w.sessionStorage.setItem('pwned','1')}catch(e){}"
    "try{w.document.cookie='pwned=1; path=/'}catch(e){}"
    "try{w.indexedDB.open('pwned')}catch(e){}"
    "try{w.caches.open('pwned')}catch(e){}"
    "try{w.location.hash='pwned'}catch(e){}}"
    "try{localStorage.setItem('pwned','1')}catch(e){}"
    "try{caches.open('pwned')}catch(e){}"
    "try{indexedDB.open('pwned')}catch(e){}"
    "try{document.cookie='pwned=1; path=/'}catch(e){}})()"
)
assert '"' not in PAYLOAD  # it goes into double-quoted attributes

HEDRON = "jobs-poll"
WARM = "taskflow"  # the page whose widget starts the runtime
APP = (ROOT / "recipes" / HEDRON / "app.py").read_text(encoding="utf-8")
HOME = APP[APP.index('@app.page("/")') :]
SCRIPTS = (
    '<script src="/_hedron/static/vendor/htmx.min.js" defer></script>'
    '<script src="/_hedron/static/hedron.js" defer></script>'
)


# Every attack page also polls, so that its run takes a few steps: three ticks, the third
# answered 286 (htmx stops).
TICKS = '<div hx-get="/tick" hx-trigger="every 1s">ticks</div>'
TICK = """

ticks = []


@app.get("/tick")
async def tick() -> HTMLResponse:
    ticks.append(1)
    return HTMLResponse(f"tick {len(ticks)}", status_code=286 if len(ticks) >= 3 else 200)
"""


def _hedron(body: str, routes: str = "", head: str = "") -> str:
    """jobs-poll's app.py with its page replaced by ``body`` (htmx and hedron.js kept, and
    TICKS), and ``routes`` (Python) added."""
    page = (
        f"<!DOCTYPE html><html><head><title>Attack</title>{SCRIPTS}{head}</head>"
        f"<body>{body}{TICKS}</body></html>"
    )
    return (
        APP.replace(HOME, "")
        + "\nfrom fastapi.responses import HTMLResponse, Response  # noqa: E402\n\n"
        + f"PAGE = {page!r}\n\n\n"
        + '@app.get("/")\nasync def home() -> HTMLResponse:\n'
        + "    return HTMLResponse(PAGE)\n"
        + TICK
        + routes
    )


def _route(path: str, body: str, media: str = "text/html", headers: str = "{}") -> str:
    name = re.sub(r"\W", "_", path)
    return (
        f"\n\n@app.get({path!r})\nasync def route{name}() -> Response:\n"
        f"    return Response({body!r}, media_type={media!r}, headers={headers})\n"
    )


SWAPPED = (
    f'<script>{PAYLOAD}</script><img src=x onerror="{PAYLOAD}">'
    f"<svg><script>{PAYLOAD}</script></svg>"
    '<iframe srcdoc="<script>parent.parent.document.title=1</script>"></iframe>'
)
WORKER = '''

import js  # noqa: E402


async def reach_out() -> list[str]:
    """What edited Python tries with the worker's global object."""
    reached = []
    for name, attempt in [
        ("caches", lambda: js.caches.open("pwned")),
        ("indexedDB", lambda: js.indexedDB.open("pwned")),
        ("fetch", lambda: js.fetch("/?pwned")),
        ("storage", lambda: js.navigator.storage.getDirectory()),
        ("Worker", lambda: js.Worker.new("/?pwned")),
        ("XMLHttpRequest", lambda: js.XMLHttpRequest.new()),
        ("BroadcastChannel", lambda: js.BroadcastChannel.new("pwned")),
    ]:
        try:
            result = attempt()
            if hasattr(result, "then"):
                result = await result
            if name == "storage":
                await result.getFileHandle("pwned", js.JSON.parse('{"create": true}'))
            reached.append(name)
        except Exception:  # noqa: BLE001 - every way out is tried
            pass
    return reached


@app.get("/reached")
async def reached() -> HTMLResponse:
    return HTMLResponse("Reached: " + (", ".join(await reach_out()) or "nothing"))
'''

ATTACKS: dict[str, str] = {
    # the issue's own example: a page that is nothing but a script
    "inline-script": _hedron(f"<p>Inline</p><script>{PAYLOAD}</script>"),
    # a script the app serves itself
    "app-script": _hedron(
        '<p>Served</p><script src="/evil.js"></script>',
        _route("/evil.js", PAYLOAD, "text/javascript"),
    ),
    # event-handler attributes
    "event-handlers": _hedron(
        f'<img src="x" onerror="{PAYLOAD}"><svg onload="{PAYLOAD}"></svg>'
        f'<input autofocus onfocus="{PAYLOAD}"><p>Handlers</p>',
    ),
    # htmx's own ways to run code: hx-on, js: values (a page without hedron's htmx config)
    "htmx-eval": _hedron(
        f'<div hx-on::load="{PAYLOAD}">On</div>'
        f'<div hx-get="/vals" hx-trigger="load" hx-vals="js:{{a: {PAYLOAD}}}">Vals</div>',
        _route("/vals", "<p>vals</p>"),
    ),
    # markup htmx swaps in later (never seen by the page's preparation)
    "swapped": _hedron(
        '<div hx-get="/swap" hx-trigger="load">Swap</div>', _route("/swap", SWAPPED)
    ),
    # a refresh that would take the frame (or the reader's tab) elsewhere, in the page and
    # swapped in later
    "meta-refresh": _hedron(
        '<p>Refresh</p><div hx-get="/refresh" hx-trigger="load"></div>',
        _route("/refresh", '<meta http-equiv="refresh" content="0;url=/?pwned">'),
        head='<meta http-equiv="refresh" content="0;url=http://evil.example/">',
    ),
    # htmx told by the app to go elsewhere
    "hx-redirect": _hedron(
        '<div hx-get="/go" hx-trigger="load">Go</div>',
        _route("/go", "", headers="{'HX-Redirect': '/?pwned'}"),
    ),
    # links and forms aimed at the reader's tab (the demo clicks the form's button itself)
    "target-top": _hedron(
        '<a id="out" target="_top" href="/?pwned#pwned">Out</a>'
        '<a id="parent" target="_parent" href="/?pwned">Parent</a>'
        '<form target="_top" action="/" method="get"><input name="pwned" value="1">'
        '<button type="submit">Send</button></form>'
    ),
    # javascript: URLs in a link, a frame and a form
    "javascript-urls": _hedron(
        f'<a id="js" href="javascript:{PAYLOAD}">Js</a>'
        f'<iframe src="javascript:{PAYLOAD}"></iframe>'
        f'<form action="javascript:{PAYLOAD}"><button type="submit">Go</button></form>'
    ),
    # the frame floods the page with messages (a script given to it by the debugger)
    "message-flood": _hedron("<p>Flood</p>"),
    # edited Python reaching the worker's global object
    "worker": _hedron('<p hx-get="/reached" hx-trigger="load">Worker</p>', WORKER),
}
CLICKED = {"target-top": ["#out", "#parent"], "javascript-urls": ["#js"]}

# resq: edited client code making the worker's answer carry markup (the page's old way
# showed the last answer as HTML; a patched answer is whatever edited Python makes it)
RESQ = "resq-async-poll"
MARKUP = f'<img src=x onerror="{PAYLOAD}"><b id=pwned>bold</b>'
RESQ_CLIENT = (
    (ROOT / "recipes" / RESQ / "client.py").read_text(encoding="utf-8")
    + f"""

import tryit._stepper as _stepper  # noqa: E402

_plain = _stepper.StepResult.as_dict
MARKUP = {MARKUP!r}


def _marked(self):  # noqa: ANN001, ANN202
    answer = _plain(self)
    answer["lines"] = [MARKUP + line for line in answer["lines"]]
    answer["swaps"] = [{{"target": "", "style": "innerHTML", "html": MARKUP}}]
    answer["response"] = MARKUP
    answer["message"] = MARKUP
    return answer


_stepper.StepResult.as_dict = _marked
"""
)

# The page as far as an attack could change it: its title, location, the marks, the page's
# content outside the widget (the theme's own header, search and navigation change by
# themselves), its scripts and frames, and the origin's storage of every kind.
STATE = """async () => {
  const outside = document.querySelector("article").cloneNode(true);
  for (const node of outside.querySelectorAll(".tryit")) node.remove();
  const scripts = [...document.scripts].map((script) => script.src || script.text.length);
  const frames = [...document.querySelectorAll("iframe")].filter((f) => !f.closest(".tryit"));
  const caches_ = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    caches_.push([name, (await cache.keys()).map((request) => request.url).sort()]);
  }
  const files = [];
  for await (const [name] of (await navigator.storage.getDirectory()).entries()) files.push(name);
  return {
    title: document.title,
    // (the theme itself rewrites the address's "#" part as the page scrolls)
    href: location.href.split("#")[0],
    hash: location.hash.includes("pwned"),
    marks: [document.documentElement.dataset.pwned ?? null, document.body.dataset.pwned ?? null,
      !!document.getElementById("pwned")],
    outside: [outside.textContent.replace(/\\s+/g, " "), outside.getElementsByTagName("*").length],
    scripts,
    frames: frames.length,
    local: Object.fromEntries(Object.entries(localStorage)),
    session: Object.fromEntries(Object.entries(sessionStorage)),
    cookie: document.cookie,
    caches: caches_,
    databases: (await indexedDB.databases()).map((db) => db.name),
    files,
  };
}"""
# What changes for a moment (the theme puts the title and the address's "#" back as the page
# scrolls): every title and "#" the page has during the run, and marks set on the page.
WATCH = """() => {
  const seen = (window.__seen = []);
  const all = { childList: true, characterData: true, subtree: true };
  new MutationObserver(() => seen.push(`title: ${document.title}`))
    .observe(document.querySelector("title"), all);
  new MutationObserver((records) => records.forEach((r) => seen.push(r.attributeName)))
    .observe(document.documentElement, { attributes: true, subtree: true,
      attributeFilter: ["data-pwned"] });
  addEventListener("hashchange", () => seen.push(`#: ${location.hash}`));
}"""
SHARE = """async ([recipe, texts]) => {
  const edits = await import("/assets/tryit/edits.mjs");
  const originals = (await (await fetch(`/_tryit/recipes/${recipe}.json`)).json()).files;
  return edits.encodeShare(recipe, originals, edits.applyTexts(originals, texts));
}"""
SET_TEXT = """async (text) => {
  const { EditorView } = await import("/_tryit/codemirror/codemirror-view.js");
  const view = EditorView.findFromDOM(document.querySelector(".tryit .cm-editor"));
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}"""
FORGET_EDITS = """() => Object.keys(localStorage)
  .filter((key) => key.startsWith("tryit:edits:"))
  .forEach((key) => localStorage.removeItem(key))"""
KEPT = "() => globalThis.__tryitRuntime.kept !== undefined"
STORED = f"() => globalThis.__tryitRuntime.saved !== undefined && ({KEPT})()"
# A script in the frame (given by the debugger: the policy would refuse the page's own):
# every message the driver sends to the panel comes with thousands of false ones, and the
# page's window is flooded too.
FLOOD = """() => {
  const post = MessagePort.prototype.postMessage;
  MessagePort.prototype.postMessage = function (message, ...rest) {
    for (let i = 0; i < 5000; i += 1) {
      post.call(this, { kind: "note", text: `<img src=x onerror="document.title='PWNED'">${i}` });
    }
    post.call(this, { kind: "request", id: 1, method: "GET", url: "/?pwned", headers: [],
      body: null, t: 0 });
    return post.call(this, message, ...rest);
  };
  for (let i = 0; i < 5000; i += 1) {
    parent.postMessage({ kind: "reply", id: 1, result: { lines: ["PWNED"] } }, "*");
  }
  try { parent.document.title = "PWNED"; } catch {}
  try { top.location.hash = "pwned"; } catch {}
}"""


@pytest.fixture(scope="module")
def host(built_site: Path) -> Iterator[StaticServer]:
    """The site from a host serving the ``.br`` copies (the prepared interpreter is used)."""
    with StaticServer(built_site, precompressed=True) as server:
        yield server


def _warm(chromium: Any, host: StaticServer) -> Visit:
    """A new browser context whose runtime is ready and has stored what it keeps."""
    visit = Visit(chromium, host.url)
    visit.page.add_init_script("globalThis.TRYIT_SIMULATE_LINK = 'fast'")
    visit.goto(f"recipes/{WARM}/")
    visit.click("step", timeout=LOAD_MS)
    visit.page.wait_for_function(STORED, timeout=LOAD_MS)
    visit.click("reset")
    return visit


@pytest.fixture(scope="module")
def warm() -> Iterator[list[Visit]]:
    """The module's warm context, once made (see the module docstring)."""
    made: list[Visit] = []
    yield made
    for visit in made:
        visit.close()


@pytest.fixture
def visit(
    chromium: Any, host: StaticServer, warm: list[Visit], request: pytest.FixtureRequest
) -> Iterator[Visit]:
    """The warm context, with no request or error of an earlier attack on record, and
    without the edit an earlier attack typed (which the reader's browser keeps)."""
    if not warm:
        warm.append(_warm(chromium, host))
    visit = warm[0]
    visit.goto(f"recipes/{WARM}/")  # a new page (the link is then a new page again, too)
    visit.page.evaluate(FORGET_EDITS)
    visit.requests.clear()
    visit.errors.clear()
    failed = request.session.testsfailed
    yield visit
    if request.session.testsfailed != failed:
        warm.pop().close()


def _frame(visit: Visit) -> Any:
    return visit.widget().frame_locator(".tryit__frame")


def _run_to_the_end(visit: Visit, name: str) -> None:
    """Step twice (the page opens, its first request), then as the attack goes (the reader
    clicks what the page offers), then run to the end."""
    visit.click("step", timeout=LOAD_MS)
    visit.click("step")
    if name == "message-flood":
        [frame] = [f for f in visit.page.frames if f.parent_frame is visit.page.main_frame]
        frame.evaluate(FLOOD)
    for selector in CLICKED.get(name, []):
        link = _frame(visit).locator(selector)
        if link.count():
            link.click()
            link.click(button="middle")  # a new tab, where a browser allows one
    if visit.state() != "done":
        visit.click("run", timeout=LOAD_MS)


def _attack(visit: Visit, recipe: str, name: str, code: dict[str, str]) -> list[str]:
    """Open the attack by a share link, then typed; each run to its end. Returns the status
    lines the reader was shown at the end of each."""
    fragment = visit.page.evaluate(SHARE, [recipe, code])
    said = []
    for way in ("link", "typed"):
        if way == "link":  # opened as a reader opens it: a new page, a new worker
            visit.goto(f"recipes/{recipe}/{fragment}")
            visit.page.wait_for_selector(".tryit .cm-editor")
            notice = visit.widget().locator(".tryit__edited")
            assert "This link carries edited code" in notice.inner_text()
        else:
            visit.click("reset")  # the tested code again, the link dropped ...
            visit.page.evaluate(SET_TEXT, next(iter(code.values())))  # ... then it is typed
            visit.page.wait_for_function(f"() => ({IDLE})(document.querySelector('.tryit'))")
        before = visit.page.evaluate(STATE)
        visit.page.evaluate(WATCH)
        try:
            _run_to_the_end(visit, name)
            visit.page.wait_for_function(KEPT, timeout=LOAD_MS)  # what the worker keeps is kept
            ended = True
        except PlaywrightTimeout:
            ended = False  # told last: first, what the attack reached
        after = visit.page.evaluate(STATE)
        seen = visit.page.evaluate("window.__seen")
        # what the attack itself would leave (its marks, its requests, a tab of its own),
        # then anything at all
        assert not [url for url in visit.requests if "pwned" in url], (name, way)
        own = (visit.base_url, "data:", "blob:")
        assert not [url for url in visit.requests if not url.startswith(own)], (name, way)
        assert len(visit.context.pages) == 1, (name, way)
        local = {k: v for k, v in after["local"].items() if not k.startswith("tryit:edits:")}
        marks = json.dumps([{**after, "local": local}, seen])  # (not the edit the reader kept)
        assert "pwned" not in marks.lower(), (name, way, after, seen)
        assert after == before, (name, way)
        # it ended as a run ends, and says how
        assert ended, (name, way, "the run never ended")
        assert visit.state() == "done", (name, way, visit.status())
        assert visit.widget().get_attribute("data-outcome"), (name, way)
        assert re.match(r"Stopped \(", visit.status()), (name, way, visit.status())
        said.append(visit.status())
    return said


@pytest.mark.parametrize("name", list(ATTACKS))
def test_an_attack_on_the_hedron_panel_changes_nothing_of_the_site(visit: Visit, name: str) -> None:
    said = _attack(visit, HEDRON, name, {"app.py": ATTACKS[name]})
    if name in ("inline-script", "app-script", "event-handlers", "htmx-eval", "swapped"):
        # the page stays in its frame, and no script of the app ran even there
        assert _frame(visit).locator("html[data-ran]").count() == 0
        assert _frame(visit).locator("body").inner_text().strip()
    if name == "message-flood":
        assert all("the demo app's page was stopped" in line for line in said), said
    if name == "worker":  # edited Python reached none of them
        assert "Reached: nothing" in _frame(visit).locator("body").inner_text()


def test_markup_in_the_workers_answers_is_shown_as_text(visit: Visit) -> None:
    _attack(visit, RESQ, "resq-markup", {"client.py": RESQ_CLIENT})
    widget = visit.widget()
    assert widget.locator(".tryit__panel .tryit__response").inner_text() == MARKUP
    assert widget.locator(".tryit__transcript li").first.inner_text().startswith(MARKUP)
    assert widget.locator("img, b#pwned").count() == 0  # text, never elements


# What checks.mjs lets through from the worker (whose every message edited Python can forge).
CHECKED = """async () => {
  const c = await import("/assets/tryit/checks.mjs");
  const refused = (check, value) => {
    try {
      check(value);
      return false;
    } catch (error) {
      return error instanceof c.Refused;
    }
  };
  return {
    unknown: c.checkWorkerMessage({ kind: "eval", code: "document.title = 1" }),
    notObject: c.checkWorkerMessage("a string"),
    badReply: c.checkWorkerMessage({ kind: "reply", id: "1", result: {} }),
    progress: c.checkWorkerMessage({ kind: "progress", stage: "<b>x</b>", bytes: "5" }),
    ready: c.checkWorkerMessage({ kind: "ready", ms: 1, bytes: 2, jspi: true }).jspi,
    linesNotList: refused(c.checkStep, { lines: "<b>x</b>", done: false }),
    lineNotText: refused(c.checkStep, { lines: [{ html: "<b>" }] }),
    longLine: refused(c.checkStep, { lines: ["x".repeat(20000)] }),
    badError: refused(c.checkStep, { lines: [], done: true, outcome: "error",
      error: { traceback: 1, message: "m" } }),
    response: c.checkStep({ lines: [], response: "<img src=x>" }).response,
    page: refused(c.checkSettings, { page: "//evil.example/", window: 1, title: "t" }),
  };
}"""


def test_what_the_page_takes_from_the_worker_is_checked_data(
    chromium: Any, host: StaticServer
) -> None:
    page = chromium.new_page()
    try:
        page.goto(host.url)
        checked = page.evaluate(CHECKED)
    finally:
        page.close()
    assert checked == {
        "unknown": None,  # not a message of the worker's: ignored
        "notObject": None,
        "badReply": None,
        "progress": None,  # bytes as a string: ignored
        "ready": True,
        "linesNotList": True,  # refused whole
        "lineNotText": True,
        "longLine": True,
        "badError": True,
        "response": "<img src=x>",  # text, which the page shows as text
        "page": True,
    }
