"""The built site: recipes included byte for byte, nothing from other origins, the runtime
copied with a lockfile that matches its wheels, MIME types Pyodide needs."""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import math
import mimetypes
import re
import urllib.request
from pathlib import Path

import pytest

from docsite.pages import nav as site_nav
from docsite.pages import recipes as site_pages
from docsite.runtime import build as runtime
from docsite.testing.static_server import StaticServer
from tryit.recipe import load_recipe, load_recipes

ROOT = Path(__file__).resolve().parents[2]
RECIPES = sorted(p.parent.name for p in (ROOT / "recipes").glob("*/recipe.toml"))


def _code_blocks(page: str) -> dict[str, str]:
    """``{title: text}`` of the titled code blocks of a built page."""
    blocks = {}
    pattern = r'<span class="filename">([^<]+)</span>\s*<pre>(.*?)</pre>'
    for title, body in re.findall(pattern, page, re.S):
        blocks[title] = html.unescape(re.sub(r"<[^>]+>", "", body))
    return blocks


@pytest.mark.parametrize("name", RECIPES)
def test_recipe_page_shows_every_file_byte_for_byte(built_site: Path, name: str) -> None:
    page = (built_site / "recipes" / name / "index.html").read_text(encoding="utf-8")
    recipe = load_recipe(name)
    files = recipe.files
    blocks = _code_blocks(page)
    for file in files:
        source = (ROOT / "recipes" / name / file).read_text(encoding="utf-8")
        assert blocks[file].rstrip("\n") == source.rstrip("\n"), file
    transcript = (ROOT / "recipes" / name / "transcript.txt").read_text(encoding="utf-8")
    assert html.escape(transcript.splitlines()[0], quote=False) in page
    real = recipe.real
    if real is None:
        assert f'data-tryit="{name}"' in page
    else:  # its page says why it does not run here, and shows a real run instead
        assert "data-tryit" not in page
        assert "This recipe does not run in your browser" in page
        assert html.escape(real.why, quote=False) in page
        assert html.escape(transcript.splitlines()[-1], quote=False) in page


def test_the_widget_says_the_most_the_first_click_downloads(built_site: Path) -> None:
    path = built_site / "_tryit" / "pyodide" / "tryit-bundle.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    # a fresh start, or the prepared interpreter's restore (more bytes, on a fast link)
    most = max(manifest["download"], manifest["snapshot"]["download"]["brotli"])
    assert most > manifest["download"]
    megabytes = math.ceil(most / 1e6)
    assert 0 < megabytes <= 16  # the goal of the site: at most 16 MB
    for page in (f"recipes/{RECIPES[0]}/index.html", "resq/polling/index.html"):
        text = (built_site / page).read_text(encoding="utf-8")
        assert f"The Python runtime (at most {megabytes}&nbsp;MB) loads on the first click" in text
    # without a built runtime (TRYIT_SKIP_RUNTIME) the widget names no size
    info = load_recipes()[0]
    assert "The Python runtime loads on the first click" in site_pages.widget_html(info)


def test_recipe_pages_include_rather_than_copy() -> None:
    info = load_recipes()[0]
    markdown = site_pages.recipe_page(info)
    for file in info.files:
        assert f'--8<-- "recipes/{info.name}/{file}"' in markdown
        assert (ROOT / "recipes" / info.name / file).read_text().splitlines()[0] not in markdown


def test_no_page_loads_anything_from_another_origin(built_site: Path, site_url: str) -> None:
    offenders = []
    tags = r"<(?:script|link|img|iframe|source)\b[^>]*"
    loaders = re.compile(tags + r'(?:src|href)="((?:https?:)?//[^"]*)"', re.I)
    own = site_url  # absolute links to the site itself (canonical) are fine
    for path in built_site.rglob("*.html"):
        for url in loaders.findall(path.read_text(encoding="utf-8")):
            if not url.startswith(own):
                offenders.append(f"{path.relative_to(built_site)}: {url}")
    for path in built_site.rglob("*.css"):
        if re.search(r"url\((['\"]?)(https?:)?//", path.read_text(encoding="utf-8")):
            offenders.append(str(path.relative_to(built_site)))
    assert offenders == []


def test_every_page_maps_the_editors_imports_to_the_sites_own_modules(built_site: Path) -> None:
    """The import map (docsite.editor.import_map) is the last thing in every page's head: the
    first page of a visit is any of them (instant navigation keeps its map)."""
    pages = [
        path
        for path in built_site.rglob("*.html")
        if 'name="generator" content="mkdocs-' in path.read_text(encoding="utf-8")
    ]
    assert len(pages) > 20
    for path in pages:
        maps = re.findall(r'<script type="importmap">(.*?)</script>', path.read_text("utf-8"), re.S)
        assert len(maps) == 1, path
        assert path.read_text(encoding="utf-8").count(f"{maps[0]}</script></head>") == 1, path
        for url in json.loads(maps[0])["imports"].values():
            # relative to the page; the error page's from the root (the test site's is "/")
            target = built_site / url[1:] if url.startswith("/") else path.parent / url
            assert target.resolve().is_file(), (path, url)


def test_runtime_is_copied_with_a_lockfile_matching_its_wheels(built_site: Path) -> None:
    folder = built_site / "_tryit" / "pyodide"
    lock = json.loads((folder / "tryit-lock.json").read_text())
    packages = lock["packages"]
    assert {"resq", "hedron", "tryit", "fastapi", "pydantic-core"} <= set(packages)
    assert lock["info"]["python"].startswith("3.14")
    for name, entry in packages.items():
        data = (folder / entry["file_name"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], name
        assert set(entry["depends"]) <= set(packages), name
    assert packages["pydantic-core"]["file_name"].endswith("pyemscripten_2026_0_wasm32.whl")
    assert "resq" in packages["tryit"]["depends"]
    assert (folder / "pyodide.asm.wasm").stat().st_size > 1_000_000
    assert (built_site / "_tryit" / "htmx.min.js").exists()
    for script in runtime.FRAME_SCRIPTS:  # all the hedron demo panel's frame may run
        assert (built_site / "_tryit" / script.name).read_bytes() == script.read_bytes()
    assert not (folder / "pyodide-lock.json").exists()  # its wheels are not served


def test_the_prepared_interpreter_is_this_runtimes_and_served_only_compressed(
    built_site: Path,
) -> None:
    folder = built_site / "_tryit" / "pyodide"
    manifest = json.loads((folder / "tryit-bundle.json").read_text())
    shipped = manifest["snapshot"]
    # the worker restores it only for this bundle and runtime (snapshot.mjs: snapshotKey)
    assert shipped["key"].split("-", 1)[1] == f"{manifest['sha256']}-{manifest['runtime']}"
    assert not (folder / shipped["file"]).exists()
    data = gzip.decompress((folder / f"{shipped['file']}.gz").read_bytes())
    assert (len(data), hashlib.sha256(data).hexdigest()) == (shipped["size"], shipped["sha256"])
    # the worker checks it slice by slice as it arrives (snapshot.mjs: fill)
    step = shipped["parts"]["size"]
    slices = [hashlib.sha256(data[at : at + step]).hexdigest() for at in range(0, len(data), step)]
    assert shipped["parts"]["sha256"] == slices
    assert len(slices) > 1
    assert (folder / f"{shipped['file']}.br").stat().st_size == shipped["brotli"]
    assert shipped["size"] > 20_000_000
    assert shipped["brotli"] < shipped["size"] / 3
    assert shipped["meta"]["table"] > 0
    assert shipped["meta"]["env"] == {"jspi": True, "isolated": False}
    # not kept with the files: the worker keeps it as the interpreter saved for the next visit
    listed = json.loads((folder / "tryit-files.json").read_text())["files"]
    assert not [name for name in listed if name.startswith(shipped["file"])]
    # what a restore needs of the bundle and of the standard library, served compressed and
    # kept with the files; with the runtime, at most 16 MB from a host serving the .br copies
    whole = gzip.decompress((folder / "site-packages.bin.gz").read_bytes())
    for part in shipped["rest"].values():
        data = gzip.decompress((folder / f"{part['file']}.gz").read_bytes())
        assert (len(data), hashlib.sha256(data).hexdigest()) == (part["size"], part["sha256"])
        assert listed[part["file"]] == part["sha256"]
        assert (folder / f"{part['file']}.br").exists()
    rest = shipped["rest"]["bundle"]
    assert 100 < len(rest["files"]) < len(manifest["files"])
    kept = {name for name, _, _ in rest["files"]}
    assert all(name in kept for name, _, _ in manifest["files"] if not name.endswith(".pyc"))
    assert shipped["download"]["brotli"] <= 16_000_000
    assert len(whole) > rest["size"]


def test_static_server_and_mkdocs_serve_use_the_wasm_and_module_types(built_site: Path) -> None:
    from docsite import plugin  # registers the types for `mkdocs serve`

    assert plugin.RUNTIME_DIR == "_tryit"
    assert mimetypes.guess_type("x.wasm")[0] == "application/wasm"
    with StaticServer(built_site) as server:
        for path, expected in [
            ("_tryit/pyodide/pyodide.asm.wasm", "application/wasm"),
            ("_tryit/pyodide/pyodide.mjs", "text/javascript"),
            ("assets/tryit/worker.mjs", "text/javascript"),
            ("assets/tryit/snapshot.mjs", "text/javascript"),
        ]:
            with urllib.request.urlopen(server.url + path, timeout=10) as response:
                assert response.headers["Content-Type"] == expected, path


def test_nav_completion_drops_missing_pages_and_appends_new_ones() -> None:
    nav = [
        {"Home": "index.md"},
        {"resq": ["resq/index.md", "resq/missing.md"]},
        {"Recipes": "recipes/"},
        {"Empty": "nothing/"},
    ]
    available = {"index.md", "resq/index.md", "resq/zeta.md", "resq/sub/deep.md"}
    available |= {"recipes/b.md", "recipes/index.md", "recipes/a.md"}
    assert site_nav.expand_nav(nav, available) == [
        {"Home": "index.md"},
        {"resq": ["resq/index.md", "resq/zeta.md"]},
        {"Recipes": ["recipes/index.md", "recipes/a.md", "recipes/b.md"]},
    ]


def test_nav_sections_can_be_generated_for_a_folder() -> None:
    nav = [{"hedron": ["hedron/a.md", {"Gallery": "hedron/g/"}]}, {"Recipes": "recipes/"}]
    available = {"hedron/a.md", "hedron/b.md", "hedron/g/x.md", "hedron/g/y.md"}
    available |= {"recipes/index.md", "recipes/one.md", "recipes/two.md"}
    sections = {
        "hedron/g/": [{"Group": ["hedron/g/y.md", "hedron/g/gone.md"]}, {"Empty": ["z.md"]}],
        "recipes/": ["recipes/index.md", {"Path": [{"1. Two": "recipes/two.md"}]}],
    }
    assert site_nav.expand_nav(nav, available, sections) == [
        {
            "hedron": [
                "hedron/a.md",
                {"Gallery": [{"Group": ["hedron/g/y.md"]}, "hedron/g/x.md"]},
                "hedron/b.md",
            ]
        },
        {
            "Recipes": [
                "recipes/index.md",
                {"Path": [{"1. Two": "recipes/two.md"}]},
                "recipes/one.md",  # on no path: appended (and tests/site/test_paths.py fails)
            ]
        },
    ]


def test_component_pages_are_generated_from_the_registry(built_site: Path) -> None:
    import hedron_core

    names = [info.name for info in hedron_core.registry()]
    assert "Poll" in names
    for name in names:
        page = built_site / "hedron" / "components" / name.lower() / "index.html"
        assert page.exists(), name
    poll = (built_site / "hedron" / "components" / "poll" / "index.html").read_text()
    assert "interval_ms" in poll


# An entity escaped twice (``&amp;lt;``) shows ``&lt;`` to the reader. Code blocks may show
# escaped text on purpose (a doctest of escape_text), so only text outside <pre> counts.
DOUBLE_ESCAPED = re.compile(r"&amp;(?:lt|gt|quot|amp|apos|#\d+|#x[0-9a-fA-F]+);")


def test_no_page_shows_an_entity_escaped_twice(built_site: Path) -> None:
    offenders = []
    for path in built_site.rglob("*.html"):
        text = re.sub(r"<pre\b.*?</pre>", "", path.read_text(encoding="utf-8"), flags=re.S)
        for match in DOUBLE_ESCAPED.finditer(text):
            offenders.append(
                f"{path.relative_to(built_site)}: {text[match.start() - 40 : match.end()]}"
            )
    assert offenders == []


def test_home_page_installs_the_published_wheels_and_starts_each_path(built_site: Path) -> None:
    from docsite.pages import learning_paths

    home = (built_site / "index.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", home))
    wheels = re.findall(r'pip install "(\w+) @ (\S+\.whl)"', text)
    assert sorted(name for name, _ in wheels) == ["hedron", "resq"]
    published = {p.name for p in (built_site / "wheels").glob("*.whl")}
    pinned = [r.read_text() for r in (built_site / "examples").glob("*/requirements.txt")]
    for _name, url in wheels:
        filename = url.rsplit("/", 1)[1]
        assert filename in published, url
        # the very wheel the examples pin by hash (they carry a copy in their wheels/)
        digest = hashlib.sha256((built_site / "wheels" / filename).read_bytes()).hexdigest()
        users = [text for text in pinned if f"./wheels/{filename}" in text]
        assert users, filename
        assert all(f"--hash=sha256:{digest}" in text for text in users), filename
    for path_steps in learning_paths.steps(learning_paths.read_paths(), load_recipes()):
        assert f'href="recipes/{path_steps[0].recipe.name}/"' in home


def test_topic_pages_name_the_recipe_their_widget_runs(built_site: Path) -> None:
    marker = re.compile(r"^<!--\s*tryit:", re.M)  # a marker line, not one quoted in a guide
    pages = [p for p in (ROOT / "docs").rglob("*.md") if marker.search(p.read_text("utf-8"))]
    assert pages
    for source in pages:
        rel = source.relative_to(ROOT / "docs").as_posix()
        built = (built_site / rel.removesuffix(".md") / "index.html").read_text("utf-8")
        names = re.findall(r"^<!--\s*tryit:\s*([\w-]+)", source.read_text("utf-8"), re.M)
        for name in names:
            assert f'data-tryit="{name}"' in built
            assert re.search(
                rf'class="tryit-recipe">Runs the recipe <strong><a href="[./]*recipes/{name}/"',
                built,
            ), (rel, name)
        assert "Runs the code below" not in built, rel


def test_topic_pages_embed_a_widget_with_a_marker() -> None:
    recipes = load_recipes()
    page = "Intro\n<!-- tryit: resq-sync-poll -->\nMore"
    out = site_pages.embed_widgets(page, recipes, "resq/polling.md")
    assert 'data-tryit="resq-sync-poll"' in out
    assert '--8<-- "recipes/resq-sync-poll/transcript.txt"' in out
    assert out.startswith("Intro\n")
    assert out.endswith("\nMore")
    with pytest.raises(ValueError, match=re.escape("resq/polling.md: <!-- tryit: nope -->")):
        site_pages.embed_widgets("<!-- tryit: nope -->", recipes, "resq/polling.md")
