"""Reading a drawn timeline (an SVG of ``docs/assets/tryit/timeline.mjs``) back, and what a
transcript says it must show, for the tests of the build's drawing and of the live one."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

SVG = "{http://www.w3.org/2000/svg}"
_REQUEST = re.compile(r"^t=(\d+(?:\.\d+)?)s ([A-Z]+) \S+ -> (\d{3}) ")
_END_AT = re.compile(r" at t=(\d+(?:\.\d+)?)s\b")
#: the width of a label's character (11 px monospace, as ``timeline.mjs`` reckons it)
CHAR_W = 6.6


@dataclass(frozen=True)
class Mark:
    t: float
    method: str
    status: int
    classes: frozenset[str]


def requests(lines: list[str]) -> list[tuple[float, str, int]]:
    """``(time, method, status)`` of each request line of a transcript."""
    found = [_REQUEST.match(line) for line in lines]
    return [(float(m[1]), m[2], int(m[3])) for m in found if m]


def end_time(lines: list[str]) -> float:
    """When the run ended: its end line's time, or its last request's."""
    end = [line for line in lines if line.startswith("= ")]
    at = _END_AT.search(end[-1]) if end else None
    return float(at[1]) if at else requests(lines)[-1][0]


def parse(svg: str) -> ET.Element:
    """The drawing, parsed as XML (it must be well-formed)."""
    return ET.fromstring(svg)


def lanes(root: ET.Element) -> list[ET.Element]:
    """The drawing's lanes (one per run), top to bottom."""
    return [g for g in root.iter(f"{SVG}g") if "tl-run" in g.get("class", "").split()]


def marks(lane: ET.Element) -> list[Mark]:
    """A lane's marks (not the tested run's outlines drawn under a live one), in order."""
    group = next(g for g in lane.iter(f"{SVG}g") if g.get("class") == "tl-marks")
    return [
        Mark(
            float(g.get("data-t", "nan")),
            g.get("data-method", ""),
            int(g.get("data-status", "0")),
            frozenset(g.get("class", "").split()),
        )
        for g in group
        if g.tag == f"{SVG}g"
    ]


def end(lane: ET.Element) -> ET.Element | None:
    """A lane's end mark, if the run has ended."""
    return next((g for g in lane.iter(f"{SVG}g") if "tl-end" in g.get("class", "")), None)


def window(lane: ET.Element) -> ET.Element | None:
    """A lane's window mark, if its window is known."""
    return next((e for e in lane.iter() if "tl-window" in e.get("class", "")), None)


def text(element: ET.Element) -> str:
    """All the text of an element."""
    return "".join(element.itertext())
