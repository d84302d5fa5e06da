"""Markdown generated for the site: one page per recipe, and the recipes' Try-it widgets.

Recipe pages never copy code: they include the recipe's files with ``pymdownx.snippets``
(``--8<-- "recipes/<name>/<file>"``), so the page shows the files byte for byte.
"""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path
from typing import Any

from docsite.examples import plan as examples
from docsite.paths import DOCS
from tryit.recipe import Recipe

LANGS = {".py": "python", ".toml": "toml", ".txt": "text", ".md": "markdown", ".sh": "bash"}


#: Where the widget finds a recipe's files (under the site's ``_tryit/``).
EDITOR_FILES = "recipes/{name}.json"


def editor_files(recipe: Recipe) -> dict[str, Any]:
    """A recipe's files as the widget fetches them (``_tryit/recipes/<name>.json``):

    - ``files``: what the editor opens (fetched when the reader clicks Edit), the files the
      page shows, byte for byte, the editable one marked;
    - ``runtime``: what the worker needs to run it (sent to the worker before the recipe's
      first step; the runtime carries no recipe): its ``recipe.toml`` and Python files.
    """
    runtime = sorted(
        p for p in recipe.folder.iterdir() if p.suffix == ".py" or p.name == "recipe.toml"
    )
    return {
        "recipe": recipe.name,
        "files": [
            {
                "name": name,
                "text": (recipe.folder / name).read_text(encoding="utf-8"),
                "editable": name == recipe.editable,
            }
            for name in recipe.files
        ],
        "runtime": {path.name: path.read_text(encoding="utf-8") for path in runtime},
    }


def widget_html(recipe: Recipe, download: int | None = None, timeline: str = "") -> str:
    """The server-rendered "Try it" widget; ``tryit.mjs`` makes it live.

    ``timeline`` is the tested run's drawing (``timelines.Timeline.html``): shown without
    JavaScript, redrawn by the widget as a run grows.

    Without JavaScript it only says that the demo needs it (the recorded transcript below is
    open): its buttons are ``hidden`` and the text that promises a run is a ``<template>``,
    both shown by :data:`GO_LIVE`. ``download`` is the most the first click downloads, in bytes
    (the runtime's manifest), told to the reader when known.
    """
    name = html.escape(recipe.name)
    label = html.escape(f"Try it: {recipe.title}")
    size = f" (at most {math.ceil(download / 1e6)}&nbsp;MB)" if download else ""
    return f"""<section class="tryit" data-tryit="{name}" data-library="{recipe.library}"
 data-driver="{recipe.driver}" aria-label="{label}">
<div class="tryit__bar" hidden>
<button type="button" class="md-button md-button--primary tryit__step"
 data-action="step">Step</button>
<button type="button" class="md-button md-button--primary tryit__retry" data-action="retry"
 hidden>Retry</button>
<button type="button" class="md-button tryit__run" data-action="run">Run to end</button>
<button type="button" class="md-button tryit__reset" data-action="reset">Reset</button>
<button type="button" class="md-button tryit__edit" data-action="edit"
 aria-expanded="false">Edit</button>
</div>
<div class="tryit__editor" hidden></div>
<p class="tryit__status">This demo runs the code in your browser and needs JavaScript, which
is off or blocked here. The transcript the test suite recorded is shown below.</p>
<template class="tryit__intro">Runs the code below in your browser: each <b>Step</b> is one
request. The Python runtime{size} loads on the first click.</template>
<div class="tryit__live" role="status"></div>
<progress class="tryit__progress" aria-label="Loading the Python runtime" hidden></progress>
<div class="tryit__panel" hx-disable hidden></div>
<ol class="tryit__transcript" tabindex="0" aria-label="Transcript of this run"></ol>
{timeline}
</section>
"""


def real_run_block(recipe: Recipe, timeline: str = "") -> str:
    """For a recipe that cannot run in a browser: why (its ``[real] why``), where to run it,
    and the transcript of a real run (what the test suite runs and asserts), after its
    drawing (``timeline``)."""
    out = ['!!! note "This recipe does not run in your browser"', ""]
    out += [f"    {recipe.real.why if recipe.real else ''}", ""]
    out += [
        "    [Run it on your machine](#run-it-on-your-machine) instead. Here is the transcript",
        "    of a real run: the test suite runs it for real, with the same processes, and",
        "    checks that it still gives exactly this.",
        "",
    ]
    if timeline:
        out += [timeline, ""]
    if recipe.transcript_path.is_file():
        out += ["```text", f'--8<-- "recipes/{recipe.name}/transcript.txt"', "```", ""]
    return "\n".join(out)


# Placed right after the recorded transcript, run as the page is read (before it is painted,
# so nothing jumps): with JavaScript the widget shows its buttons and the text that promises a
# run, and the record folds away. ``tryit.mjs`` makes the buttons work.
GO_LIVE = (
    "<script>(() => { const record = document.currentScript.previousElementSibling;"
    " const widget = record.previousElementSibling;"
    ' const intro = widget.querySelector("template.tryit__intro");'
    ' widget.querySelector(".tryit__status").replaceChildren(intro.content.cloneNode(true));'
    ' widget.querySelector(".tryit__bar").hidden = false; record.open = false; })();</script>'
)


def widget_block(
    recipe: Recipe, download: int | None = None, *, where: str = "", timeline: str = ""
) -> str:
    """The widget followed by the recorded transcript (included, and the widget's fallback).

    The recorded transcript is open (``???+``) for a reader without JavaScript;
    :data:`GO_LIVE` closes it. Given the page it goes on (``where``, ``recipes/x.md``), a
    line under it links to the page that explains Try it (:data:`ABOUT`).
    """
    out = [widget_html(recipe, download, timeline), ""]
    out += ['???+ note tryit-recorded "Recorded transcript (what the test suite asserts)"', ""]
    if recipe.transcript_path.is_file():
        transcript = f"recipes/{recipe.name}/transcript.txt"
        out += ["    ```text", f'    --8<-- "{transcript}"', "    ```", ""]
    else:  # a recipe that just landed: `scripts/recipe sync NAME` records it
        out += ["    No transcript has been recorded for this recipe yet.", ""]
    out += [GO_LIVE, ""]
    if where:
        about = "../" * where.count("/") + ABOUT
        out += [
            f'<p class="tryit-about" markdown="span">[How Try it works]({about}): the download,'
            " what your browser keeps, what edited code can do.</p>",
            "",
        ]
    return "\n".join(out)


#: The page that explains Try it (the runtime, what is kept, what edited code can do).
ABOUT = "try-it.md"
_MARKER = re.compile(r"^<!--\s*tryit:\s*([\w-]+)\s*-->[ \t]*$", re.MULTILINE)
#: The widget's own words for a recipe page; a topic page names the recipe instead.
_RUNS_BELOW = "Runs the code below"


def _recipe_link(name: str, where: str) -> str:
    """The Markdown link from page ``where`` (``resq/polling.md``) to a recipe's page."""
    depth = where.count("/")
    return "../" * depth + f"recipes/{name}.md"


def embed_widgets(
    markdown: str,
    recipes: list[Recipe],
    where: str,
    download: int | None = None,
    timelines: dict[str, str] | None = None,
) -> str:
    """Replace each ``<!-- tryit: NAME -->`` line of a topic page by that recipe's widget.

    The widget is introduced by a line naming the recipe it runs, with a link to its page
    (where its code is), and says it runs that recipe rather than "the code below".

    Raises:
        ValueError: the marker names no recipe.
    """
    by_name = {r.name: r for r in recipes}

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in by_name:
            raise ValueError(f"{where}: <!-- tryit: {name} --> names no recipe under recipes/")
        recipe = by_name[name]
        if not recipe.in_browser:
            raise ValueError(f"{where}: <!-- tryit: {name} -->: that recipe has no Try it")
        caption = (
            f'<p class="tryit-recipe" markdown="span">Runs the recipe '
            f"**[{recipe.title}]({_recipe_link(name, where)})** (`recipes/{name}/`).</p>"
        )
        timeline = (timelines or {}).get(name, "")
        block = widget_block(recipe, download, where=where, timeline=timeline)
        block = block.replace(_RUNS_BELOW, f"Runs the recipe <b>{html.escape(recipe.title)}</b>")
        return caption + "\n\n" + block

    return _MARKER.sub(replace, markdown)


def recipe_page(
    recipe: Recipe,
    quickstart: str = "",
    download: int | None = None,
    *,
    step_line: str = "",
    step_links: str = "",
    timeline: str = "",
) -> str:
    """Markdown of ``recipes/<name>.md``: text, widget, files (included), how to run it.

    ``quickstart`` is the exported example's quickstart (``docsite.examples``);
    ``download`` as for :func:`widget_html`; ``step_line`` and ``step_links`` place the
    recipe on its learning path (``learning_paths.step_line``/``step_links``); ``timeline``
    is its tested run drawn (``timelines.Timeline.html``). The summary
    is the page's description (search, link previews) and the Recipes index's text: the page
    itself opens with ``page.md``.
    """
    base = f"recipes/{recipe.name}"
    out = ["---", f"description: {json.dumps(recipe.summary)}", "---", ""]
    out += [f"# {recipe.title}", ""]
    if step_line:
        out += [f'<p class="path-step" markdown="span">{step_line}</p>', ""]
    out += [f'--8<-- "{base}/page.md"', ""]
    if not recipe.in_browser:
        out += ["## A real run", "", real_run_block(recipe, timeline), ""]
    else:
        widget = widget_block(recipe, download, where=f"{base}.md", timeline=timeline)
        out += ["## Try it", "", widget, ""]
    out += ["## The code", ""]
    for file in recipe.files:
        lang = LANGS.get(Path(file).suffix, "text")
        out += [f'=== "{file}"', "", f'    ```{lang} title="{file}"']
        out += [f'    --8<-- "{base}/{file}"', "    ```", ""]
    out += ["## Run it on your machine", ""]
    if quickstart:
        # The exported example: download (sha256-checked), install this build's wheels, run.
        out += [quickstart, ""]
    else:  # not exported yet: the same run block, from a checkout
        out += ["From a checkout of the repository, in the recipe's folder:", ""]
        out += ["```bash", *examples.run_block(recipe.plan), "```", ""]
    if step_links:
        out += [step_links, ""]
    return "\n".join(out)


def exported(recipe: Recipe) -> bool:
    """Whether the example tree (``docs/examples/``) holds the recipe's standalone example."""
    return (DOCS / "examples" / recipe.name).is_dir()
