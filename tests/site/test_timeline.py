"""Every recipe's tested run drawn at build time (``docsite.pages.timelines``, which runs the
page's own ``timeline.mjs`` under Node): the drawing read back as XML and held to the
transcript. The live drawing in "Try it" is tested in ``test_tryit_timeline.py``."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from docsite.pages import timelines
from tests._support import timeline as tl
from tryit.recipe import Recipe, load_recipes

RECIPES = {r.name: r for r in load_recipes() if r.transcript_path.is_file()}
KIND = {286: "tl-stop", 200: "tl-ok", 201: "tl-ok", 503: "tl-retry", 409: "tl-retry"}


@pytest.fixture(scope="module")
def drawn() -> dict[str, timelines.Timeline]:
    return timelines.draw(list(RECIPES.values()))


def _lines(recipe: Recipe) -> list[str]:
    return recipe.transcript_path.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_each_request_is_a_mark_at_its_time_with_its_method_and_status(
    drawn: dict[str, timelines.Timeline], name: str
) -> None:
    recipe = RECIPES[name]
    lines = _lines(recipe)
    root = tl.parse(drawn[name].svg)
    [lane] = tl.lanes(root)
    marks = tl.marks(lane)
    assert [(m.t, m.method, m.status) for m in marks] == tl.requests(lines)
    for mark in marks:  # coloured by what the answer means to a poller
        if mark.status in KIND:
            assert KIND[mark.status] in mark.classes, mark
        else:  # a 403: an error
            assert "tl-error" in mark.classes, mark
        # a page's reader clicks (its POSTs) are marks of their own; a client has none
        clicks = recipe.driver == "page" and mark.method != "GET"
        assert ("tl-click" in mark.classes) == clicks, mark
    ended = tl.end(lane)
    assert ended is not None
    assert float(ended.get("data-t", "nan")) == tl.end_time(lines)
    # the text alternative: a summary as its name, the transcript as its description
    assert root.get("role") == "img"
    assert root.findtext(f"{tl.SVG}title", "").startswith(f"Timeline: {len(marks)} request")
    assert root.findtext(f"{tl.SVG}desc") == "Tested run:\n" + "\n".join(lines)


@pytest.mark.parametrize(
    ("name", "window", "on_scale", "end"),
    [
        ("resq-raise-on-timeout", 6, True, "window elapsed (503)"),  # timeout=6 in its code
        ("resq-max-attempts", 60, False, "gave up on 503"),  # max_attempts=3, long before
        ("resq-backoff", 60, False, "success"),
        ("jobs-cancel", 30, False, "286: stopped polling"),  # its [demo] window
        ("csrf-action", None, False, "success"),  # no polling call: no window
    ],
)
def test_the_window_and_what_ended_the_run_are_marked(
    drawn: dict[str, timelines.Timeline], name: str, window: int | None, on_scale: bool, end: str
) -> None:
    [lane] = tl.lanes(tl.parse(drawn[name].svg))
    assert drawn[name].window == window
    mark = tl.window(lane)
    if window is None:
        assert mark is None
    else:
        assert mark is not None
        assert mark.get("data-window") == str(window)
        assert tl.text(mark).startswith(f"window {window} s")
        # near the run, a line on the scale; far beyond it, a label pointing right
        assert (mark.tag == f"{tl.SVG}g") == on_scale
    ended = tl.end(lane)
    assert ended is not None
    assert ended.get("data-end") == end


def test_waits_between_polls_are_labelled_with_their_length(
    drawn: dict[str, timelines.Timeline],
) -> None:
    [lane] = tl.lanes(tl.parse(drawn["resq-backoff"].svg))
    waits = [
        tl.text(g) for g in lane.iter(f"{tl.SVG}g") if g.get("class") == "tl-wait"
    ]  # delay=1, backoff=2, max_delay=4
    assert waits == ["+1 s", "+2 s", "+4 s", "+4 s", "+4 s"]


def test_text_from_a_run_is_escaped_and_never_markup() -> None:
    hostile = '<script>alert("x")</script> & </svg>'
    lines = [
        f't=0s GET /a<b>&"c -> 503 Service Unavailable | {hostile}',
        f"> {hostile}",
        f"= error: Boom<i>: {hostile}",
    ]
    job = {"name": "x", "lines": lines, "page": False, "window": None, "code": None}
    svg = timelines.render([job])["x"].svg
    root = tl.parse(svg)  # well-formed: nothing broke out
    assert not list(root.iter(f"{tl.SVG}script"))
    assert root.findtext(f"{tl.SVG}desc") == "Tested run:\n" + "\n".join(lines)
    [lane] = tl.lanes(root)
    assert [(m.t, m.method, m.status) for m in tl.marks(lane)] == [(0.0, "GET", 503)]
    ended = tl.end(lane)
    assert ended is not None
    assert ended.get("data-end") == "error: Boom"


def test_times_may_be_decimals_and_the_text_after_the_bar_is_not_read() -> None:
    lines = [
        "t=0s GET /job -> 503 Service Unavailable | -> 200 OK",
        "t=2.5s GET /job -> 200 OK",
        "= done: terminal state, 200 OK at t=2.5s",
    ]
    job = {"name": "x", "lines": lines, "page": False, "window": None, "code": None}
    [lane] = tl.lanes(tl.parse(timelines.render([job])["x"].svg))
    assert [(m.t, m.status) for m in tl.marks(lane)] == [(0.0, 503), (2.5, 200)]


def test_an_unchanged_build_starts_no_node(
    drawn: dict[str, timelines.Timeline], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(timelines.shutil, "which", lambda name: None)
    assert timelines.draw(list(RECIPES.values())) == drawn  # from the cache
    changed = {"name": "x", "lines": ["t=0s GET / -> 200 OK"], "page": False}
    with pytest.raises(RuntimeError, match=r"Node\.js is needed"):
        timelines.render([{**changed, "window": None, "code": None}])


def test_every_recipe_page_shows_its_timeline(built_site: Path) -> None:
    for name, recipe in RECIPES.items():
        page = (built_site / "recipes" / name / "index.html").read_text(encoding="utf-8")
        found = re.search(r'<div class="tryit-timeline"[^>]*>(<svg .*?</svg>)</div>', page, re.S)
        assert found, name
        [lane] = tl.lanes(tl.parse(found[1]))
        assert len(tl.marks(lane)) == len(tl.requests(_lines(recipe))), name


def test_requests_of_one_moment_sit_side_by_side_under_one_bracket(
    drawn: dict[str, timelines.Timeline],
) -> None:
    [lane] = tl.lanes(tl.parse(drawn["csrf-action"].svg))  # five requests, all at t=0s
    same = [tl.text(g) for g in lane.iter(f"{tl.SVG}g") if g.get("class") == "tl-same"]
    assert same == ["at 0 s"]
    group = next(g for g in lane.iter(f"{tl.SVG}g") if g.get("class") == "tl-marks")
    xs = [float(c.get("cx", "nan")) for c in group.iter(f"{tl.SVG}circle")]
    assert len(xs) == 5
    assert all(b - a >= 34 for a, b in itertools.pairwise(xs))  # labels never overlap


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_the_labels_under_the_axis_never_run_into_each_other(
    drawn: dict[str, timelines.Timeline], name: str
) -> None:
    """The waits' and the moments' labels share a row: each keeps clear of its neighbours
    (resq-exhaustion's last wait and its two requests at 30 s once read "+2 sat 30 s")."""
    root = tl.parse(drawn[name].svg)
    [lane] = tl.lanes(root)
    row = sorted(
        (float(t.get("x", "nan")), tl.text(t))
        for g in lane.iter(f"{tl.SVG}g")
        if g.get("class") in ("tl-wait", "tl-same")
        for t in g.iter(f"{tl.SVG}text")
    )
    assert row, name
    spans = [(x - len(s) * tl.CHAR_W / 2, x + len(s) * tl.CHAR_W / 2, s) for x, s in row]
    for (_, right, one), (left, _, other) in itertools.pairwise(spans):
        assert right <= left, f"{name}: {one!r} runs into {other!r}"
