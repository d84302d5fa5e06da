"""axe-core in the browser tests: fetched from npm at test time into the git-ignored cache
(``docsite.npm``, an exact pin), injected into the page under test from that file.

Never committed, never loaded from another origin. :data:`THEME` lists, one by one, what the
site's theme (MkDocs Material) itself still triggers, each with why.
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

# Runs axe in one document (the page's, or with ``within`` only that part of it) and keeps
# the serious and critical violations that are not the theme's. The hedron demo panel is a
# sandboxed frame of another (opaque) origin: axe runs in it on its own, through Playwright,
# not through axe's own frame messaging (``iframes: false``). Its page runs on the demo's
# virtual clock (``frame.js`` replaces its timers), so there axe gets real timers while it
# runs (AbortSignal.timeout), and the virtual ones are put back after.
RUN = """async ([theme, within, prefix]) => {
  const names = ["setTimeout", "clearTimeout"];
  const saved = names.map((name) => window[name]);
  if (prefix) {
    const live = new Map();
    let next = 1;
    window.setTimeout = (fn, ms, ...args) => {
      const id = next++;
      live.set(id, fn);
      AbortSignal.timeout(Math.max(0, Number(ms) || 0)).addEventListener("abort", () => {
        if (live.delete(id)) fn(...args);
      });
      return id;
    };
    window.clearTimeout = (id) => live.delete(id);
  }
  let result;
  try {
    // elementRef: the element itself (axe's selector for it may be a bare ":root")
    const context = within && !prefix ? { include: [[within]] } : document;
    result = await axe.run(context, { resultTypes: ["violations"], elementRef: true,
      iframes: false });
  } finally {
    names.forEach((name, i) => { window[name] = saved[i]; });
  }
  const out = [];
  for (const violation of result.violations) {
    if (!["serious", "critical"].includes(violation.impact)) continue;
    const nodes = violation.nodes.filter((node) => {
      const top = !prefix && node.target.length === 1
        ? node.element || document.querySelector(node.target[0]) : null;
      return !theme.some(([rule, selector]) =>
        rule === violation.id && top && top.closest(selector));
    });
    const said = (n) => `${prefix}${n.target.join(" >>> ")} ${n.html}: ${n.failureSummary}`;
    if (nodes.length) out.push({ id: violation.id, impact: violation.impact,
      nodes: nodes.map(said) });
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
    """Serious and critical axe violations of ``page`` (and its frames), the theme's left out;
    with ``within`` (a CSS selector), only of that part of the page and the frames in it.

    Judged once the page has settled: a line still fading in has, for that quarter of a
    second, less contrast than it will have.
    """
    start(page, within)
    return result(page)


def _frames(page: Any, within: str | None) -> list[Any]:
    """The page's frames (the hedron demo panel), those inside ``within`` if given."""
    inside = "(element, within) => !within || !!element.closest(within)"
    return [
        frame
        for frame in page.frames
        if frame.parent_frame is page.main_frame and frame.frame_element().evaluate(inside, within)
    ]


def start(page: Any, within: str | None = None) -> None:
    """Begin :func:`violations` in ``page`` and its frames and return at once; :func:`result`
    collects it. So axe can check two tabs of separate browser contexts at once, each on its
    own renderer's thread."""
    page.wait_for_function(SETTLED)
    # the source (0.65 MB) crosses the protocol only to a document that lacks it (a page's
    # check in its second palette finds it there)
    missing = not page.evaluate("() => !!window.axe")
    page.evaluate(START, [source() if missing else "", [THEME_PAIRS, within, ""]])
    for frame in _frames(page, within):
        # put in by the browser's debugger: the frame's policy runs no script but the site's
        if not frame.evaluate("() => !!window.axe"):
            frame.evaluate(source())
        frame.evaluate(IN_FRAME, [[], None, "iframe >>> "])


def result(page: Any) -> list[dict[str, Any]]:
    """What the check :func:`start` began in ``page`` and its frames found (waits for it)."""
    found = list(page.evaluate("() => window.__axeRun"))
    for frame in page.frames[1:]:
        if frame.evaluate("() => !!window.__axeRun"):
            found += frame.evaluate("() => window.__axeRun")
            frame.evaluate("() => { delete window.__axeRun; }")
    return found


# Finite animations have ended (a spinner's endless one never does, and does not fade text).
SETTLED = """() => document.getAnimations().every((a) => a.playState !== 'running'
  || a.effect.getComputedTiming().iterations === Infinity)"""

IN_FRAME = f"(args) => {{ window.__axeRun = ({RUN})(args); }}"

# axe into the page, then run: on the page's next turn, as both take a while without yielding.
START = f"""([source, args]) => {{
  window.__axeRun = new Promise((go) => setTimeout(go, 0)).then(() => {{
    if (!window.axe) {{
      const script = document.createElement("script");
      script.textContent = source;
      document.head.appendChild(script);
    }}
    return ({RUN})(args);
  }});
}}"""
