"""hedron's stylesheet for the documentation's component previews, scoped at build time.

The site's component pages show each component rendered with hedron's own ``hedron.css``
(``src/hedron/hedron/static/hedron.css``, the file a hedron app serves). Loaded as it is, it
would restyle the documentation; so the build writes a copy in which every rule applies only
inside a preview (:func:`scoped`):

- each selector is prefixed with :data:`SCOPE`; ``:root``, ``html``, ``body`` and ``.h-body``
  become the preview element itself, which stands for a hedron page;
- ``rem`` lengths become pixels of a 16 px root (a hedron page's size; the documentation's
  root is larger);
- ``color-scheme`` declarations are left out: a preview takes the site's palette (the theme
  sets ``color-scheme`` with its light and dark schemes), and hedron's ``light-dark()``
  colours follow it, the reader's toggle included;
- the theme's typography is reverted first for the elements components render, so a preview
  looks as it does in a hedron app: unstyled by the docs, styled by hedron.
"""

from __future__ import annotations

import re

from docsite.paths import REPO

HEDRON_CSS = REPO / "src" / "hedron" / "hedron" / "static" / "hedron.css"
#: Where the scoped copy is published in the site.
OUTPUT = "assets/gallery/hedron-preview.css"
#: The preview element (inside the theme's ``.md-typeset`` article, to outrank its rules).
SCOPE = ".md-typeset .hedron-preview"
#: Selectors of a page's root and body: in a preview, the preview element itself.
_PAGE_ROOTS = re.compile(r"^(?::root|html|body|\.h-body)(?![\w-])")
#: Elements the theme styles inside its article and components render.
_RESET = (
    "h1, h2, h3, h4, h5, h6, p, a, strong, pre, code, label, button, input, select, textarea,"
    " option, progress, table, caption, thead, tbody, tr, th, td, ul, ol, li, section"
)
_REM = re.compile(r"(?<![\w.-])(\d*\.?\d+)rem\b")
_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_COLOR_SCHEME = re.compile(r"\s*(?<![\w-])color-scheme\s*:[^;}]*;?")


def _split_selectors(selectors: str) -> list[str]:
    """``a, b:is(c, d)`` → ``["a", "b:is(c, d)"]`` (commas inside brackets stay)."""
    out, depth, current = [], 0, ""
    for char in selectors:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "," and depth == 0:
            out.append(current.strip())
            current = ""
        else:
            current += char
    out.append(current.strip())
    return [s for s in out if s]


def scope_selector(selector: str, scope: str = SCOPE) -> str:
    """One selector, applying only inside ``scope``.

    Example:
        >>> scope_selector(".h-table th", ".p")
        '.p .h-table th'
        >>> scope_selector(":root", ".p")
        '.p'
    """
    if _PAGE_ROOTS.match(selector):
        return _PAGE_ROOTS.sub(scope, selector, count=1)
    return f"{scope} {selector}"


def _px(match: re.Match[str]) -> str:
    return f"{float(match.group(1)) * 16:g}px"


def _blocks(css: str, scope: str) -> str:
    """Scope every rule of ``css`` (a sequence of rules and at-rules)."""
    out: list[str] = []
    i = 0
    while i < len(css):
        brace = css.find("{", i)
        if brace == -1:
            break
        head = css[i:brace].strip()
        depth, j = 1, brace + 1
        while depth and j < len(css):
            depth += {"{": 1, "}": -1}.get(css[j], 0)
            j += 1
        body = css[brace + 1 : j - 1]
        if head.startswith(("@media", "@supports", "@container", "@layer")):
            out.append(f"{head} {{\n{_blocks(body, scope)}}}")
        elif head.startswith("@"):  # @keyframes, @font-face: names, not selectors
            out.append(f"{head} {{{body}}}")
        elif (body := _COLOR_SCHEME.sub("", body)).strip():
            selectors = ", ".join(scope_selector(s, scope) for s in _split_selectors(head))
            out.append(f"{selectors} {{{_REM.sub(_px, body)}}}")
        i = j
    return "\n".join(out) + "\n"


def scoped(css: str, scope: str = SCOPE) -> str:
    """``css`` with every rule confined to ``scope``, after a reset of the theme's typography."""
    reset = f"{scope} :is({_RESET}) {{ all: revert; }}\n"
    return reset + _blocks(_COMMENT.sub("", css), scope)


def stylesheet() -> str:
    """The scoped copy of hedron's stylesheet, as published at :data:`OUTPUT`."""
    source = HEDRON_CSS.relative_to(REPO).as_posix()
    header = f"/* Generated from {source} by docsite/pages/preview_css.py: do not edit. */\n"
    return header + scoped(HEDRON_CSS.read_text(encoding="utf-8"))
