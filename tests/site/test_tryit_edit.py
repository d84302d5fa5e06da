"""Edit and run: the reader changes a recipe's code in the "Try it" widget and runs it.

Headless Chromium on the built site, one tab for most tests (the Python runtime loads once),
a second, fresh browser context for the share link. Each test leaves the widget reset.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from docsite.testing.static_server import StaticServer
from tests._support import axe, tryit_visit
from tests._support.tryit_visit import IDLE, LOAD_MS, ROOT, Visit, committed

pytestmark = pytest.mark.browser

RECIPE = "resq-sync-poll"
PAGE = f"recipes/{RECIPE}/"
CLIENT = (ROOT / "recipes" / RECIPE / "client.py").read_text(encoding="utf-8")
EDITOR_PARTS = (
    "/_tryit/codemirror/",
    "/assets/tryit/editor.mjs",
    "/assets/tryit/editor.css",
    "/_tryit/recipes/",
)
KEY = f"tryit:edits:{RECIPE}"

# The editor's CodeMirror view (the module the editor itself imported: the same URL).
VIEW = """async () => {
  const { EditorView } = await import("/_tryit/codemirror/codemirror-view.js");
  return EditorView.findFromDOM(document.querySelector(".tryit .cm-editor"));
}"""
SET_TEXT = f"""async (text) => {{
  const view = await ({VIEW})();
  view.dispatch({{ changes: {{ from: 0, to: view.state.doc.length, insert: text }} }});
}}"""
GET_TEXT = f"async () => (await ({VIEW})()).state.doc.toString()"


def _times(lines: list[str]) -> list[str]:
    return [line.split()[0] for line in lines if line.startswith("t=")]


class Editing(Visit):
    """A visit to the recipe's page that edits its code."""

    def open_editor(self) -> None:
        self.click("edit")
        self.page.wait_for_selector(".tryit .cm-editor")

    def set_code(self, text: str) -> None:
        self.page.evaluate(SET_TEXT, text)

    def code(self) -> str:
        return str(self.page.evaluate(GET_TEXT))

    def idle(self, timeout: float = LOAD_MS) -> None:
        self.page.wait_for_function(
            f"() => ({IDLE})(document.querySelector('.tryit'))", timeout=timeout
        )

    def off_origin(self) -> list[str]:
        return [
            url for url in self.requests if not url.startswith((self.base_url, "data:", "blob:"))
        ]


@pytest.fixture(scope="module")
def visit(chromium: Any, site_server: StaticServer, built_site: Path) -> Iterator[Editing]:
    with Editing(chromium, site_server.url) as v:
        v.goto(PAGE)
        yield v


@pytest.fixture
def fresh(visit: Editing) -> Iterator[Editing]:
    """The tab with the editor open; its widget reset to the tested code after the test."""
    if not visit.page.locator(".tryit .cm-editor").count():
        visit.open_editor()
    yield visit
    visit.click("reset")
    assert visit.code() == CLIENT


def test_nothing_of_the_editor_loads_before_edit_is_clicked(visit: Editing) -> None:
    visit.page.wait_for_load_state("networkidle")
    assert [u for u in visit.requests if any(part in u for part in EDITOR_PARTS)] == []
    assert visit.button("edit").get_attribute("aria-expanded") == "false"
    visit.open_editor()
    assert visit.button("edit").get_attribute("aria-expanded") == "true"
    loaded = [u for u in visit.requests if any(part in u for part in EDITOR_PARTS)]
    assert any(u.endswith(f"/_tryit/recipes/{RECIPE}.json") for u in loaded)
    assert any("/_tryit/codemirror/" in u for u in loaded)
    tabs = visit.widget().locator("[role=tab]").all_inner_texts()
    assert tabs == ["client.py", "server.py (read-only)"]  # the file the reader edits first
    assert visit.code() == CLIENT  # the recipe's file, byte for byte
    # the keyboard: the editor takes the focus; until the reader edits, Tab moves on
    hint = visit.widget().locator(".tryit-editor__hint").inner_text()
    assert "Tab moves on" in hint
    assert "Esc then Tab leaves the editor" in hint
    assert visit.page.evaluate("document.activeElement.classList.contains('cm-content')")
    visit.page.keyboard.press("Tab")
    assert visit.page.evaluate("document.activeElement.textContent") == "Copy a link to this code"
    assert visit.errors == []


def test_an_edited_delay_runs_to_the_end_1_s_apart(fresh: Editing) -> None:
    visit = fresh
    visit.set_code(CLIENT.replace("delay=2)", "delay=1)"))
    visit.click("run", timeout=LOAD_MS)
    lines = visit.transcript()
    assert _times(lines) == ["t=0s", "t=1s", "t=2s", "t=3s"]  # attempts 1 s apart
    assert lines[-1] == "= done: terminal state, 200 OK at t=3s"
    # compared with the tested run: the second request is the first that differs
    marked = visit.widget().locator(".tryit__transcript li.tryit__differs")
    assert marked.count() == 1
    assert marked.get_attribute("data-differs") == "differs from the tested run at step 2"
    assert marked.inner_text() == lines[1]
    assert "differs from the tested run at step 2" in visit.status()
    # kept in this browser, for this recipe
    kept = visit.page.evaluate("(key) => localStorage.getItem(key)", KEY)
    assert kept is not None
    assert "delay=1" in kept
    assert visit.widget().get_attribute("data-edited") == "true"


def test_a_syntax_error_is_shown_with_its_line_marked(fresh: Editing) -> None:
    visit = fresh
    broken = CLIENT.replace("delay=2)", "delay=2")
    line = next(i for i, text in enumerate(broken.splitlines(), 1) if "delay=2" in text)
    visit.set_code(broken)
    visit.click("run", timeout=LOAD_MS)
    error = visit.widget().locator(".tryit__error")
    assert error.is_visible()
    assert "SyntaxError" in error.inner_text()
    assert 'File "client.py", line' in error.inner_text()
    assert visit.transcript()[-1].startswith("= error: SyntaxError: ")
    marked = visit.widget().locator(".cm-line.tryit-editor__marked")
    assert marked.count() == 1
    numbers = visit.widget().locator(".cm-lineNumbers .cm-gutterElement").all_inner_texts()
    assert marked.inner_text() in broken.splitlines()[line - 1 : line + 1]
    assert "SyntaxError" in visit.widget().locator(".tryit-editor__message").inner_text()
    assert str(line) in numbers
    # fixed: Step runs again, afresh, no error left
    visit.set_code(CLIENT)
    assert visit.button("step").is_enabled()
    visit.click("step")
    assert visit.transcript() == committed(RECIPE)[:1]
    assert error.is_hidden()
    assert visit.widget().locator(".tryit-editor__marked").count() == 0


def test_an_endless_loop_is_stopped_within_the_budget(fresh: Editing) -> None:
    visit = fresh
    looping = CLIENT.replace(
        '    r = client.get("/job/42")',
        '    while True:\n        pass\n    r = client.get("/job/42")',
    )
    assert looping != CLIENT
    visit.set_code(looping)
    started = time.monotonic()
    visit.click("run", timeout=30_000)
    assert time.monotonic() - started < 15  # the budget is 5 s of Python
    assert visit.widget().get_attribute("data-outcome") == "budget"
    assert "ran for 5 s without reaching its next request" in visit.status()
    # the widget works again: Reset, and the tested code runs to its end
    visit.click("reset")
    visit.click("run")
    assert visit.transcript() == committed(RECIPE)
    assert visit.widget().locator(".tryit__transcript li.tryit__differs").count() == 0


def test_reset_restores_the_tested_code_and_transcript(fresh: Editing) -> None:
    visit = fresh
    visit.set_code(CLIENT.replace("delay=2)", "delay=1)"))
    visit.click("step")
    visit.click("reset")
    assert visit.code() == CLIENT
    assert visit.transcript() == []
    assert visit.page.evaluate("(key) => localStorage.getItem(key)", KEY) is None
    assert visit.widget().get_attribute("data-edited") == "false"
    visit.click("run")
    assert visit.transcript() == committed(RECIPE)


def test_a_share_link_reproduces_the_edit_in_a_fresh_browser(
    fresh: Editing, chromium: Any, site_server: StaticServer
) -> None:
    edited = CLIENT.replace("delay=2)", "delay=1)")
    fresh.set_code(edited)
    fresh.context.grant_permissions(["clipboard-read", "clipboard-write"])
    fresh.widget().locator(".tryit__share").click()
    shown = fresh.widget().locator("input.tryit__link")
    shown.wait_for()
    link = shown.input_value()
    assert link.startswith(site_server.url + PAGE + "#tryit=resq-sync-poll.")
    assert fresh.page.evaluate("navigator.clipboard.readText()") == link
    assert "Link copied" in fresh.status()
    with Editing(chromium, site_server.url) as other:
        other.page.goto(link)
        other.page.wait_for_selector(".tryit .cm-editor")
        assert other.code() == edited
        notice = other.widget().locator(".tryit__edited")
        assert "This link carries edited code" in notice.inner_text()
        other.click("run", timeout=LOAD_MS)
        assert _times(other.transcript()) == ["t=0s", "t=1s", "t=2s", "t=3s"]
        # it offers the original
        notice.locator("button", has_text="Use the tested code").click()
        other.idle()
        assert other.code() == CLIENT
        assert not other.page.evaluate("location.hash").startswith("#tryit=")
        assert other.off_origin() == []
        assert other.errors == []


def test_the_editor_and_an_error_pass_axe_in_both_palettes(fresh: Editing) -> None:
    visit = fresh
    visit.set_code(CLIENT.replace("delay=2)", "delay=2"))
    visit.page.evaluate(tryit_visit.RECORD_ANNOUNCEMENTS)
    visit.click("run")
    said = visit.page.evaluate("globalThis.__said")
    assert len(said) == 1  # the run is announced once, its error with it
    assert "SyntaxError" in said[0]
    palette = "(scheme) => document.body.setAttribute('data-md-color-scheme', scheme)"
    try:
        for scheme in ("default", "slate"):  # light, dark
            visit.page.evaluate(palette, scheme)
            assert axe.violations(visit.page) == [], scheme
    finally:
        visit.page.evaluate(palette, "default")


def test_a_loop_python_cannot_stop_ends_the_worker_and_the_next_run_starts_anew(
    fresh: Editing,
) -> None:
    """One long call into C: no turn of the edited code's loops where Python's budget could
    stop it. The page ends the worker after 10 s; the next run starts a new one."""
    visit = fresh
    stuck = CLIENT.replace(
        '    r = client.get("/job/42")', '    sum(range(10**13))\n    r = client.get("/job/42")'
    )
    before = visit.page.evaluate_handle("globalThis.__tryitRuntime")
    visit.set_code(stuck)
    started = time.monotonic()
    visit.click("run", timeout=30_000)
    assert time.monotonic() - started < 20
    assert visit.widget().get_attribute("data-outcome") == "budget"
    assert "The edited code did not stop within 10 s" in visit.status()
    assert visit.state() == "done"  # not the fallback: the widget stays usable
    assert visit.button("run").is_enabled() is False  # until the code changes, or Reset
    visit.click("reset")
    visit.click("run", timeout=LOAD_MS)
    assert visit.transcript() == committed(RECIPE)
    assert visit.page.evaluate("(old) => old !== globalThis.__tryitRuntime", before)


def test_edits_are_kept_for_the_next_visit(fresh: Editing) -> None:
    visit = fresh
    edited = CLIENT.replace("delay=2)", "delay=1)")
    visit.set_code(edited)
    visit.goto(PAGE)  # a new page load
    visit.open_editor()
    assert visit.code() == edited
    notice = visit.widget().locator(".tryit__edited")
    assert "Your edited code, kept in this browser." in notice.inner_text()


def test_a_hedron_page_runs_its_edited_app(visit: Editing) -> None:
    """A page-driven recipe: app.py is the file to edit; its error ends the panel's run."""
    app = (ROOT / "recipes" / "jobs-poll" / "app.py").read_text(encoding="utf-8")
    visit.navigate("recipes/jobs-poll/")
    visit.open_editor()
    tabs = visit.widget().locator("[role=tab]").all_inner_texts()
    assert tabs == ["app.py", "advanced.py (read-only)"]
    broken = app + "\nthis is not python\n"
    visit.set_code(broken)
    visit.click("run")
    assert visit.transcript() == ["= error: NameError: name 'this' is not defined"]
    assert 'File "app.py", line' in visit.widget().locator(".tryit__error").inner_text()
    marked = visit.widget().locator(".cm-line.tryit-editor__marked")
    assert marked.inner_text() == "this is not python"
    visit.set_code(app + "\n# only a comment\n")  # the same app: the same run
    visit.click("run")
    assert visit.transcript() == committed("jobs-poll")
    assert visit.widget().locator(".tryit__transcript li.tryit__differs").count() == 0
    assert "differs" not in visit.status()
    visit.click("reset")


def test_no_request_leaves_the_origin(visit: Editing) -> None:
    assert visit.requests
    assert visit.off_origin() == []
    assert visit.errors == []


def _run_edited_page(visit: Editing, name: str, old: str, new: str) -> list[str]:
    """Run recipe ``name``'s app with ``old`` replaced by ``new``: its transcript."""
    app = (ROOT / "recipes" / name / "app.py").read_text(encoding="utf-8")
    assert old in app
    visit.navigate(f"recipes/{name}/")
    visit.open_editor()
    visit.set_code(app.replace(old, new, 1))
    visit.click("run", timeout=LOAD_MS)
    return visit.transcript()


def test_an_edited_poll_interval_shows_the_times_the_polls_came(visit: Editing) -> None:
    """taskflow polling every second: t=1s, t=2s, …, not rounded to the recipe's 2 s."""
    lines = _run_edited_page(visit, "taskflow", "poll_interval_ms=2000", "poll_interval_ms=1000")
    assert _times(lines) == ["t=0s", "t=0s", "t=1s", "t=2s", "t=3s", "t=4s", "t=5s"]
    assert lines[0] == 't=0s GET / -> 200 OK | page "TaskFlow"'  # the page, by its title
    assert lines[1] == "t=0s POST /tasks/resize -> 200 OK | #resize-flow: Queued… Cancel"
    for line in lines[2:-1]:  # each swap: the region it went into, and its text
        assert line.split(" | ")[1].startswith("#resize-status: "), line
    assert lines[-2].startswith("t=5s GET /tasks/resize/<id>/status -> 286 Stop Polling")
    assert lines[-1] == (
        "= done: terminal state, the app answered 286 at t=5s (htmx swaps it and stops polling)"
    )
    assert "differs from the tested run at step 3" in visit.status()
    visit.click("reset")


def test_an_edited_pages_scripted_click_shows_at_its_own_time(visit: Editing) -> None:
    """jobs-cancel clicks Cancel at 3 s: the tested run shows its poll slot (t=2s), an edited
    run the time it came."""
    assert any(" POST /tasks/export/<id>/cancel " in line for line in committed("jobs-cancel"))
    lines = _run_edited_page(visit, "jobs-cancel", '"""', '"""Edited. ')
    cancel = [line for line in lines if "/cancel " in line]
    assert len(cancel) == 1
    assert cancel[0].startswith("t=3s POST /tasks/export/<id>/cancel -> 200 OK | #export-status:")
    visit.click("reset")


def test_an_edited_app_that_raises_answers_500_and_the_page_polls_on(visit: Editing) -> None:
    """htmx does not swap a 5xx and keeps polling: the run reaches the app's 286, and the
    500's line names the error."""
    lines = _run_edited_page(
        visit,
        "poll-component",
        "    step = _checks[run]\n",
        "    step = _checks[run]\n"
        "    if step == 2:\n"
        "        raise RuntimeError('the database is down')\n",
    )
    assert lines == [
        't=0s GET / -> 200 OK | page "Poll component"',
        "t=1s GET /runs/1/status -> 200 OK | #run-status: Working… check 1 of 3 Progress 1/3",
        "t=2s GET /runs/1/status -> 500 Internal Server Error | #run-status not swapped: "
        "RuntimeError: the database is down",
        "t=3s GET /runs/1/status -> 286 Stop Polling | #run-status: Done after 3 checks",
        "= done: terminal state, the app answered 286 at t=3s (htmx swaps it and stops polling)",
    ]
    error = visit.widget().locator(".tryit__transcript li").nth(2)
    assert "RuntimeError: the database is down" in error.inner_text()  # shown as text
    frame = visit.widget().frame_locator(".tryit__frame")
    assert "Done after 3 checks" in frame.locator("body").inner_text()
    assert visit.errors == []
    visit.click("reset")
