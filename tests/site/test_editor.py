"""The "Try it" code editor and its helpers in headless Chromium, on the built site.

The editor (``docs/assets/tryit/editor.mjs``, CodeMirror under ``_tryit/codemirror/``) is
opened on a recipe page the way the widget opens it: a dynamic ``import()`` when the reader
asks for it. One tab serves the module; each test opens and destroys its own editor.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from docsite.testing.static_server import StaticServer

ROOT = Path(__file__).resolve().parents[2]
RECIPE = "resq-sync-poll"
PAGE = f"recipes/{RECIPE}/"
EDITOR_PARTS = ("/_tryit/codemirror/", "/assets/tryit/editor.mjs", "/assets/tryit/editor.css")

pytestmark = pytest.mark.browser


def recipe_files(name: str = RECIPE) -> list[dict[str, Any]]:
    """The files a widget hands the editor: the one the reader edits, and the others."""
    folder = ROOT / "recipes" / name
    editable = "client.py" if (folder / "client.py").exists() else "app.py"
    return [
        {"name": p, "text": (folder / p).read_text(encoding="utf-8"), "editable": p == editable}
        for p in ("server.py", "client.py")
        if (folder / p).exists()
    ]


OPEN = """async (files) => {
  const { openEditor } = await import("/assets/tryit/editor.mjs");
  globalThis.__editor?.destroy();
  document.querySelectorAll("#before-editor, #editor-host").forEach((el) => el.remove());
  const before = document.createElement("button");
  before.id = "before-editor";
  before.textContent = "before";
  const host = document.createElement("div");
  host.id = "editor-host";
  document.querySelector(".tryit").after(before, host);
  globalThis.__changes = [];
  globalThis.__editor = openEditor(host, { files, onChange: (c) => __changes.push(c) });
  return __editor.getFiles().map((f) => f.name);
}"""


class Tab:
    """One browser tab on the built site, recording every request it makes."""

    def __init__(self, browser: Any, base_url: str, *, color_scheme: str = "light") -> None:
        self.base_url = base_url
        self.context = browser.new_context(color_scheme=color_scheme)
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def goto(self, path: str = PAGE) -> None:
        self.page.goto(self.base_url + path)
        self.page.wait_for_selector(".tryit[data-state]")

    def open(self, files: list[dict[str, Any]] | None = None) -> list[str]:
        names = list(self.page.evaluate(OPEN, files if files is not None else recipe_files()))
        # CodeMirror draws the lines inside the window's viewport: bring the editor into it
        self.page.locator("#editor-host").scroll_into_view_if_needed()
        self.page.wait_for_function(
            """() => __editor.view.viewport.to === __editor.view.state.doc.length"""
        )
        return names

    def editor_requests(self) -> list[str]:
        return [url for url in self.requests if any(part in url for part in EDITOR_PARTS)]

    def files(self) -> list[dict[str, Any]]:
        return list(self.page.evaluate("__editor.getFiles()"))

    def focused(self) -> str:
        """Where the keyboard focus is: the tab's file name, "content", or the element's id."""
        return str(
            self.page.evaluate(
                """() => {
                  const el = document.activeElement;
                  if (el.getAttribute("role") === "tab") return "tab:" + el.firstChild.textContent;
                  if (el.classList.contains("cm-content")) return "content";
                  return el.id || el.tagName;
                }"""
            )
        )


@pytest.fixture(scope="module")
def tab(chromium: Any, site_server: StaticServer, built_site: Path) -> Iterator[Tab]:
    t = Tab(chromium, site_server.url)
    t.goto()
    yield t
    t.context.close()


def test_nothing_of_the_editor_loads_before_it_is_opened(tab: Tab, built_site: Path) -> None:
    tab.page.wait_for_load_state("networkidle")
    assert tab.editor_requests() == []
    assert tab.open() == ["client.py", "server.py"]  # the editable file first
    loaded = {urlsplit(url).path.rsplit("/", 1)[1] for url in tab.editor_requests()}
    manifest = json.loads(
        (built_site / "_tryit" / "codemirror" / "manifest.json").read_text(encoding="utf-8")
    )
    assert loaded == {"editor.mjs", "editor.css", *manifest["modules"]}
    assert len(tab.editor_requests()) == len(loaded)  # each file once
    assert tab.errors == []


def test_python_is_highlighted_in_the_site_palette(tab: Tab) -> None:
    tab.open()
    tokens = tab.page.evaluate(
        """() => {
          const out = {};
          for (const el of document.querySelectorAll(".tryit-editor .cm-content [class^=tok-]")) {
            (out[el.className] ||= []).push(el.textContent);
          }
          return out;
        }"""
    )
    assert {"def", "import", "return", "with", "as"} <= set(tokens["tok-keyword"])
    assert '"/job/42"' in tokens["tok-string"]
    assert {"2", "30"} <= set(tokens["tok-number"])
    assert "main" in tokens["tok-function"]
    assert any(text.startswith("# single request") for text in tokens["tok-comment"])
    colour = """(sel) => getComputedStyle(document.querySelector(
        ".tryit-editor .cm-content " + sel)).color"""
    light = tab.page.evaluate(colour, ".tok-keyword")
    assert light == "rgb(54, 95, 170)"
    # the palette switch of the theme recolours an open editor
    tab.page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
    assert tab.page.evaluate(colour, ".tok-keyword") == "rgb(127, 163, 229)"
    tab.page.evaluate("document.body.setAttribute('data-md-color-scheme', 'default')")
    # line numbers, one per line of the file
    numbers = tab.page.locator(".tryit-editor .cm-lineNumbers .cm-gutterElement").all_inner_texts()
    lines = recipe_files()[1]["text"].count("\n") + 1
    assert [n for n in numbers if n.strip()][-1] == str(lines)


def test_the_editor_is_used_with_the_keyboard(tab: Tab) -> None:
    tab.open()
    client = recipe_files()[1]["text"]
    tab.page.focus("#before-editor")
    tab.page.keyboard.press("Tab")
    assert tab.focused() == "tab:client.py"
    tab.page.keyboard.press("ArrowRight")
    assert tab.focused() == "tab:server.py"
    assert tab.page.get_attribute("[role=tab]:nth-child(2)", "aria-selected") == "true"
    tab.page.keyboard.press("ArrowLeft")
    assert tab.focused() == "tab:client.py"
    content = tab.page.locator(".tryit-editor .cm-content")
    assert content.get_attribute("aria-label") == "client.py (Python)"
    hint = tab.page.locator("#" + str(content.get_attribute("aria-describedby")))
    assert "Esc then Tab leaves the editor" in hint.inner_text()
    tab.page.keyboard.press("Tab")  # into the code (the tab list is one stop)
    assert tab.focused() == "content"
    ring = tab.page.evaluate(
        """() => { const s = getComputedStyle(document.querySelector(".tryit-editor .cm-editor"));
                   return [s.outlineStyle, s.outlineWidth, s.outlineColor]; }"""
    )
    assert ring == ["solid", "2px", "rgb(48, 63, 161)"]
    assert "Tab moves on" in hint.inner_text()
    tab.page.keyboard.press("Tab")  # not editing yet: Tab is the page's, focus moves on
    assert tab.focused() not in ("content", "tab:client.py", "tab:server.py")
    assert tab.files()[0]["text"] == client
    tab.page.keyboard.press("Shift+Tab")  # back into the code
    assert tab.focused() == "content"
    tab.page.keyboard.press("Enter")  # the reader chooses to edit: no new line yet ...
    assert tab.files()[0]["text"] == client
    assert hint.inner_text().startswith("Editing: Tab indents")
    tab.page.keyboard.press("Tab")  # ... and Tab now indents
    assert tab.focused() == "content"
    assert tab.files()[0]["text"] != client
    tab.page.keyboard.press("Escape")
    tab.page.keyboard.press("Tab")
    assert tab.focused() not in ("content", "tab:client.py", "tab:server.py")
    assert tab.files()[0]["text"].count("\n") == client.count("\n")
    tab.page.keyboard.press("Shift+Tab")  # back in, Tab is the page's again ...
    assert tab.focused() == "content"
    assert "Tab moves on" in hint.inner_text()
    tab.page.keyboard.type("x = 1")  # ... until a first printable key: editing
    typed = tab.files()[0]["text"]
    assert "x = 1" in typed
    tab.page.keyboard.press("Tab")  # Tab indents ...
    assert tab.focused() == "content"
    assert len(tab.files()[0]["text"]) == len(typed) + 4
    assert tab.page.evaluate("__changes.at(-1).name") == "client.py"
    tab.page.keyboard.press("Escape")  # ... and Escape, then Tab, moves on
    tab.page.keyboard.press("Tab")
    assert tab.focused() not in ("content", "tab:client.py", "tab:server.py")
    # the read-only file can be read with the keyboard but not changed
    tab.page.focus(".tryit-editor [role=tab][aria-selected=true]")
    tab.page.keyboard.press("End")
    tab.page.keyboard.press("Tab")
    assert tab.focused() == "content"
    assert content.get_attribute("aria-label") == "server.py (Python, read-only)"
    assert content.get_attribute("aria-readonly") == "true"
    tab.page.keyboard.type("junk")
    assert tab.files()[1]["text"] == recipe_files()[0]["text"]
    tab.page.keyboard.press("Tab")  # nothing to indent in a read-only file: focus moves on
    assert tab.focused() != "content"
    assert tab.errors == []


def test_a_line_is_marked_with_its_message_and_cleared(tab: Tab) -> None:
    tab.open()
    tab.page.evaluate("__editor.show('server.py')")
    tab.page.evaluate("__editor.markLine('client.py', 12, `NameError: name 'r' is not defined`)")
    assert tab.page.evaluate("__editor.current()") == "client.py"  # it shows the marked file
    marked = tab.page.locator(".tryit-editor .tryit-editor__marked")
    assert marked.all_inner_texts() == [recipe_files()[1]["text"].splitlines()[11]]
    message = tab.page.locator(".tryit-editor .tryit-editor__message")
    assert message.inner_text() == "NameError: name 'r' is not defined"
    for call, error in [
        ("__editor.markLine('client.py', 0, '')", "RangeError: line must be an integer"),
        ("__editor.markLine('client.py', 999, '')", "RangeError: line must be an integer"),
        ("__editor.markLine('nope.py', 1, '')", 'RangeError: file: no file named "nope.py"'),
        ("__editor.markLine('client.py', 1, 42)", "TypeError: message must be a string"),
    ]:
        got = tab.page.evaluate(f"() => {{ try {{ {call}; }} catch (e) {{ return String(e); }} }}")
        assert got.startswith(error), got
    tab.page.evaluate("__editor.markLine('server.py', 1, '')")  # a mark in another file too
    tab.page.evaluate("__editor.clearMarks()")
    assert marked.count() == 0
    assert message.count() == 0
    tab.page.evaluate("__editor.show('client.py')")
    assert marked.count() == 0


def test_files_are_replaced_and_bad_files_refused(tab: Tab) -> None:
    tab.open()
    tab.page.evaluate("__editor.setFiles([{name: 'app.py', text: 'x = 1\\n', editable: true}])")
    assert tab.files() == [{"name": "app.py", "text": "x = 1\n", "editable": True}]
    assert tab.page.locator(".tryit-editor [role=tab]").all_inner_texts() == ["app.py"]
    assert tab.page.evaluate("__changes") == []  # replacing the files is not an edit
    for files, error in [
        ("[]", "files must be a non-empty array"),
        ("[{name: '', text: ''}]", "files[0].name must be a non-empty string"),
        ("[{name: 'a.py', text: 1}]", "files[0].text must be a string"),
        ("[{name: 'a.py', text: ''}, {name: 'a.py', text: ''}]", 'files[1].name "a.py" is'),
    ]:
        got = tab.page.evaluate(
            f"() => {{ try {{ __editor.setFiles({files}); }} catch (e) {{ return String(e); }} }}"
        )
        assert got == f"TypeError: {error}" or got.startswith(f"TypeError: {error}"), got
    assert tab.files()[0]["name"] == "app.py"  # a refused call changes nothing
    tab.page.evaluate("__editor.destroy()")
    assert tab.page.locator(".tryit-editor").count() == 0


def test_the_editor_survives_instant_navigation(tab: Tab, site_server: StaticServer) -> None:
    tab.open()
    before = len(tab.editor_requests())
    tab.page.evaluate("window.__sameDocument = 1")
    target = site_server.url + "recipes/resq-until/"
    tab.page.evaluate(
        """(href) => { const a = document.createElement("a"); a.href = href;
                       document.querySelector("article").append(a); a.click(); }""",
        target,
    )
    tab.page.wait_for_url(target)
    # the new page's widget (the old one may still be there while the URL has changed)
    tab.page.wait_for_selector(".tryit[data-tryit='resq-until'][data-state]")
    assert tab.page.evaluate("window.__sameDocument") == 1
    tab.open(recipe_files("resq-until"))
    background = tab.page.evaluate(
        "getComputedStyle(document.querySelector('.tryit-editor .tok-keyword')).color"
    )
    assert background == "rgb(54, 95, 170)"  # still styled
    assert len(tab.editor_requests()) - before <= 1  # at most the stylesheet again
    tab.goto()


def test_the_first_pages_import_map_serves_a_page_reached_by_instant_navigation(
    chromium: Any, site_server: StaticServer
) -> None:
    """The editor's CodeMirror imports resolve through the map of the page the visit began on
    (the home page: its addresses are relative to another folder than the recipe page's)."""
    home = Tab(chromium, site_server.url)
    warnings: list[str] = []  # the browser's word on a map entry it ignores
    home.page.on("console", lambda message: warnings.append(message.text))
    try:
        home.page.goto(site_server.url)
        home.page.evaluate("window.__sameDocument = 1")
        home.page.evaluate(
            """(href) => { const a = document.createElement("a"); a.href = href;
                           document.querySelector("article").append(a); a.click(); }""",
            site_server.url + PAGE,
        )
        home.page.wait_for_url(site_server.url + PAGE)
        home.page.wait_for_selector(".tryit[data-state]")
        assert home.page.evaluate("window.__sameDocument") == 1
        assert home.open() == ["client.py", "server.py"]
        assert any("/_tryit/codemirror/codemirror-view.js" in u for u in home.editor_requests())
        assert home.errors == []
        assert [text for text in warnings if "import map" in text.lower()] == []
    finally:
        home.context.close()


# ---- the helpers (edits.mjs) ------------------------------------------------------------

HELPERS = "import('/assets/tryit/edits.mjs')"


def test_edits_are_kept_per_recipe_in_local_storage(tab: Tab) -> None:
    result = tab.page.evaluate(
        f"""async (originals) => {{
          const h = await {HELPERS};
          localStorage.clear();
          const edited = originals.map((f) =>
            f.editable ? {{ ...f, text: f.text.replace("delay=2", "delay=1") }} : f);
          const out = {{}};
          out.saved = h.saveEdits("resq-sync-poll", originals, edited);
          out.keys = Object.keys(localStorage);
          out.loaded = h.loadEdits("resq-sync-poll", originals);
          out.other = h.loadEdits("resq-until", originals);
          // a newer version of the recipe: the edits are still offered, marked stale
          const newer = originals.map((f) => ({{...f, text: f.text + "\\n# changed"}}));
          out.stale = h.loadEdits("resq-sync-poll", newer).stale;
          // undoing every edit forgets them
          out.cleared = h.saveEdits("resq-sync-poll", originals, originals);
          out.after = h.loadEdits("resq-sync-poll", originals);
          // a read-only file is never stored, nor replaced by what is stored
          const server = originals.map((f) => f.editable ? f : {{...f, text: "evil"}});
          out.readonly = h.saveEdits("resq-sync-poll", originals, server);
          const forged = {{ v: 1, base: "", files: {{ "server.py": "evil" }} }};
          localStorage.setItem("tryit:edits:resq-sync-poll", JSON.stringify(forged));
          out.forged = h.loadEdits("resq-sync-poll", originals);
          localStorage.setItem("tryit:edits:resq-sync-poll", "{{not json");
          out.broken = h.loadEdits("resq-sync-poll", originals);
          // storage that refuses (full, or disabled by a privacy setting)
          const full = {{ setItem() {{ throw new DOMException("full", "QuotaExceededError"); }},
                          getItem() {{ throw new DOMException("no", "SecurityError"); }},
                          removeItem() {{ throw new DOMException("no", "SecurityError"); }} }};
          out.refused = [h.saveEdits("resq-sync-poll", originals, edited, full),
                         h.loadEdits("resq-sync-poll", originals, full)];
          try {{ h.saveEdits("../x", originals, edited); }} catch (e) {{ out.badName = String(e); }}
          h.clearEdits("resq-sync-poll");
          out.end = Object.keys(localStorage);
          return out;
        }}""",
        recipe_files(),
    )
    assert result["saved"] == "saved"
    assert result["keys"] == ["tryit:edits:resq-sync-poll"]
    client = next(f for f in result["loaded"]["files"] if f["name"] == "client.py")
    assert "delay=1" in client["text"]
    assert "delay=2" not in client["text"]
    assert result["loaded"]["files"][0] == recipe_files()[0]  # server.py as it was
    assert result["loaded"]["stale"] is False
    assert result["other"] is None
    assert result["stale"] is True
    assert result["cleared"] == "cleared"
    assert result["after"] is None
    assert result["readonly"] == "cleared"
    assert result["forged"] is None
    assert result["broken"] is None
    assert result["refused"] == [None, None]
    assert result["badName"].startswith("TypeError: recipe must be a recipe name")
    assert result["end"] == []


def test_a_share_link_reproduces_the_edit_in_a_fresh_browser(
    tab: Tab, chromium: Any, site_server: StaticServer
) -> None:
    fragment = tab.page.evaluate(
        f"""async (originals) => {{
          const h = await {HELPERS};
          const edited = originals.map((f) =>
            f.editable ? {{ ...f, text: f.text.replace("delay=2", "delay=1") }} : f);
          return h.encodeShare("resq-sync-poll", originals, edited);
        }}""",
        recipe_files(),
    )
    assert fragment.startswith("#tryit=resq-sync-poll.")
    assert len(fragment) < len(recipe_files()[1]["text"])  # only the edited file, compressed
    fresh = Tab(chromium, site_server.url)
    try:
        fresh.goto(PAGE + fragment)
        decoded = fresh.page.evaluate(
            f"""async (originals) => {{
              const h = await {HELPERS};
              return [h.shareRecipe(location.hash), await h.decodeShare(location.hash, originals)];
            }}""",
            recipe_files(),
        )
        stored = "Object.keys(localStorage).filter((key) => key.startsWith('tryit:'))"
        assert fresh.page.evaluate(stored) == []  # a fresh profile: the link alone carries it
    finally:
        fresh.context.close()
    recipe, shared = decoded
    assert recipe == RECIPE
    assert shared["recipe"] == RECIPE
    assert shared["stale"] is False
    client = next(f for f in shared["files"] if f["name"] == "client.py")
    assert client["text"] == recipe_files()[1]["text"].replace("delay=2", "delay=1")
    # nothing was sent anywhere but the page itself: the fragment never reaches the server
    assert all("tryit=" not in path for path, _ in site_server.log)


def test_a_damaged_share_link_says_so(tab: Tab) -> None:
    result = tab.page.evaluate(
        f"""async (originals) => {{
          const h = await {HELPERS};
          const good = await h.encodeShare("resq-sync-poll", originals,
            originals.map((f) => ({{...f, text: f.text + "# edit"}})));
          const attempt = async (fragment) => {{
            try {{ return await h.decodeShare(fragment, originals); }}
            catch (e) {{ return String(e); }}
          }};
          // 2 MiB of spaces deflate to a few kB: refused before it is inflated in full
          const bomb = new Blob([new Uint8Array(2 << 20).fill(32)]).stream()
            .pipeThrough(new CompressionStream("deflate-raw"));
          const bytes = new Uint8Array(await new Response(bomb).arrayBuffer());
          let binary = ""; for (const b of bytes) binary += String.fromCharCode(b);
          const base64url = btoa(binary).replaceAll("+", "-").replaceAll("/", "_");
          const bombed = "#tryit=resq-sync-poll." + base64url.replace(/=+$/, "");
          return {{
            other: await attempt("#section-2"),
            truncated: await attempt(good.slice(0, -6)),
            junk: await attempt("#tryit=resq-sync-poll.!!!"),
            notJson: await attempt("#tryit=resq-sync-poll.AAAA"),
            bomb: await attempt(bombed),
            name: h.shareRecipe("#tryit=../etc.AAAA"),
          }};
        }}""",
        recipe_files(),
    )
    assert result["other"] is None
    assert result["name"] is None
    for key in ("truncated", "junk", "notJson", "bomb"):
        assert result[key].startswith("Error: The code in this link could not be read"), key
    assert "inflates beyond 1048576 bytes" in result["bomb"]


def test_an_edited_run_is_compared_with_the_tested_one(tab: Tab) -> None:
    recorded = (ROOT / "recipes" / RECIPE / "transcript.txt").read_text().splitlines()
    faster = [recorded[0]] + [
        line.replace("t=2s", "t=1s").replace("t=4s", "t=2s").replace("t=6s", "t=3s")
        for line in recorded[1:]
    ]
    cases = {
        "same": [recorded, recorded, True],
        "faster": [recorded, faster, True],
        "running": [recorded, recorded[:2], False],
        "stopped early": [recorded, recorded[:2], True],
        "longer": [recorded, [*recorded, "> extra"], True],
        "printed": [recorded, [*recorded[:4], "> 503 ...", *recorded[5:]], True],
        "syntax error": [recorded, ["= error: SyntaxError: '(' was never closed (line 12)"], True],
        "running, wrong": [recorded, [recorded[0], "t=1s GET /job/42 -> 503"], False],
    }
    result = tab.page.evaluate(
        f"""async (cases) => {{
          const h = await {HELPERS};
          const out = {{}};
          for (const [name, [a, b, done]] of Object.entries(cases)) {{
            const d = h.compareTranscripts(a, b, {{ done }});
            out[name] = [d, h.differenceMessage(d)];
          }}
          try {{ h.compareTranscripts("x", []); }} catch (e) {{ out.bad = String(e); }}
          return out;
        }}""",
        cases,
    )
    assert result["same"] == [None, "same as the tested run"]
    assert result["running"][0] is None
    diff, message = result["faster"]
    assert diff == {"index": 1, "step": 2, "expected": recorded[1], "actual": faster[1]}
    assert message == "differs from the tested run at step 2"
    assert result["stopped early"][0] == {
        "index": 2,
        "step": 3,
        "expected": recorded[2],
        "actual": None,
    }
    assert result["longer"][0]["index"] == len(recorded)
    assert result["longer"][0]["step"] == 4
    assert result["printed"][0]["step"] == 4  # the output of the fourth request differs
    assert result["syntax error"][1] == "differs from the tested run before its first request"
    assert result["running, wrong"][0]["step"] == 2
    assert result["bad"].startswith("TypeError: recorded must be an array")


def test_no_request_left_the_origin(tab: Tab, site_server: StaticServer) -> None:
    origin = urlsplit(site_server.url).netloc
    hosts = {urlsplit(url).netloc for url in tab.requests if url.startswith("http")}
    assert hosts == {origin}
    assert tab.errors == []
