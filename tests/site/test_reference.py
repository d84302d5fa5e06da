"""The API reference: one entry per public object, no wall of a page, real defaults, and
guides that link to the entries they mention."""

from __future__ import annotations

import html
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from docsite.griffe import overloads as griffe_overloads
from docsite.pages import links as guide_links
from docsite.pages import reference as reference_pages

ROOT = Path(__file__).resolve().parents[2]
MODULES = reference_pages.modules(ROOT)


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def _heading_ids(built_site: Path) -> Counter[str]:
    ids: Counter[str] = Counter()
    for page in (built_site / "reference").rglob("index.html"):
        ids.update(re.findall(r'id="([\w.]+)" class="doc doc-heading"', page.read_text("utf-8")))
    return ids


def test_every_public_object_has_exactly_one_entry(built_site: Path) -> None:
    ids = _heading_ids(built_site)
    own = [e.identifier for m in MODULES for e in m.own]
    assert len(own) == len(set(own))
    for identifier in own:
        assert ids[identifier] == 1, identifier
    for module in MODULES:  # a re-export is a link to the entry, never a second entry
        for entry in module.reexports:
            assert ids[f"{module.path}.{entry.name}"] == 0, (module.path, entry.name)
    assert ids["hedron_core.components.Poll"] == 1
    assert ids["hedron_core.Poll"] == 0
    assert ids["hedron.Poll"] == 0
    assert ids["hedron.jobs.JobScope"] == 0  # at home in hedron_core.jobs
    assert ids["hedron_core.jobs.JobScope"] == 1


def test_every_export_of_every_public_module_is_documented_or_linked() -> None:
    for module in MODULES:
        names = {e.name for e in [*module.own, *module.reexports]}
        exported = {
            n for n in __import__(module.path, fromlist=["_"]).__all__ if not n.startswith("__")
        }
        assert names == exported, module.path


def test_no_reference_page_is_a_wall() -> None:
    for module in MODULES:
        for group, entries in module.groups().items():
            if len({e.group for e in module.own}) > 1:  # objects from several files: split
                assert len(entries) <= reference_pages.GROUP_OVER, (module.path, group)
    pages = reference_pages.pages(ROOT)
    assert "reference/hedron_core/components/live.md" in pages
    assert "::: hedron_core.components.Poll" in pages["reference/hedron_core/components/live.md"]
    assert "::: hedron_core.components.Poll" not in pages["reference/hedron_core/index.md"]


def test_signatures_show_real_defaults(built_site: Path) -> None:
    page = built_site / "reference" / "resq" / "http" / "poller" / "index.html"
    http = _text(page.read_text("utf-8"))
    assert "backoff: float = 1.0" in http
    assert "raise_on_timeout: bool = False" in http
    for page in (built_site / "reference").rglob("index.html"):
        assert not re.search(r"= \.\.\.[,)\n]", _text(page.read_text("utf-8"))), page


def test_overload_defaults_come_from_the_implementation() -> None:
    import griffe

    loader = griffe.GriffeLoader(search_paths=[str(ROOT / "src" / "resq")])
    package = loader.load("resq")
    poll = package["_poller"].members["poll"]
    assert str(poll.overloads[0].parameters["backoff"].default) == "..."
    griffe_overloads.fill_overload_defaults(poll)
    for overload in poll.overloads:
        assert str(overload.parameters["backoff"].default) == "1.0"
        assert str(overload.parameters["timeout"].default) == "None"  # required: unchanged


def test_mentions_link_once_and_never_in_code_or_headings() -> None:
    names = {
        "poll": "resq.http.poll",
        "resq.http": "resq.http",
        "Poller.step": "resq.http.Poller.step",
    }
    text = "\n".join(
        [
            "# About `poll`",
            "Use `poll` or `poll()`, see `resq.http` and `Poller.step`.",
            "Again `poll`, and `poll(r, 1, 2)`, and [`poll`](x.md).",
            "```python",
            "`poll`",
            "```",
        ]
    )
    out = guide_links.link_mentions(text, names).split("\n")
    assert out[0] == "# About `poll`"
    assert out[1] == (
        "Use [`poll`][resq.http.poll] or `poll()`, see [`resq.http`][resq.http] and"
        " [`Poller.step`][resq.http.Poller.step]."
    )
    assert out[2] == "Again `poll`, and `poll(r, 1, 2)`, and [`poll`](x.md)."
    assert out[4] == "`poll`"


GUIDES = sorted(
    p.relative_to(ROOT / "docs").as_posix()
    for folder in ("resq", "hedron")
    for p in (ROOT / "docs" / folder).glob("*.md")
)


@pytest.mark.parametrize("guide", GUIDES)
def test_guides_link_to_the_entries_they_mention(built_site: Path, guide: str) -> None:
    library = guide.split("/", 1)[0]
    names = reference_pages.identifiers(ROOT)[library]
    page = (built_site / guide.removesuffix(".md") / "index.html").read_text("utf-8")
    article = page.split("<article", 1)[1].split("</article>", 1)[0]
    # prose only: not code blocks, headings, or code already inside a link (the gallery's)
    prose = re.sub(r"<pre.*?</pre>|<h\d.*?</h\d>|<a\b.*?</a>", "", article, flags=re.S)
    mentioned = {
        names[c] for c in re.findall(r"<code>([\w.]+)(?:\(\))?</code>", prose) if c in names
    }
    linked = set(re.findall(r'href="[^"]*reference/[^"]*#([\w.]+)"', article))
    assert mentioned <= linked, sorted(mentioned - linked)


def _summaries(root: Path) -> dict[str, str]:
    return {doc.path: doc.summary for doc in reference_pages.modules(root)}


def test_the_reference_is_read_again_only_when_a_library_source_changes(tmp_path: Path) -> None:
    """`mkdocs serve` keeps what griffe read across rebuilds: an edit to a recipe or a page
    reuses it, an edit to a library's source is shown at the next rebuild."""
    for folder, _ in reference_pages.PACKAGES.values():
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("*.pyc"))
    (tmp_path / "recipes").mkdir()
    reference_pages.refresh(tmp_path)
    before = _summaries(tmp_path)
    (tmp_path / "recipes" / "client.py").write_text("# an edit elsewhere\n", encoding="utf-8")
    assert reference_pages.refresh(tmp_path) is False
    assert reference_pages.modules(tmp_path) is reference_pages.modules(tmp_path)
    init = tmp_path / "src" / "resq" / "resq" / "__init__.py"
    old = before["resq"]
    init.write_text(init.read_text("utf-8").replace(old, "resq, edited."), encoding="utf-8")
    assert _summaries(tmp_path)["resq"] == old  # what was read is kept until the next build
    assert reference_pages.refresh(tmp_path) is True
    assert _summaries(tmp_path)["resq"] == "resq, edited."
    assert reference_pages.refresh(tmp_path) is False
