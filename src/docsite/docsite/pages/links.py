"""Guides link to the API reference entries they mention.

In a guide, the first inline-code mention of a public object (``TaskFlow``,
``resq.http.poll``, ``Poller.step``, ``reload()`` excluded: bare members are ambiguous)
becomes a link to its reference entry (``[`TaskFlow`][hedron.jobs.TaskFlow]``, resolved by
mkdocs-autorefs; an identifier it cannot resolve fails the strict build). Names are those of
the guide's own library (``reference_pages.identifiers``), so ``VirtualClock`` means
``resq.clock.VirtualClock`` in the resq guides and ``hedron_core.jobs.VirtualClock`` in the
hedron ones. Code blocks, headings and code that is already a link are left alone.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(```|~~~)")
_SPAN = re.compile(r"(?<![\[`])`([A-Za-z_][\w.]*)(\(\))?`(?![\]`(])")
_LINKED = re.compile(r"\[`([A-Za-z_][\w.]*)(?:\(\))?`\]\[")


def link_mentions(markdown: str, names: dict[str, str]) -> str:
    """``markdown`` with the first mention of each known name linked to its entry."""
    done = {names[m] for m in _LINKED.findall(markdown) if m in names}
    out: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1) == fence:
                fence = None
            out.append(line)
            continue
        if opened:
            fence = opened.group(1)
            out.append(line)
            continue
        if line.lstrip().startswith("#"):
            out.append(line)
            continue

        def link(match: re.Match[str]) -> str:
            identifier = names.get(match.group(1))
            if identifier is None or identifier in done:
                return match.group(0)
            done.add(identifier)
            return f"[{match.group(0)}][{identifier}]"

        out.append(_SPAN.sub(link, line))
    return "\n".join(out)
