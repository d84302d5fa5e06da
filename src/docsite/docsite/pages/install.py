"""The install commands a reader runs, for the pages that show them.

A line ``<!-- install -->`` (both libraries) or ``<!-- install: resq -->`` becomes a shell
block installing the exact ``resq``/``hedron`` wheels this site publishes on its ``/wheels/``
page: the same direct references the downloadable examples' ``requirements.txt`` use
(``scripts/examples.py``), for the URL the site is built for.
"""

from __future__ import annotations

import re

from docsite.examples import tree as examples
from docsite.paths import REPO

MARKER = re.compile(r"^<!--\s*install(?::\s*(\w+))?\s*-->[ \t]*$", re.MULTILINE)
#: What each library's line installs besides the library, and what the line is for.
EXTRAS = {
    "resq": ((), "the client"),
    "hedron": (('"uvicorn[standard]"',), "the server, with uvicorn to run your app"),
}


def commands(site_url: str, libraries: tuple[str, ...] = ("resq", "hedron")) -> list[str]:
    """The shell lines: a virtual environment, then one ``pip install`` per library.

    Raises:
        ValueError: a library is not one of :data:`EXTRAS`.
    """
    versions = examples.local_versions(REPO)
    url = site_url if site_url.endswith("/") else site_url + "/"
    lines = ["python3 -m venv .venv && . .venv/bin/activate  # Windows: .venv\\Scripts\\activate"]
    for library in libraries:
        if library not in EXTRAS:
            raise ValueError(f"install: unknown library {library!r} (one of {tuple(EXTRAS)})")
        extras, comment = EXTRAS[library]
        wheel = examples.wheel_requirement(library, versions[library], url)
        lines += [f"# {library}: {comment}", " ".join(["pip install", f'"{wheel}"', *extras])]
    return lines


def embed_install(markdown: str, site_url: str) -> str:
    """Replace each ``<!-- install[: LIBRARY] -->`` line by its shell block."""

    def block(match: re.Match[str]) -> str:
        libraries = (match.group(1),) if match.group(1) else tuple(EXTRAS)
        return "\n".join(["```bash", *commands(site_url, libraries), "```"])

    return MARKER.sub(block, markdown)
