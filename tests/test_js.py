"""How the JavaScript is wired: every source is type-checked (``docsite.jscheck``), its modules
import one another without circles, and no source imports what only a build makes (``_tryit/``,
the site's folder): an import names a source file, a CodeMirror package the pages' import map
resolves (``docsite.editor``), or, in the Node scripts, a Node module. Static imports and
dynamic ones with a literal specifier count; a dynamic import of a computed address loads the
Pyodide runtime's own modules, and those few places are listed here. Read from the source by
``docsite.jsimports``, so a comment, a string or a regular expression never counts."""

from __future__ import annotations

from pathlib import Path

from docsite import editor, jscheck
from docsite.jsimports import imports
from docsite.paths import REPO
from tests.test_imports import _cycles


def _graph(paths: list[Path]) -> tuple[dict[str, set[str]], list[str], dict[str, int]]:
    """The sources' import graph (by path from the repository), the imports that name no
    source (each said), and each source's number of computed dynamic imports."""
    mapped = {editor.split_spec(spec)[0] for spec in editor.PACKAGES}  # the pages' import map
    node = set(jscheck.program_files("node"))
    known = {path.resolve() for path in paths}
    graph: dict[str, set[str]] = {}
    wrong: list[str] = []
    computed: dict[str, int] = {}
    for path in paths:
        name = _name(path)
        specs, computed[name] = imports(path.read_text(encoding="utf-8"))
        graph[name] = set()
        for spec in specs:
            if spec.startswith(("./", "../", "/")):
                target = (path.parent / spec).resolve() if spec[0] == "." else Path(spec)
                if target in known:
                    graph[name].add(_name(target))
                    continue
            elif spec in mapped or (spec.startswith("node:") and path.resolve() in node):
                continue
            wrong.append(f"{name} imports {spec!r}, which is not a source nor a package")
    return graph, wrong, {name: count for name, count in computed.items() if count}


def _name(path: Path) -> str:
    path = path.resolve()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else path.name


def test_every_js_source_is_in_one_checked_program() -> None:
    assert jscheck.problems() == []


def test_js_modules_import_sources_without_circles() -> None:
    graph, wrong, computed = _graph(jscheck.sources())
    assert "docs/assets/tryit/editor.mjs" in graph["docs/assets/tryit/editing.mjs"]
    assert wrong == []
    assert _cycles(graph) == []
    # Pyodide's own modules, loaded at run time from the runtime's folder (the worker's
    # fetched copy, or the plain file; the build's Node script, from the folder it is given);
    # the timelines' build script imports the page's drawing module from the path it is given
    assert computed == {
        "docs/assets/tryit/worker.mjs": 2,
        "src/docsite/docsite/runtime/run_in_node.mjs": 1,
        "src/docsite/docsite/pages/timelines.mjs": 1,
    }


def test_the_js_check_finds_circles_and_imports_of_the_build(tmp_path: Path) -> None:
    sources = {
        "a.mjs": 'import { b } from "./b.mjs";\n// import "./nothing.mjs";\nexport const a = 1;\n',
        "b.mjs": 'export const b = () => import("./c.mjs");\nconst s = "import(\'./d.mjs\')";\n',
        "c.mjs": "export * from './a.mjs';\nconst re = /import\\(\"x\"\\)/g;\n",
        "d.mjs": 'import { EditorView } from "../../_tryit/codemirror/codemirror-view.js";\n'
        "const t = `${import.meta.url} import('./a.mjs')`;\nawait import(t);\n",
        "e.mjs": 'import { EditorView } from "@codemirror/view";\nimport "node:fs";\n',
    }
    for name, text in sources.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    graph, wrong, computed = _graph(sorted(tmp_path.iterdir()))
    assert _cycles(graph) == [["a.mjs", "b.mjs", "c.mjs"]]
    assert graph["d.mjs"] == set()
    assert wrong == [
        "d.mjs imports '../../_tryit/codemirror/codemirror-view.js', which is not a source nor a "
        "package",
        "e.mjs imports 'node:fs', which is not a source nor a package",
    ]
    assert computed == {"d.mjs": 1}


def test_the_tokenizer_reads_imports_not_their_look_alikes() -> None:
    source = (
        "import x, { y as z } from './one.mjs';\n"
        'import "./two.mjs";\n'
        "export { w } from './three.mjs';\n"
        "export const f = (a) => a / 2 / 3;\n"
        "const r = /['\"]import/.test(`a ${'`'} b`);\n"
        "const m = { import: 1 }.import;\n"
        "const later = await import(`./four.mjs`);\n"
        "import(new URL('five.mjs', import.meta.url).href);\n"
    )
    assert imports(source) == (["./one.mjs", "./two.mjs", "./three.mjs", "./four.mjs"], 1)
