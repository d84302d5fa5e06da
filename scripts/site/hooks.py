"""MkDocs hooks of the documentation site (registered in ``mkdocs.yml``).

- MIME types: ``.wasm`` is served as ``application/wasm`` and ``.mjs`` as JavaScript by
  ``mkdocs serve`` (a wrong wasm type makes ``loadPyodide`` hang silently).
- Generated pages: one page per recipe (``recipes/<name>.md``, files included byte for byte
  with snippets, placed on its learning path: ``learning_paths``), the recipes index, one
  page per hedron component (``component_pages``, with the scoped copy of hedron's
  stylesheet its previews use: ``preview_css``) and the API reference
  (``reference_pages``).
- Topic pages: a line ``<!-- tryit: NAME -->`` becomes that recipe's widget,
  ``<!-- recipes -->`` the box of the guide's features and their recipes
  (``guide_features``), ``<!-- component-gallery -->`` the table of every component,
  ``<!-- install -->`` the commands installing this build's wheels (``install_block``); the
  guides' mentions of public objects link to their reference entries (``guide_links``).
- Nav: sections are completed from what exists (see ``site_pages.expand_nav``); the
  Recipes, component gallery and API reference sections are generated.
- Runtime: the "Try it" runtime (``scripts/site/runtime.py``) is built (cached) before the
  build and copied into the site under ``_tryit/``, with the scripts the hedron demo panel's
  frame may run (``runtime.FRAME_SCRIPTS``). Set ``TRYIT_SKIP_RUNTIME=1`` to build the
  pages without it (the widgets then show their recorded transcripts).
- Editor: the widget's code editor (CodeMirror, ``scripts/site/editor_assets.py``) is built
  (cached) and copied into the site under ``_tryit/codemirror/``, with or without the runtime;
  the files it opens are ``_tryit/recipes/<name>.json`` (``site_pages.editor_files``).
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
import guide_features  # noqa: E402
import guide_links  # noqa: E402
import install_block  # noqa: E402
import learning_paths  # noqa: E402
import preview_css  # noqa: E402
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
    """The most a widget's first click downloads (from the runtime's manifest), once it is
    built: a fresh start's files, or on a fast link from a host serving the ``.br`` copies the
    prepared interpreter and what it needs (``snapshot.download``), whichever is more."""
    path = runtime.RUNTIME / "pyodide" / bundle.MANIFEST
    if _skip_runtime() or not path.exists():
        return None
    manifest = json.loads(path.read_text(encoding="utf-8"))
    prepared = manifest.get("snapshot", {}).get("download", {}).get("brotli", 0)
    return max(int(manifest["download"]), int(prepared))


#: What one build reads once (recipes, features); emptied when a (re)build starts.
_BUILD: dict[str, Any] = {}


def _recipes() -> list[site_pages.RecipeInfo]:
    if "recipes" not in _BUILD:
        _BUILD["recipes"] = site_pages.read_recipes(ROOT)
    return list(_BUILD["recipes"])


def _features() -> dict[str, list[guide_features.Feature]]:
    if "features" not in _BUILD:
        _BUILD["features"] = guide_features.read_features()
    return dict(_BUILD["features"])


def _component_references() -> dict[str, str]:
    """``{component name: its API reference identifier}``."""
    names = reference_pages.identifiers(ROOT).get("hedron", {})
    return {name: names[name] for name in names if "." not in name}


def _generated(config: Any) -> dict[str, str]:
    recipes = _recipes()
    examples = load_script("examples", ROOT / "scripts" / "examples.py")
    paths = learning_paths.read_paths()
    all_steps = learning_paths.steps(paths, recipes)

    def quickstart(name: str) -> str:
        return str(examples.quickstart_markdown(name, site_url=config["site_url"]))

    def page(recipe: site_pages.RecipeInfo) -> str:
        before, step, after = learning_paths.find(all_steps, recipe.name)
        return site_pages.recipe_page(
            recipe,
            quickstart(recipe.name) if recipe.exported else "",
            _download(),
            step_line=learning_paths.step_line(step) if step else "",
            step_links=learning_paths.step_links(before, after),
        )

    pages = {f"recipes/{r.name}.md": page(r) for r in recipes}
    if recipes:
        pages["recipes/index.md"] = learning_paths.index_markdown(paths, recipes)
    pages.update(component_pages.pages(_component_references()))
    pages.update(reference_pages.pages(ROOT))
    return pages


def on_config(config: Any) -> Any:
    _BUILD.clear()  # `mkdocs serve`: every rebuild reads the recipes and sources again
    reference_pages.modules.cache_clear()
    docs = Path(config["docs_dir"])
    available = {p.relative_to(docs).as_posix() for p in docs.rglob("*.md")}
    available |= set(_generated(config))
    sections = {
        "recipes/": learning_paths.nav(learning_paths.read_paths(), _recipes()),
        f"{component_pages.FOLDER}/": component_pages.nav(),
        "reference/": reference_pages.nav(ROOT),
    }
    config["nav"] = site_pages.expand_nav(config["nav"], available, sections)
    return config


def on_pre_build(config: Any) -> None:
    if not _skip_runtime():
        runtime.build()


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    generated = {**_generated(config), preview_css.OUTPUT: preview_css.stylesheet()}
    for uri, content in generated.items():
        if files.get_file_from_path(uri) is None:
            files.append(File.generated(config, uri, content=content))
    return files


def _guide_library(src_uri: str) -> str | None:
    """The library of a hand-written guide page (``resq/polling.md``), else ``None``."""
    top = src_uri.split("/", 1)[0]
    generated = src_uri.startswith(f"{component_pages.FOLDER}/")
    return top if top in learning_paths.LIBRARIES and not generated else None


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Topic pages: widgets, the features box, the gallery table, links to the reference."""
    where = page.file.src_uri
    recipes = _recipes()
    if "tryit:" in markdown:
        markdown = site_pages.embed_widgets(markdown, recipes, where, _download())
    titles = {r.name: r.title for r in recipes}
    markdown = guide_features.embed_features(markdown, where, _features(), titles)
    markdown = component_pages.embed_gallery(markdown, where)
    markdown = install_block.embed_install(markdown, config["site_url"])
    library = _guide_library(where)
    if library is not None:
        names = reference_pages.identifiers(ROOT).get(library, {})
        markdown = guide_links.link_mentions(markdown, names)
    return markdown


def on_post_build(config: Any) -> None:
    site_dir = Path(config["site_dir"])
    if not _skip_runtime():
        target = site_dir / RUNTIME_DIR
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(runtime.RUNTIME, target, ignore=shutil.ignore_patterns(".stamp"))
        for script in runtime.FRAME_SCRIPTS:  # what the hedron demo panel's frame may run
            shutil.copy2(script, target / script.name)
    # The code editor (CodeMirror, a few files) and the recipes' files it opens: written
    # even when the runtime is skipped.
    editor_assets.install(site_dir / RUNTIME_DIR / editor_assets.FOLDER)
    for recipe in _recipes():
        if not recipe.not_in_browser:
            target = site_dir / RUNTIME_DIR / site_pages.EDITOR_FILES.format(name=recipe.name)
            target.parent.mkdir(parents=True, exist_ok=True)
            files = site_pages.editor_files(recipe, ROOT / "recipes" / recipe.name)
            target.write_text(json.dumps(files), encoding="utf-8")
