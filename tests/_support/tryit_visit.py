"""A reader's visit to the built site in headless Chromium, for the "Try it" browser tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tryit.recipe import load_recipes

ROOT = Path(__file__).resolve().parents[2]
#: Every recipe with a "Try it" (a recorded transcript, and no ``[real]`` table: those need
#: processes a browser cannot run, and their page shows a real run instead).
RECIPES = [r.name for r in load_recipes() if r.in_browser and r.transcript_path.is_file()]
LOAD_MS = 240_000  # bound for the first click (the runtime loads); CI machines are slow
# The click handler sets aria-busy="true" synchronously, so "not busy" after a click means done.
IDLE = "el => el.getAttribute('aria-busy') === 'false'"
# Every text the widget's live region takes, from now on.
RECORD_ANNOUNCEMENTS = """() => {
  const live = document.querySelector(".tryit .tryit__live");
  globalThis.__said = [];
  new MutationObserver(() => globalThis.__said.push(live.textContent))
    .observe(live, { childList: true, characterData: true, subtree: true });
}"""


def committed(name: str) -> list[str]:
    """The transcript pytest recorded for a recipe (``recipes/<name>/transcript.txt``)."""
    return (ROOT / "recipes" / name / "transcript.txt").read_text(encoding="utf-8").splitlines()


class Visit:
    """One browser tab on the site, recording every request it makes."""

    def __init__(self, browser: Any, base_url: str, **context: Any) -> None:
        """``context``: options of Playwright's ``new_context`` (``color_scheme``, ...)."""
        self.base_url = base_url
        self.context = browser.new_context(**context)
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def goto(self, path: str) -> None:
        """Load a page afresh; returns once its first widget, if it has one, has started."""
        self.page.goto(self.base_url + path)
        if self.page.locator(".tryit").count():  # in the page's HTML, so there once it loaded
            self.page.wait_for_selector(".tryit[data-state]")
        self.page.evaluate("window.__sameDocument = 1")  # lost if a page load replaces it

    def navigate(self, path: str) -> None:
        """Follow a same-site link the way a reader does (the theme's instant navigation).
        Returns once the new page's content is in and its first widget, if it has one, is
        ready (the old page's article and widgets are marked first: on a busy machine the
        address can change before the new content is in)."""
        self.page.evaluate(
            """(href) => {
                document.querySelectorAll("article, .tryit").forEach((el) => {
                  el.dataset.left = "";
                });
                const a = document.createElement("a");
                a.href = href;
                document.querySelector("article").appendChild(a);
                a.click();
            }""",
            self.base_url + path,
        )
        self.page.wait_for_url(self.base_url + path)
        self.page.wait_for_selector("article:not([data-left])", state="attached")
        if self.page.locator(".tryit:not([data-left])").count():
            self.page.wait_for_selector(".tryit[data-state='idle']:not([data-left])")
        assert self.page.evaluate("window.__sameDocument") == 1, "instant navigation"

    def widget(self) -> Any:
        return self.page.locator(".tryit")

    def click(self, action: str, timeout: float = 60_000) -> None:
        widget = self.widget()
        widget.locator(f"button[data-action='{action}']").click()
        self.page.wait_for_function(
            f"() => ({IDLE})(document.querySelector('.tryit'))", timeout=timeout
        )

    def transcript(self) -> list[str]:
        return self.widget().locator(".tryit__transcript li").all_inner_texts()

    def status(self) -> str:
        """The widget's visible status line."""
        return str(self.widget().locator(".tryit__status").inner_text())

    def button(self, action: str) -> Any:
        return self.widget().locator(f"button[data-action='{action}']")

    def state(self) -> str:
        return str(self.widget().get_attribute("data-state"))

    def runtime(self) -> dict[str, Any]:
        """What the worker said when it was ready (``restored``: from a saved interpreter)."""
        runtime = self.page.evaluate(
            "(({ info, failed }) => ({ info, failed }))(globalThis.__tryitRuntime)"
        )
        assert runtime["info"], f"no ready runtime: {runtime['failed']!r}; {self.status()!r}"
        return dict(runtime["info"])

    def reopen(self) -> None:
        """Close the tab and open a new one in the same browser profile (a later visit)."""
        self.page.close()
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def close(self) -> None:
        self.context.close()

    def __enter__(self) -> Visit:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def brotli_host_visit(chromium: Any, site: Path, link: str) -> Iterator[tuple[Any, Visit]]:
    """A visit to ``site`` served by a host that serves the ``.br`` copies, with the link taken
    for a ``"fast"`` or a ``"slow"`` one (``TRYIT_SIMULATE_LINK``): yields (server, visit)."""
    from docsite.testing.static_server import StaticServer

    with StaticServer(site, precompressed=True) as server, Visit(chromium, server.url) as visit:
        visit.page.add_init_script(f"globalThis.TRYIT_SIMULATE_LINK = {link!r}")
        yield server, visit
