"""axe-core in the browser tests: fetched from npm at test time into the git-ignored cache
(``docsite.npm``, an exact pin), injected into the page under test from that file.

Never committed, never loaded from another origin. :data:`THEME` lists, one by one, what the
site's theme (MkDocs Material) itself still triggers; the maintainers page lists them too.
Anything else serious or critical is the site's own and fails the test.
"""

from __future__ import annotations

import functools
from typing import Any

from docsite import npm
from docsite.paths import CACHE

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
THEME_PAIRS = [list(pair) for pair in THEME]

# Runs axe in the page and, one by one, in each same-origin frame (the hedron demo panel), and
# keeps the serious and critical violations that are not the theme's. Not through axe's own frame
# messaging: the panel's document runs on the demo's virtual clock (``panel.mjs`` replaces its
# timers), so axe in it gets the page's real timers while it runs, and they are put back after.
RUN = """async ([theme, within]) => {
  const frames = (root) => [...root.querySelectorAll("iframe")].flatMap((frame) =>
    frame.contentDocument ? [frame, ...frames(frame.contentDocument)] : []);
  const timers = ["setTimeout", "clearTimeout", "setInterval", "clearInterval"];
  const runIn = async (win, doc) => {
    const saved = timers.map((name) => win[name]);
    if (win !== window) for (const name of timers) win[name] = window[name].bind(window);
    try {
      // elementRef: the element itself (axe's selector for it may be a bare ":root")
      const context = win === window && within ? { include: [[within]] } : doc;
      return await win.axe.run(context, { resultTypes: ["violations"], elementRef: true,
        iframes: false });
    } finally {
      timers.forEach((name, i) => { win[name] = saved[i]; });
    }
  };
  const out = [];
  const inside = within ? frames(document.querySelector(within)) : frames(document);
  const docs = [[window, document, ""],
    ...inside.map((f) => [f.contentWindow, f.contentDocument, "iframe >>> "])];
  for (const [win, doc, prefix] of docs) {
    const result = await runIn(win, doc);
    for (const violation of result.violations) {
      if (!["serious", "critical"].includes(violation.impact)) continue;
      const nodes = violation.nodes.filter((node) => {
        const top = doc === document && node.target.length === 1
          ? node.element || document.querySelector(node.target[0]) : null;
        return !theme.some(([rule, selector]) =>
          rule === violation.id && top && top.closest(selector));
      });
      const said = (n) => `${prefix}${n.target.join(" >>> ")} ${n.html}: ${n.failureSummary}`;
      if (nodes.length) out.push({ id: violation.id, impact: violation.impact,
        nodes: nodes.map(said) });
    }
  }
  return out;
}"""


@functools.cache
def source() -> str:
    """axe.min.js of the pinned version, from the cache (``npm pack`` once)."""
    folder = CACHE / "axe" / AXE_SPEC.rsplit("@", 1)[1]
    target = folder / "axe.min.js"
    if not target.exists():
        npm.extract(AXE_SPEC, ["axe.min.js"], folder)
    return target.read_text(encoding="utf-8")


def violations(page: Any, within: str | None = None) -> list[dict[str, Any]]:
    """Serious and critical axe violations of ``page`` (every frame), the theme's left out;
    with ``within`` (a CSS selector), only of that part of the page and the frames in it.

    Judged once the page has settled: a line still fading in has, for that quarter of a
    second, less contrast than it will have.
    """
    start(page, within)
    return result(page)


def start(page: Any, within: str | None = None) -> None:
    """Begin :func:`violations` in ``page`` and return at once; :func:`result` collects it.
    So axe can check two tabs of separate browser contexts at once, each on its own
    renderer's thread."""
    page.wait_for_function(SETTLED)
    page.evaluate(START, [source(), [THEME_PAIRS, within]])


def result(page: Any) -> list[dict[str, Any]]:
    """What the check :func:`start` began in ``page`` found (waits for it to end)."""
    return list(page.evaluate("() => window.__axeRun"))


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

# axe into the page and into every same-origin frame (the hedron demo panel's document is
# written into its iframe by the page, so it is reached through the page, not Playwright's
# frame list), then run: on the page's next turn, as both take a while without yielding.
START = f"""([source, args]) => {{
  window.__axeRun = new Promise((go) => setTimeout(go, 0)).then(() => {{
    ({INJECT})(source);
    return ({RUN})(args);
  }});
}}"""
