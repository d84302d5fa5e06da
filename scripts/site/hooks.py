"""MkDocs hooks of the documentation site (registered in ``mkdocs.yml``).

- MIME types: ``.wasm`` is served as ``application/wasm`` and ``.mjs`` as JavaScript by
  ``mkdocs serve`` (a wrong wasm type makes ``loadPyodide`` hang silently).
- Generated pages: one page per recipe (``recipes/<name>.md``, files included byte for byte
  with snippets), the recipes index, and one page per hedron component when hedron exposes a
  component registry.
- Widgets on topic pages: a line ``<!-- tryit: NAME -->`` becomes that recipe's widget.
- Nav: sections are completed from what exists (see ``site_pages.expand_nav``).
- Runtime: the "Try it" runtime (``scripts/site/runtime.py``) is built (cached) before the
  build and copied into the site under ``_tryit/``. Set ``TRYIT_SKIP_RUNTIME=1`` to build the
  pages without it (the widgets then show their recorded transcripts).
- Editor: the widget's code editor (CodeMirror, ``scripts/site/editor_assets.py``) is built
  (cached) and copied into the site under ``_tryit/codemirror/``, with or without the runtime.
"""

from __future__ import annotations

import json
import mimetypes
import os
import shutil
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import bundle  # noqa: E402
import component_pages  # noqa: E402
import editor_assets  # noqa: E402
import reference_pages  # noqa: E402
import runtime  # noqa: E402
import site_pages  # noqa: E402
from scriptload import load_script  # noqa: E402

mimetypes.add_type("application/wasm", ".wasm")
mimetypes.add_type("text/javascript", ".mjs")

RUNTIME_DIR = "_tryit"


def _skip_runtime() -> bool:
    return os.environ.get("TRYIT_SKIP_RUNTIME", "") not in ("", "0")


def _download() -> int | None:
    """Bytes a widget's first click downloads (from the runtime's manifest), once it is built."""
    manifest = runtime.RUNTIME / "pyodide" / bundle.MANIFEST
    if _skip_runtime() or not manifest.exists():
        return None
    return int(json.loads(manifest.read_text(encoding="utf-8"))["download"])


def _generated(config: Any) -> dict[str, str]:
    recipes = site_pages.read_recipes(ROOT)
    examples = load_script("examples", ROOT / "scripts" / "examples.py")

    def quickstart(name: str) -> str:
        return str(examples.quickstart_markdown(name, site_url=config["site_url"]))

    pages = {
        f"recipes/{r.name}.md": site_pages.recipe_page(
            r, quickstart(r.name) if r.exported else "", _download()
        )
        for r in recipes
    }
    if recipes:
        pages["recipes/index.md"] = site_pages.recipes_index(recipes)
    pages.update(component_pages.pages())
    pages.update(reference_pages.pages(ROOT))
    return pages


def on_config(config: Any) -> Any:
    docs = Path(config["docs_dir"])
    available = {p.relative_to(docs).as_posix() for p in docs.rglob("*.md")}
    available |= set(_generated(config))
    config["nav"] = site_pages.expand_nav(config["nav"], available)
    return config


def on_pre_build(config: Any) -> None:
    if not _skip_runtime():
        runtime.build()


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for uri, content in _generated(config).items():
        if files.get_file_from_path(uri) is None:
            files.append(File.generated(config, uri, content=content))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Topic pages embed a recipe's widget with a ``<!-- tryit: NAME -->`` line."""
    if "tryit:" not in markdown:
        return markdown
    recipes = site_pages.read_recipes(ROOT)
    return site_pages.embed_widgets(markdown, recipes, page.file.src_uri, _download())


def on_post_build(config: Any) -> None:
    site_dir = Path(config["site_dir"])
    if not _skip_runtime():
        target = site_dir / RUNTIME_DIR
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(runtime.RUNTIME, target, ignore=shutil.ignore_patterns(".stamp"))
    # The code editor (CodeMirror, a few files): copied even when the runtime is skipped.
    editor_assets.install(site_dir / RUNTIME_DIR / editor_assets.FOLDER)
