"""The commands a reader runs, for the hand-written pages that show them, made for the address
the site is built for (``site_url``): no page source names an address.

- A line ``<!-- install -->`` (both libraries) or ``<!-- install: resq -->`` becomes a shell
  block installing the exact ``resq``/``hedron`` wheels this site publishes on its
  ``/wheels/`` page: the same direct references the downloadable examples'
  ``requirements.txt`` use (``scripts/examples.py``).
- A line ``<!-- quickstart: NAME -->`` becomes the quickstart of the example ``NAME`` (download,
  install, run, what to expect), the one its recipe page shows.
"""

from __future__ import annotations

import re

from docsite.examples import tree as examples
from docsite.examples.plan import VENV_LINE, chained
from docsite.paths import REPO

MARKER = re.compile(r"^<!--\s*install(?::\s*(\w+))?\s*-->[ \t]*$", re.MULTILINE)
QUICKSTART = re.compile(r"^<!--\s*quickstart:\s*([\w-]*)\s*-->[ \t]*$", re.MULTILINE)
#: What each library's line installs besides the library, and what the line is for.
EXTRAS = {
    "resq": ((), "the client"),
    "hedron": (('"uvicorn[standard]"',), "the server, with uvicorn to run your app"),
}


def commands(site_url: str, libraries: tuple[str, ...] = ("resq", "hedron")) -> list[str]:
    """The shell lines: what each line is for, then one chained command (it stops at its first
    failure): a virtual environment, then one ``pip install`` per library.

    Raises:
        ValueError: a library is not one of :data:`EXTRAS`.
    """
    versions = examples.local_versions(REPO)
    url = site_url if site_url.endswith("/") else site_url + "/"
    notes, chain = [], [VENV_LINE]
    for library in libraries:
        if library not in EXTRAS:
            raise ValueError(f"install: unknown library {library!r} (one of {tuple(EXTRAS)})")
        extras, comment = EXTRAS[library]
        wheel = examples.wheel_requirement(library, versions[library], url)
        notes.append(f"# {library}: {comment}.")
        chain.append(" ".join(["pip install", f'"{wheel}"', *extras]))
    notes.append("# On Windows, activate with .venv\\Scripts\\activate instead.")
    return [*notes, chained(chain)]


def embed_install(markdown: str, site_url: str) -> str:
    """Replace each ``<!-- install[: LIBRARY] -->`` line by its shell block."""

    def block(match: re.Match[str]) -> str:
        libraries = (match.group(1),) if match.group(1) else tuple(EXTRAS)
        # .install: the block's lines scroll clear of the copy button (docs/assets/install.css)
        return "\n".join(["```{.bash .install}", *commands(site_url, libraries), "```"])

    return MARKER.sub(block, markdown)


def embed_quickstart(markdown: str, site_url: str, where: str = "") -> str:
    """Replace each ``<!-- quickstart: NAME -->`` line by the example's quickstart.

    Raises:
        ValueError: ``NAME`` is not an example of the tree (``where``: the page, for the
            message).
    """

    def block(match: re.Match[str]) -> str:
        name = match.group(1)
        try:
            return examples.quickstart_markdown(name, site_url=site_url)
        except ValueError:
            raise ValueError(f"{where}: <!-- quickstart: {name} -->: no example {name!r}") from None

    return QUICKSTART.sub(block, markdown)
