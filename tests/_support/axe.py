"""axe-core in the browser tests: fetched from npm at test time into the git-ignored cache
(``scripts/npm_fetch.py``, an exact pin), injected into the page under test from that file.

Never committed, never loaded from another origin. :data:`THEME` lists, one by one, what the
site's theme (MkDocs Material) itself still triggers; the maintainers page lists them too.
Anything else serious or critical is the site's own and fails the test.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "scripts" / "site") not in sys.path:
    sys.path.insert(0, str(ROOT / "scripts" / "site"))

from scriptload import load_script  # noqa: E402

AXE_SPEC = "axe-core@4.14.1"

# (axe rule, CSS selector of the theme's elements it fires on): excluded, and only these.
THEME = (
    # the search dialog (role="dialog") has no accessible name
    ("aria-dialog-name", ".md-search"),
    # the instant-navigation progress bar (role="progressbar") has no accessible name
    ("aria-progressbar-name", ".md-progress"),
    # links in running text are told apart by colour alone (no underline), < 3:1 to the text
    ("link-in-text-block", ".md-typeset a"),
    # the code highlighting palette: comments, attributes, numbers... < 4.5:1 on code blocks
    ("color-contrast", ".highlight code span"),
    # the link colour on inline code (dark palette: 4.1:1)
    ("color-contrast", ".md-typeset a code"),
    # the footer's "Made with" line (light palette: 4.47:1)
    ("color-contrast", ".md-copyright"),
)

# Runs axe in the page's top frame (it reaches same-origin frames that have axe too) and keeps
# the serious and critical violations that are not the theme's.
RUN = """async (theme) => {
  // elementRef: the element itself (axe's selector for it may be a bare ":root")
  const result = await axe.run(document, { resultTypes: ["violations"], elementRef: true });
  const out = [];
  for (const violation of result.violations) {
    if (!["serious", "critical"].includes(violation.impact)) continue;
    const nodes = violation.nodes.filter((node) => {
      const top = node.target.length === 1
        ? node.element || document.querySelector(node.target[0]) : null;
      return !theme.some(([rule, selector]) =>
        rule === violation.id && top && top.closest(selector));
    });
    if (nodes.length) out.push({ id: violation.id, impact: violation.impact,
      nodes: nodes.map((n) => `${n.target.join(" >>> ")} ${n.html}: ${n.failureSummary}`) });
  }
  return out;
}"""


@functools.cache
def source() -> str:
    """axe.min.js of the pinned version, from the cache (``npm pack`` once)."""
    npm_fetch = load_script("npm_fetch", ROOT / "scripts" / "npm_fetch.py")
    folder = ROOT / ".cache" / "axe" / AXE_SPEC.rsplit("@", 1)[1]
    target = folder / "axe.min.js"
    if not target.exists():
        npm_fetch.extract(AXE_SPEC, ["axe.min.js"], folder)
    return target.read_text(encoding="utf-8")


def violations(page: Any) -> list[dict[str, Any]]:
    """Serious and critical axe violations of ``page`` (every frame), the theme's left out.

    Judged once the page has settled: a line still fading in has, for that quarter of a
    second, less contrast than it will have.
    """
    page.wait_for_function(SETTLED)
    # axe into the page and into every same-origin frame (the hedron demo panel's document is
    # written into its iframe by the page, so it is reached through the page, not Playwright's
    # frame list): axe in the top frame asks each frame's axe for its part
    page.evaluate(INJECT, source())
    return list(page.evaluate(RUN, [list(pair) for pair in THEME]))


# Finite animations have ended (a spinner's endless one never does, and does not fade text).
SETTLED = """() => document.getAnimations().every((a) => a.playState !== 'running'
  || a.effect.getComputedTiming().iterations === Infinity)"""

INJECT = """(source) => {
  const into = (doc) => {
    if (!doc.defaultView.axe) {
      const script = doc.createElement("script");
      script.textContent = source;
      (doc.head || doc.documentElement).appendChild(script);
    }
    for (const frame of doc.querySelectorAll("iframe")) {
      if (frame.contentDocument) into(frame.contentDocument);
    }
  };
  into(document);
}"""
