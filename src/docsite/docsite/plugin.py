"""The site's MkDocs plugin (``plugins: [docsite]`` in ``mkdocs.yml``).

What a build adds to the hand-written pages in ``docs/``:

- **Generated pages**: one page per recipe (``recipes/<name>.md``, its files included byte for
  byte with snippets, placed on its learning path), the recipes index, one page per hedron
  component (with the scoped copy of hedron's stylesheet its previews use) and the API
  reference (:mod:`docsite.pages`).
- **Markers in hand-written pages**: ``<!-- tryit: NAME -->`` becomes that recipe's widget,
  ``<!-- recipes -->`` the box of the guide's features and their recipes,
  ``<!-- component-gallery -->`` the table of every component, ``<!-- install -->`` the
  commands installing this build's wheels, ``<!-- quickstart: NAME -->`` an example's
  download-and-run commands (both for the site's address); the guides' mentions of public
  objects link to their reference entries.
- **Nav**: sections are completed from what exists; the Recipes, component gallery and API
  reference sections are generated.
- **Try it**: the runtime (:mod:`docsite.runtime`, cached in ``.cache/site/``) is built before
  the pages and copied into the site under ``_tryit/`` with the only scripts the hedron demo
  panel's sandboxed frame may run (``runtime.FRAME_SCRIPTS``), the code editor and the files it
  opens (``_tryit/recipes/<name>.json``). With ``runtime: false`` (or ``TRYIT_SKIP_RUNTIME=1``)
  the pages are built without it and the widgets show their recorded transcripts; with
  ``prepared_interpreter: true`` (or ``TRYIT_PREPARED=1``) it carries the prepared
  interpreter, the one part of a build that needs Chromium. Every page carries the import map
  that resolves the editor's CodeMirror imports to that copy (:func:`docsite.editor.import_map`).

The standalone example tree is published by the second plugin, ``docsite/examples``
(:class:`docsite.examples.publish.ExamplesPlugin`).

MIME types: ``mkdocs serve`` sends ``.wasm`` as ``application/wasm`` and ``.mjs`` as
JavaScript (a wrong wasm type makes ``loadPyodide`` hang silently).
"""

from __future__ import annotations

import json
import logging
import mimetypes
import os
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.utils import get_relative_url, is_error_template

from docsite import editor
from docsite.examples import tree as examples
from docsite.pages import components as component_pages
from docsite.pages import features as guide_features
from docsite.pages import install as install_block
from docsite.pages import learning_paths, nav, preview_css, recipe_reference, timelines
from docsite.pages import links as guide_links
from docsite.pages import recipes as site_pages
from docsite.pages import reference as reference_pages
from docsite.paths import RECIPES, REPO
from docsite.runtime import build as runtime
from docsite.runtime import bundle
from tryit.recipe import Recipe, load_recipes

mimetypes.add_type("application/wasm", ".wasm")
mimetypes.add_type("text/javascript", ".mjs")

RUNTIME_DIR = "_tryit"
EDITOR_DIR = f"{RUNTIME_DIR}/{editor.FOLDER}"
log = logging.getLogger(f"mkdocs.plugins.{__name__}")


class SiteConfig(base.Config):
    """The plugin's options in ``mkdocs.yml``."""

    #: Build the Try-it runtime and copy it into the site (``TRYIT_SKIP_RUNTIME=1`` turns it
    #: off as well): without it the widgets show their recorded transcripts.
    runtime = c.Type(bool, default=True)
    #: Add the prepared interpreter (``TRYIT_PREPARED=1`` turns it on as well): a snapshot of
    #: the started runtime, made in headless Chromium at build time, which a first visit on a
    #: fast link from a host serving the ``.br`` copies restores instead of starting Python.
    #: Off, the build needs no browser.
    prepared_interpreter = c.Type(bool, default=False)


class SitePlugin(BasePlugin[SiteConfig]):
    """Generated pages, widgets, the Try-it runtime and the example tree."""

    def __init__(self) -> None:
        self._build: dict[str, Any] = {}
        self._command = "build"

    # What one build reads once; emptied when a (re)build starts.

    @property
    def with_runtime(self) -> bool:
        return self.config.runtime and not _flag("TRYIT_SKIP_RUNTIME")

    @property
    def prepared(self) -> bool:
        return self.config.prepared_interpreter or _flag("TRYIT_PREPARED")

    @property
    def runtime_dir(self) -> Path:
        return runtime.PREPARED_RUNTIME if self.prepared else runtime.RUNTIME

    def _recipes(self) -> list[Recipe]:
        if "recipes" not in self._build:
            self._build["recipes"] = load_recipes(RECIPES)
        return list(self._build["recipes"])

    def _features(self) -> dict[str, list[guide_features.Feature]]:
        if "features" not in self._build:
            self._build["features"] = guide_features.read_features()
        return dict(self._build["features"])

    def _timelines(self) -> dict[str, str]:
        """Each recipe's tested run drawn (the figure's HTML), by name."""
        if "timelines" not in self._build:
            drawn = timelines.draw(self._recipes())
            self._build["timelines"] = {name: t.html() for name, t in drawn.items()}
        return dict(self._build["timelines"])

    def _download(self) -> int | None:
        """The most a widget's first click downloads (from the runtime's manifest), once it is
        built: a fresh start's files, or on a fast link from a host serving the ``.br`` copies
        the prepared interpreter and what it needs (``snapshot.download``), whichever is
        more."""
        path = self.runtime_dir / "pyodide" / bundle.MANIFEST
        if not self.with_runtime or not path.exists():
            return None
        manifest = json.loads(path.read_text(encoding="utf-8"))
        prepared = manifest.get("snapshot", {}).get("download", {}).get("brotli", 0)
        return max(int(manifest["download"]), int(prepared))

    def _generated(self, config: Any) -> dict[str, str]:
        if "generated" in self._build:
            return dict(self._build["generated"])
        recipes = self._recipes()
        paths = learning_paths.read_paths()
        all_steps = learning_paths.steps(paths, recipes)
        download = self._download()
        drawn = self._timelines()

        def page(recipe: Recipe) -> str:
            before, step, after = learning_paths.find(all_steps, recipe.name)
            quickstart = (
                examples.quickstart_markdown(recipe.name, site_url=config["site_url"])
                if site_pages.exported(recipe)
                else ""
            )
            return site_pages.recipe_page(
                recipe,
                quickstart,
                download,
                step_line=learning_paths.step_line(step) if step else "",
                step_links=learning_paths.step_links(before, after),
                timeline=drawn.get(recipe.name, ""),
            )

        pages = {f"recipes/{r.name}.md": page(r) for r in recipes}
        if recipes:
            pages["recipes/index.md"] = learning_paths.index_markdown(paths, recipes)
        names = reference_pages.identifiers(REPO).get("hedron", {})
        components = {name: names[name] for name in names if "." not in name}
        pages.update(component_pages.pages(components))
        pages.update(reference_pages.pages(REPO))
        pages[recipe_reference.PAGE] = recipe_reference.markdown()
        self._build["generated"] = pages
        return dict(pages)

    # MkDocs events, in the order a build runs them.

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self._command = command

    def on_config(self, config: Any) -> Any:
        self._build.clear()  # `mkdocs serve`: every rebuild reads the recipes and sources again
        if self._command != "serve" and config["site_url"] == examples.read_site_url():
            log.info(
                "site_url is %s, the local preview's address: set SITE_URL to the address "
                "the site will be served from (scripts/build)",
                config["site_url"],
            )
        reference_pages.refresh(REPO)  # read the libraries again only if they changed
        if self.with_runtime:  # before the pages: they say how much a first click downloads
            runtime.build(prepared=self.prepared)
        docs = Path(config["docs_dir"])
        available = {p.relative_to(docs).as_posix() for p in docs.rglob("*.md")}
        available |= set(self._generated(config))
        sections = {
            "recipes/": learning_paths.nav(learning_paths.read_paths(), self._recipes()),
            f"{component_pages.FOLDER}/": component_pages.nav(),
            "reference/": reference_pages.nav(REPO),
        }
        config["nav"] = nav.expand_nav(config["nav"], available, sections)
        return config

    def on_files(self, files: Files, config: Any) -> Files:
        generated = {**self._generated(config), preview_css.OUTPUT: preview_css.stylesheet()}
        for uri, content in generated.items():
            if files.get_file_from_path(uri) is None:
                files.append(File.generated(config, uri, content=content))
        return files

    def on_page_markdown(self, markdown: str, page: Any, config: Any, files: Files) -> str:
        """Topic pages: widgets, the features box, the gallery table, links to the reference."""
        where = page.file.src_uri
        recipes = self._recipes()
        if "tryit:" in markdown:
            markdown = site_pages.embed_widgets(
                markdown, recipes, where, self._download(), self._timelines()
            )
        titles = {r.name: r.title for r in recipes}
        markdown = guide_features.embed_features(markdown, where, self._features(), titles)
        markdown = component_pages.embed_gallery(markdown, where)
        markdown = install_block.embed_install(markdown, config["site_url"])
        markdown = install_block.embed_quickstart(markdown, config["site_url"], where)
        library = _guide_library(where)
        if library is not None:
            names = reference_pages.identifiers(REPO).get(library, {})
            markdown = guide_links.link_mentions(markdown, names)
        return markdown

    def on_post_page(self, output: str, *, page: Any, config: Any) -> str:
        """Every page maps the editor's module names to the site's copy of CodeMirror (the
        theme's instant navigation keeps the first page's map, so every page has one)."""
        return _with_import_map(output, get_relative_url(f"{EDITOR_DIR}/", page.url))

    def on_post_template(self, output_content: str, *, template_name: str, config: Any) -> str:
        """The error page too, with the address MkDocs gives its links (it is served anywhere)."""
        if not is_error_template(template_name):
            return output_content
        root = urlsplit(config["site_url"] or "/").path.rstrip("/")
        return _with_import_map(output_content, f"{root}/{EDITOR_DIR}/")

    def on_post_build(self, config: Any) -> None:
        site_dir = Path(config["site_dir"])
        if self.with_runtime:
            target = site_dir / RUNTIME_DIR
            shutil.rmtree(target, ignore_errors=True)
            if self._command == "serve":  # the preview links to the cache: no 40 MB copy
                target.mkdir(parents=True)
                for part in self.runtime_dir.iterdir():
                    if part.name != ".stamp":
                        (target / part.name).symlink_to(part)
            else:
                shutil.copytree(self.runtime_dir, target, ignore=shutil.ignore_patterns(".stamp"))
            for script in runtime.FRAME_SCRIPTS:  # what the hedron demo panel's frame may run
                (target / script.name).unlink(missing_ok=True)  # a link into the cache
                shutil.copy2(script, target / script.name)
        # The code editor (CodeMirror, a few files) and the recipes' files it opens: written
        # even without the runtime.
        editor.install(site_dir / EDITOR_DIR)
        for recipe in self._recipes():
            if recipe.in_browser:
                target = site_dir / RUNTIME_DIR / site_pages.EDITOR_FILES.format(name=recipe.name)
                target.parent.mkdir(parents=True, exist_ok=True)
                files = site_pages.editor_files(recipe)
                target.write_text(json.dumps(files), encoding="utf-8")

    def on_serve(self, server: Any, config: Any, builder: Any) -> Any:
        """``mkdocs serve`` rebuilds when a recipe changes."""
        server.watch(str(RECIPES))
        return server


def _with_import_map(html: str, base: str) -> str:
    """``html`` with the editor's import map last in its head (before any module loads)."""
    head, found, rest = html.partition("</head>")
    if not found:
        raise ValueError("the page has no </head> for the editor's import map")
    return head + editor.import_map(base) + found + rest


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


def _guide_library(src_uri: str) -> str | None:
    """The library of a hand-written guide page (``resq/polling.md``), else ``None``."""
    top = src_uri.split("/", 1)[0]
    generated = src_uri.startswith(f"{component_pages.FOLDER}/")
    return top if top in learning_paths.LIBRARIES and not generated else None
