"""The "Try it" widget in headless Chromium against the built site on 127.0.0.1.

One page (one Pyodide interpreter) serves every recipe test of this module: the tests move
between recipe pages with the theme's instant navigation, which also proves the interpreter
survives it. Every recipe is stepped to its end, Reset, and run again; both runs must give the
committed transcript (a hedron recipe's page runs in the widget's demo panel, its own htmx
sending the requests to the worker's in-process app).
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from docsite.testing.static_server import StaticServer
from tests._support.tryit_visit import IDLE, LOAD_MS, RECIPES, Visit, committed
from tryit import load_recipe

pytestmark = pytest.mark.browser


# Record what the loading widget shows: its progress bar's values and its status lines.
RECORD_PROGRESS = """() => {
  const widget = document.querySelector(".tryit");
  const bar = widget.querySelector(".tryit__progress");
  const seen = (globalThis.__progress = { values: [], indeterminate: 0, texts: [] });
  new MutationObserver(() => {
    if (!bar.hidden) {
      if (!bar.hasAttribute("value")) seen.indeterminate += 1;
      else if (seen.values.at(-1) !== bar.value) seen.values.push(bar.value);
    }
    const text = widget.querySelector(".tryit__status").textContent;
    if (seen.texts.at(-1) !== text) seen.texts.push(text);
  }).observe(widget, { subtree: true, childList: true, attributes: true, characterData: true });
}"""
STAGES = [
    "Downloading the Python runtime",
    "Starting Python",
    "Installing packages",
    "Importing the libraries",
    "Python ready",
]


@pytest.fixture(scope="module")
def visit(chromium: Any, site_server: StaticServer, built_site: Path) -> Iterator[Visit]:
    with Visit(chromium, site_server.url) as v:
        yield v


def test_nothing_of_the_runtime_loads_before_the_first_click(
    visit: Visit, site_server: StaticServer
) -> None:
    visit.goto(f"recipes/{RECIPES[0]}/")
    visit.page.wait_for_load_state("networkidle")
    # the worker is started while the page is idle, but loads nothing before the click
    visit.page.wait_for_function(
        "() => performance.getEntriesByType('resource')"
        ".some((entry) => entry.name.endsWith('/assets/tryit/worker.mjs'))"
    )
    assert not [url for url in visit.requests if "/_tryit/" in url]
    assert visit.state() == "idle"
    visit.page.evaluate(RECORD_PROGRESS)
    visit.click("step", timeout=LOAD_MS)
    assert visit.state() in ("running", "done")
    assert [u for u in visit.requests if "pyodide.asm.wasm" in u], "runtime loaded on click"
    # the progress bar only moves when the worker says how far it is (never animated)
    seen = visit.page.evaluate("globalThis.__progress")
    assert seen["indeterminate"] == 0
    values = seen["values"]
    assert values[0] == 0, values
    assert values == sorted(values), values
    assert values[-1] == 1, values
    texts = seen["texts"]
    first = [next((i for i, text in enumerate(texts) if text.startswith(s)), -1) for s in STAGES]
    assert -1 not in first, texts  # every stage ...
    assert first == sorted(first), texts  # ... in order
    assert visit.widget().locator(".tryit__progress").is_hidden()


@pytest.mark.parametrize("name", RECIPES)
def test_recipe_steps_to_the_committed_transcript_then_resets(visit: Visit, name: str) -> None:
    if not visit.page.url.startswith(visit.base_url):  # the first test of this run
        visit.goto(f"recipes/{name}/")
    elif f"/recipes/{name}/" not in visit.page.url:
        visit.navigate(f"recipes/{name}/")
    expected = committed(name)
    visit.click("reset")
    steps = 0
    while visit.state() != "done":
        visit.click("step", timeout=LOAD_MS)
        steps += 1
        assert steps <= len(expected), visit.transcript()
        assert visit.widget().get_attribute("aria-busy") == "false"
    assert visit.transcript() == expected
    assert visit.widget().locator("button[data-action='step']").is_disabled()
    assert visit.widget().locator("button[data-action='reset']").is_enabled()
    outcome = visit.widget().get_attribute("data-outcome")
    assert outcome in ("terminal", "window", "unfinished")
    assert ("terminal state" in expected[-1]) == (outcome == "terminal")
    panel = visit.widget().locator(".tryit__panel")
    assert panel.is_visible()
    if load_recipe(name).driver == "page":  # the app's own page, run by its htmx
        frame = visit.widget().locator(".tryit__frame")
        assert frame.get_attribute("title") == f"Demo app: {load_recipe(name).title}"
        shown = visit.widget().frame_locator(".tryit__frame").locator("body").inner_text()
    else:
        shown = panel.inner_text()
    assert shown.strip()

    visit.click("reset")
    assert visit.transcript() == []
    visit.click("run")
    assert visit.transcript() == expected
    assert visit.errors == []


def test_one_interpreter_for_the_whole_visit_and_no_request_off_origin(
    visit: Visit, site_server: StaticServer
) -> None:
    wasm = [url for url in visit.requests if "pyodide.asm.wasm" in url]
    assert [url.rsplit("/", 1)[1] for url in wasm] == ["pyodide.asm.wasm.gz"]  # inflated here
    # ... and only once: every recipe above ran in the same interpreter
    origin = urlsplit(site_server.url).netloc
    assert {urlsplit(url).netloc for url in visit.requests if url.startswith("http")} == {origin}
    # every wheel came in the bundle (pydantic-core's shared library too)
    assert not [url for url in visit.requests if url.endswith(".whl")]
    assert len([url for url in visit.requests if url.endswith("/site-packages.bin.gz")]) == 1


def _runs_without_the_bundle(visit: Visit) -> None:
    visit.goto("recipes/resq-async-poll/")
    visit.click("run", timeout=LOAD_MS)
    assert visit.transcript() == committed("resq-async-poll")
    wheels = {url.rsplit("/", 1)[1].split("-")[0] for url in visit.requests if url.endswith(".whl")}
    assert {"fastapi", "hedron", "resq", "tryit", "pydantic_core"} <= wheels
    assert visit.errors == []


def test_without_decompression_the_plain_files_and_every_wheel_are_used(
    chromium: Any, site_server: StaticServer, built_site: Path
) -> None:
    with Visit(chromium, site_server.url) as visit:  # a browser without DecompressionStream
        visit.page.add_init_script("globalThis.TRYIT_SIMULATE_NO_DECOMPRESSION = true")
        _runs_without_the_bundle(visit)
        assert not [url for url in visit.requests if url.endswith(".gz")]
        names = {url.rsplit("/", 1)[1] for url in visit.requests}
        assert {"pyodide.asm.wasm", "python_stdlib.zip"} <= names


def test_a_corrupted_bundle_is_refused_and_the_wheels_are_used(
    chromium: Any, site_server: StaticServer, built_site: Path
) -> None:
    with Visit(chromium, site_server.url) as visit:
        raw = gzip.decompress((built_site / "_tryit/pyodide/site-packages.bin.gz").read_bytes())
        tampered = gzip.compress(raw[:-1] + bytes([raw[-1] ^ 0xFF]))  # valid gzip, wrong bytes
        visit.page.route(
            "**/site-packages.bin.gz",
            lambda route: route.fulfill(status=200, body=tampered),
        )
        _runs_without_the_bundle(visit)


def test_widget_is_keyboard_operable_and_respects_reduced_motion(visit: Visit) -> None:
    visit.navigate(f"recipes/{RECIPES[0]}/")
    visit.page.emulate_media(reduced_motion="reduce", color_scheme="dark")
    step = visit.widget().locator("button[data-action='step']")
    step.focus()
    visit.page.keyboard.press("Enter")
    visit.page.wait_for_function(f"() => ({IDLE})(document.querySelector('.tryit'))")
    assert len(visit.transcript()) >= 1
    animation = visit.page.eval_on_selector(
        ".tryit__transcript li", "el => getComputedStyle(el).animationName"
    )
    assert animation == "none"
    live = visit.widget().locator(".tryit__live")  # the one live region (test_tryit_a11y.py)
    assert live.get_attribute("role") == "status"
    # keyboard only: Run to end, then focus is on Reset (Step and Run are disabled at the end)
    visit.widget().locator("button[data-action='run']").focus()
    visit.page.keyboard.press("Enter")
    visit.page.wait_for_function(f"() => ({IDLE})(document.querySelector('.tryit'))")
    assert visit.page.evaluate("document.activeElement.dataset.action") == "reset"
    visit.page.keyboard.press("Enter")
    visit.page.wait_for_function(f"() => ({IDLE})(document.querySelector('.tryit'))")
    assert visit.transcript() == []


def test_gz_files_a_server_marks_content_encoding_gzip_are_not_inflated_twice(
    chromium: Any, built_site: Path
) -> None:
    # Some servers label .gz files "Content-Encoding: gzip": the browser then inflates them.
    with StaticServer(built_site, gz_labelled=True) as server, Visit(chromium, server.url) as visit:
        said: list[str] = []
        visit.page.on("console", lambda m: m.type in ("error", "warning") and said.append(m.text))
        visit.goto("recipes/resq-async-poll/")
        visit.click("run", timeout=LOAD_MS)
        assert visit.transcript() == committed("resq-async-poll")
        assert not [url for url in visit.requests if "/fastapi-" in url]  # the bundle was used
        # the wasm, its JavaScript, the standard library, pydantic-core's library, the bundle
        assert len([url for url in visit.requests if url.endswith(".gz")]) == 5
        # ... each taken as it arrived: no file fell back to its plain copy, none failed
        assert said == []
        assert visit.errors == []


def test_wasm_served_with_a_wrong_type(chromium: Any, built_site: Path) -> None:
    # Pyodide itself would hang without an error. The compressed copy sidesteps the server's
    # type; without DecompressionStream the widget says why and shows the record.
    with StaticServer(built_site, mime_types={".wasm": "application/octet-stream"}) as server:
        with Visit(chromium, server.url) as visit:
            visit.goto(f"recipes/{RECIPES[0]}/")
            visit.click("run", timeout=LOAD_MS)
            assert visit.state() == "done"
            assert visit.transcript() == committed(RECIPES[0])
        with Visit(chromium, server.url) as visit:
            visit.page.add_init_script("globalThis.TRYIT_SIMULATE_NO_DECOMPRESSION = true")
            visit.goto(f"recipes/{RECIPES[0]}/")
            visit.click("step", timeout=LOAD_MS)
            assert visit.state() == "fallback"
            assert visit.transcript() == committed(RECIPES[0])
            status = visit.widget().locator(".tryit__status").inner_text()
            assert "recorded by the test suite" in status
            assert 'pyodide.asm.wasm as "application/octet-stream"' in status


def test_sync_recipe_without_jspi_shows_the_recorded_transcript_and_says_why(
    chromium: Any, site_server: StaticServer, built_site: Path
) -> None:
    with Visit(chromium, site_server.url) as visit:
        visit.page.add_init_script("globalThis.TRYIT_SIMULATE_NO_JSPI = true")
        visit.goto("recipes/resq-sync-poll/")
        visit.click("step", timeout=LOAD_MS)
        assert visit.state() == "fallback"
        assert visit.transcript() == committed("resq-sync-poll")
        assert "no JSPI" in visit.widget().locator(".tryit__status").inner_text()
        # an async recipe needs no JSPI: it still runs, in the same interpreter
        visit.navigate("recipes/resq-async-poll/")
        visit.click("run")
        assert visit.transcript() == committed("resq-async-poll")
