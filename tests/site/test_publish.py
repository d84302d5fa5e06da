"""The published site on a plain static host under a path (docs/maintainers/publishing.md).

``SITE_URL=http://127.0.0.1:PORT/sub/ scripts/build OUT/sub`` runs once for the module, where
Chromium cannot run; ``python -m http.server`` (a real process on a free loopback port) serves
``OUT``: no special MIME set-up, no precompressed files. Then a reader's visit in Chromium:
instant navigation keeps the page's JavaScript across link clicks, a resq and a hedron Try-it
run to their end (the committed transcripts), search finds a recipe, the gallery and the 404
page are styled, and the page's download command works. No response is a 404 (the server's
own log says so too), no request leaves the origin, and no built file names the preview's
address. The same build from a host that compresses on the fly with gzip only: a Try-it runs
there too.
"""

from __future__ import annotations

import gzip
import html
import re
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from docsite.paths import REPO
from docsite.testing.static_server import StaticServer
from tests._support.broken_chromium import POSSIBLE, without_chromium
from tests._support.tryit_visit import LOAD_MS, Visit, committed

pytestmark = [
    pytest.mark.slow,  # scripts/build, the whole site
    pytest.mark.skipif(
        not POSSIBLE, reason="needs root's unshare to put a broken Chromium in place"
    ),
    pytest.mark.timeout(900),
]

PREVIEW = b"127.0.0.1:8008"  # the local preview's address (scripts/serve)
SUB = "sub/"
RESQ, HEDRON = "resq-async-poll", "jobs-poll"  # a Try-it of each library
BUILD_TIMEOUT_S = 600


@dataclass(frozen=True)
class Published:
    url: str  #: the site's address, ``http://127.0.0.1:PORT/sub/``
    root: Path  #: ``OUT/sub``
    output: list[str]  #: what scripts/build printed
    log: Path  #: the server's request log


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Published]:
    out = tmp_path_factory.mktemp("host")
    log = tmp_path_factory.mktemp("log") / "http.server.log"
    command = [sys.executable, "-I", "-u", "-m", "http.server", "--bind", "127.0.0.1"]
    with log.open("w") as requests:
        server = subprocess.Popen(
            [*command, "--directory", str(out), "0"],  # port 0: the system picks a free one
            stdout=subprocess.PIPE,
            stderr=requests,
            text=True,
        )
    try:
        assert server.stdout is not None
        first = server.stdout.readline()  # "Serving HTTP on 127.0.0.1 port N (...) ..."
        found = re.search(r" port (\d+) ", first)
        assert found, f"http.server did not start: {first!r}"
        url = f"http://127.0.0.1:{found.group(1)}/{SUB}"
        result = without_chromium(
            tmp_path_factory.mktemp("broken"),
            [str(REPO / "scripts" / "build"), str(out / SUB)],
            timeout=BUILD_TIMEOUT_S,
            SITE_URL=url,
            TRYIT_PREPARED="0",
            TRYIT_SKIP_RUNTIME="0",
        )
        assert result.returncode == 0, result.stdout + result.stderr[-3000:]
        yield Published(url, out / SUB, (result.stdout + result.stderr).splitlines(), log)
    finally:
        server.terminate()
        server.wait(timeout=10)
        if server.stdout is not None:
            server.stdout.close()


def test_the_build_prints_only_its_three_lines(published: Published) -> None:
    """A clean build says nothing that needs no action (the runtime and the editor come from
    the cache; the last line names the address and the folder)."""
    runtime, editor, done = published.output
    assert runtime.startswith("runtime ready in ")
    assert editor.startswith("editor ready in ")
    assert done.startswith(f"scripts/build: the site for {published.url} is in {published.root}")


def _contents(path: Path) -> Iterator[tuple[str, bytes]]:
    """A built file's bytes, and those inside it when it is a ``.tar.gz`` or a ``.gz``."""
    data = path.read_bytes()
    yield path.name, data
    if path.name.endswith(".tar.gz"):
        with tarfile.open(path) as archive:
            for member in archive.getmembers():
                handle = archive.extractfile(member)
                if handle is not None:
                    yield f"{path.name}:{member.name}", handle.read()
    elif path.suffix == ".gz":
        yield f"{path.name} (inflated)", gzip.decompress(data)


def test_no_built_file_names_the_preview_address(published: Published) -> None:
    named = [
        f"{path.relative_to(published.root)}: {what}"
        for path in sorted(published.root.rglob("*"))
        if path.is_file()
        for what, data in _contents(path)
        if PREVIEW in data
    ]
    assert named == []
    # the address it was built for is where the addresses come from
    assert published.url.encode() in (published.root / "sitemap.xml").read_bytes()
    script = (published.root / "download_example.py").read_text()
    assert f'DEFAULT_BASE_URL = "{published.url}"' in script


def _download_block(page: str) -> str:
    """The "Download and install" block of a built recipe page, as text."""
    found = re.search(
        r'<span class="filename">Download and install</span>\s*<pre>(.*?)</pre>', page, re.S
    )
    assert found, "no Download and install block"
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


def test_the_pages_download_command_works_and_names_the_site(
    published: Published, tmp_path: Path
) -> None:
    page = (published.root / "recipes" / HEDRON / "index.html").read_text(encoding="utf-8")
    block = _download_block(page)
    download = block.split(" \\\n  && cd ", 1)[0]  # the venv and pip are the e2e tests'
    assert download.count(published.url) == 2  # the script's address, then --base-url
    proc = subprocess.run(
        ["bash", "-s"], input=download + "\n", cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert f"{HEDRON}: " in proc.stdout
    assert f" files from {published.url} in {HEDRON}/" in proc.stdout
    assert (tmp_path / HEDRON / "app.py").read_bytes() == (
        REPO / "recipes" / HEDRON / "app.py"
    ).read_bytes()


class Reader(Visit):
    """A visit that also records every response's status and every failed request."""

    def __init__(self, browser: Any, base_url: str) -> None:
        super().__init__(browser, base_url)
        self.statuses: list[tuple[int, str]] = []
        self.failed: list[str] = []
        self.context.on("response", lambda r: self.statuses.append((r.status, r.url)))
        self.context.on("requestfailed", lambda r: self.failed.append(f"{r.url}: {r.failure}"))


@pytest.fixture(scope="module")
def reader(chromium: Any, published: Published) -> Iterator[Reader]:
    with Reader(chromium, published.url) as visit:
        yield visit


def _same_document(reader: Reader) -> None:
    assert reader.page.evaluate("window.__sameDocument") == 1, "the page was reloaded"


@pytest.mark.browser
def test_a_resq_try_it_runs_to_its_end(reader: Reader) -> None:
    reader.goto(f"recipes/{RESQ}/")
    reader.click("run", timeout=LOAD_MS)
    assert reader.state() == "done"
    assert reader.transcript() == committed(RESQ)
    assert reader.widget().get_attribute("data-outcome") == "terminal"


@pytest.mark.browser
def test_instant_navigation_keeps_the_page_and_a_hedron_try_it_runs(reader: Reader) -> None:
    reader.navigate(f"recipes/{HEDRON}/")  # a link click; asserts the same document
    reader.click("run", timeout=LOAD_MS)
    assert reader.state() == "done"
    assert reader.transcript() == committed(HEDRON)
    assert reader.widget().get_attribute("data-outcome") == "terminal"
    _same_document(reader)  # one interpreter for both: it was not started again
    wasm = [url for url in reader.requests if "pyodide.asm.wasm" in url]
    assert len(wasm) == 1, wasm


@pytest.mark.browser
def test_search_finds_a_recipe_and_its_link_navigates_in_place(
    reader: Reader, published: Published
) -> None:
    page = reader.page
    page.locator("label.md-search__icon, .md-search__input").first.click()
    page.locator("input.md-search__input").press_sequentially("backoff")  # typed, as a reader
    hit = page.locator(".md-search-result__item a[href*='recipes/resq-backoff/']").first
    hit.wait_for(timeout=30_000)
    hit.click()
    page.wait_for_url(re.compile(re.escape(f"{published.url}recipes/resq-backoff/")))
    page.wait_for_selector(".tryit[data-state='idle']")
    _same_document(reader)


@pytest.mark.browser
def test_the_gallery_is_styled_and_its_previews_are_inert(reader: Reader) -> None:
    reader.navigate("hedron/components/link/")  # a link click; asserts the same document
    reader.page.wait_for_selector(".hedron-preview .h-link")
    styles = reader.page.evaluate(
        """() => ({
            preview: getComputedStyle(document.querySelector(".hedron-preview")).backgroundColor,
            href: document.querySelector(".hedron-preview .h-link").getAttribute("href"),
        })"""
    )
    assert styles == {"preview": "rgb(255, 255, 255)", "href": None}


@pytest.mark.browser
def test_the_404_page_is_styled_under_the_path(chromium: Any, published: Published) -> None:
    """Served for a missing page at any depth (a host that serves ``404.html``), it still finds
    its stylesheet: its addresses start at the site's path."""
    context = chromium.new_context()
    try:
        page = context.new_page()
        statuses: list[tuple[int, str]] = []
        page.on("response", lambda r: statuses.append((r.status, r.url)))
        body = (published.root / "404.html").read_text(encoding="utf-8")
        deep = f"{published.url}no/such/page/"
        page.route(
            deep, lambda route: route.fulfill(status=404, body=body, content_type="text/html")
        )
        page.goto(deep)
        page.wait_for_load_state("networkidle")
        header = page.evaluate("getComputedStyle(document.querySelector('.md-header')).position")
        assert header == "sticky"  # the theme's stylesheet is applied
        assert [s for s in statuses if s[0] >= 400 and s[1] != deep] == []
    finally:
        context.close()


@pytest.mark.browser
def test_nothing_was_missing_and_nothing_left_the_origin(
    reader: Reader, published: Published
) -> None:
    """Over the whole visit above: every response found, every request to the site itself."""
    origin = urlsplit(published.url).netloc
    assert [s for s in reader.statuses if s[0] >= 400] == []
    assert reader.failed == []
    assert {urlsplit(u).netloc for u in reader.requests if u.startswith("http")} == {origin}
    assert reader.errors == []
    served = published.log.read_text(encoding="utf-8")
    assert '" 404 ' not in served, [line for line in served.splitlines() if '" 404 ' in line]
    assert f"GET /{SUB}_tryit/pyodide/pyodide.asm.wasm.gz " in served  # the log is this host's


@pytest.mark.browser
def test_a_gzip_only_host_serves_the_same_build(chromium: Any, published: Published) -> None:
    """Pages, scripts and JSON gzipped on the fly, no brotli, the ``.gz`` copies as they are."""
    with StaticServer(published.root.parent, gzip=True) as host:
        url = f"{host.url}{SUB}"
        with Reader(chromium, url) as visit:
            encodings: list[str] = []
            visit.page.on(
                "response",
                lambda r: (
                    r.url == url + f"recipes/{RESQ}/"
                    and encodings.append(r.headers.get("content-encoding", ""))
                ),
            )
            visit.goto(f"recipes/{RESQ}/")
            visit.click("run", timeout=LOAD_MS)
            assert visit.transcript() == committed(RESQ)
            assert [s for s in visit.statuses if s[0] >= 400] == []
            assert visit.errors == []
    assert encodings == ["gzip"]  # the page came compressed: the host did compress
