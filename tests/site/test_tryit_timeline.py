"""The timeline in "Try it", live: it grows with each Step and with Run to end, an edited run
is drawn under the tested one, Reset brings back the tested run. Headless Chromium on the
built site; the drawing is read back as XML and held to the widget's transcript. (The
drawing every page shows without JavaScript: ``test_timeline.py``.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from docsite.testing.static_server import StaticServer
from tests._support import timeline as tl
from tests._support.tryit_visit import LOAD_MS, ROOT, Visit, committed
from tests.site.test_tryit_edit import SET_TEXT

pytestmark = pytest.mark.browser

SVG = """() => new XMLSerializer().serializeToString(
  document.querySelector('.tryit .tryit-timeline svg'))"""
DRAWN = "() => document.querySelector('.tryit .tryit-timeline').dataset.drawn || 'tested'"
HEIGHT = "() => document.querySelector('.tryit .tryit-timeline').getBoundingClientRect().height"


@pytest.fixture(scope="module")
def visit(chromium: Any, site_server: StaticServer, built_site: Path) -> Iterator[Visit]:
    with Visit(chromium, site_server.url) as v:
        yield v


def _lanes(visit: Visit) -> list[Any]:
    return tl.lanes(tl.parse(str(visit.page.evaluate(SVG))))


def _titles(visit: Visit) -> list[str]:
    return [lane.get("data-title", "") for lane in _lanes(visit)]


def _seen(lane: Any) -> list[tuple[float, str, int]]:
    return [(m.t, m.method, m.status) for m in tl.marks(lane)]


@pytest.mark.recipes("resq-backoff")
def test_each_step_adds_the_mark_of_its_request(visit: Visit) -> None:
    name = "resq-backoff"
    visit.goto(f"recipes/{name}/")
    [tested] = _lanes(visit)  # the page's own drawing, before any run
    assert tested.get("data-title") == "Tested run"
    assert _seen(tested) == tl.requests(committed(name))
    height = visit.page.evaluate(HEIGHT)
    steps = 0
    while not visit.button("step").is_disabled():
        visit.click("step", timeout=LOAD_MS)
        steps += 1
        lines = visit.transcript()
        [lane] = _lanes(visit)
        assert lane.get("data-title") == "This run"
        assert _seen(lane) == tl.requests(lines)  # one more mark, at its time, per Step
        assert len(tl.marks(lane)) == steps
        ghost = next(g for g in lane.iter(f"{tl.SVG}g") if g.get("class") == "tl-ghost")
        assert len(list(ghost)) == len(tl.requests(committed(name)))  # what is still to come
        assert visit.page.evaluate(HEIGHT) == height  # nothing below moves as it grows
    ended = tl.end(lane)
    assert ended is not None
    assert float(ended.get("data-t", "nan")) == tl.end_time(committed(name)) == 15
    assert ended.get("data-end") == "success"
    visit.click("reset")
    assert _titles(visit) == ["Tested run"]
    assert visit.page.evaluate(DRAWN) == "tested"


@pytest.mark.recipes("jobs-cancel")
def test_a_page_run_to_the_end_shows_the_readers_clicks_then_reset_clears_it(
    visit: Visit,
) -> None:
    name = "jobs-cancel"
    visit.goto(f"recipes/{name}/")
    visit.click("run", timeout=LOAD_MS)
    assert visit.transcript() == committed(name)
    [lane] = _lanes(visit)
    assert _seen(lane) == tl.requests(committed(name))
    clicks = [(m.t, m.method) for m in tl.marks(lane) if "tl-click" in m.classes]
    assert clicks == [(0, "POST"), (2, "POST")]  # submit, then Cancel
    assert [m.status for m in tl.marks(lane) if "tl-stop" in m.classes] == [286]
    ended = tl.end(lane)
    assert ended is not None
    assert ended.get("data-end") == "286: stopped polling"
    window = tl.window(lane)
    assert window is not None
    assert window.get("data-window") == "30"  # its [demo] window
    visit.click("reset")
    assert visit.transcript() == []
    assert _titles(visit) == ["Tested run"]
    assert visit.page.evaluate(DRAWN) == "tested"
    assert visit.errors == []


@pytest.mark.recipes("resq-sync-poll")
def test_an_edited_run_is_drawn_under_the_tested_one(visit: Visit) -> None:
    name = "resq-sync-poll"
    visit.goto(f"recipes/{name}/")
    visit.click("edit")
    visit.page.wait_for_selector(".tryit .cm-editor")
    code = (ROOT / "recipes" / name / "client.py").read_text(encoding="utf-8")
    assert "timeout=30, delay=2" in code
    visit.page.evaluate(SET_TEXT, code.replace("timeout=30, delay=2", "timeout=20, delay=1"))
    visit.click("run", timeout=LOAD_MS)
    lines = visit.transcript()
    assert _titles(visit) == ["Tested run", "Edited run"]
    tested, edited = _lanes(visit)
    assert _seen(tested) == tl.requests(committed(name))
    assert _seen(edited) == tl.requests(lines)
    assert [m.t for m in tl.marks(edited)] == [0, 1, 2, 3]  # 1 s apart
    window = tl.window(edited)
    assert window is not None
    assert window.get("data-window") == "20"  # read from the edited code
    assert visit.page.evaluate(DRAWN) == "edited"
    visit.click("reset")
    assert _titles(visit) == ["Tested run"]
