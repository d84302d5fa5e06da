"""How the JavaScript is wired: every source is type-checked (``docsite.jscheck``), its modules
import one another without circles, and no source imports what only a build makes (``_tryit/``,
the site's folder): an import names a source file, a CodeMirror package the pages' import map
resolves (``docsite.editor``), or, in the Node scripts, a Node module. Static imports and
dynamic ones with a literal specifier count; a dynamic import of a computed address loads the
Pyodide runtime's own modules, and those few places are listed here. Read from the source with a
small tokenizer, so a comment, a string or a regular expression never counts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from docsite import editor, jscheck
from docsite.paths import REPO
from tests.test_imports import _cycles

# Where `/` starts a regular expression rather than a division: after these, or at the start.
_BEFORE_REGEX = set("(,=:[!&|?{};+-*%<>~^") | {"=>", "..."}
_KEYWORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void",
             "throw", "instanceof", "yield", "await"}  # fmt: skip
_PUNCT = re.compile(r"\.\.\.|=>|[^\s\w$]")
_WORD = re.compile(r"[\w$]+")

Token = tuple[str, str]  # (kind, text): "name", "string" (its value), "computed", "punct"


def _tokens(source: str) -> Iterator[Token]:
    """The tokens that matter for imports: names, strings (a template literal without
    substitutions is one; with them, "computed"), punctuation. Comments, regular expressions
    and the text of templates are skipped."""
    i, n = 0, len(source)
    previous: Token | None = None
    braces: list[int] = []  # the open braces of each template substitution being read

    def template(start: int) -> tuple[int, bool]:
        """Read a template from ``start`` (after the backtick or a substitution's ``}``) to its
        end or its next substitution: (where it stopped, whether at a substitution)."""
        j = start
        while j < n:
            if source[j] == "\\":
                j += 2
            elif source[j] == "`":
                return j + 1, False
            elif source.startswith("${", j):
                return j + 2, True
            else:
                j += 1
        raise ValueError("unterminated template literal")

    while i < n:
        char = source[i]
        token: Token | None = None
        if char.isspace():
            i += 1
            continue
        if source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
            continue
        if source.startswith("/*", i):
            i = source.index("*/", i + 2) + 2
            continue
        if char in "'\"":
            j = i + 1
            while source[j] != char:
                j += 2 if source[j] == "\\" else 1
            token, i = ("string", source[i + 1 : j]), j + 1
        elif char == "`" or (char == "}" and braces and braces[-1] == 0):
            if char == "}":
                braces.pop()
            end, substitution = template(i + 1)
            if substitution:
                braces.append(0)
                token = ("computed", "")
            elif char == "`":
                token = ("string", source[i + 1 : end - 1])
            else:
                token = ("computed", "")
            i = end
        elif char == "/" and (
            previous is None
            or (previous[0] == "punct" and previous[1] in _BEFORE_REGEX)
            or (previous[0] == "name" and previous[1] in _KEYWORDS)
        ):
            j, in_class = i + 1, False
            while in_class or source[j] != "/":
                if source[j] == "\\":
                    j += 1
                elif source[j] in "[]":
                    in_class = source[j] == "["
                j += 1
            match = _WORD.match(source, j + 1)
            i = match.end() if match else j + 1
            token = ("computed", "")  # a regular expression: a value, not a name
        elif match := _WORD.match(source, i):
            token, i = ("name", match.group()), match.end()
        else:
            punct = _PUNCT.match(source, i)
            assert punct is not None
            token, i = ("punct", punct.group()), punct.end()
            if braces and token[1] in "{}":
                braces[-1] += 1 if token[1] == "{" else -1
        previous = token
        yield token


def imports(source: str) -> tuple[list[str], int]:
    """The specifiers ``source`` imports (static imports and re-exports, dynamic imports of a
    literal), and how many dynamic imports take a computed address."""
    tokens = list(_tokens(source))
    found: list[str] = []
    computed = 0
    for i, (kind, text) in enumerate(tokens):
        if kind != "name" or text not in ("import", "export"):
            continue
        if i and tokens[i - 1] == ("punct", "."):
            continue  # a property of that name
        following = tokens[i + 1 : i + 4]
        if text == "import" and following[:1] == [("punct", "(")]:
            literal = len(following) == 3 and following[1][0] == "string"
            literal = literal and following[2] == ("punct", ")")
            if literal:
                found.append(following[1][1])
            computed += not literal
        elif text == "import" and following[:1] and following[0][0] == "string":
            found.append(following[0][1])  # import "x" (for its effects)
        elif text == "import" and following[:1] == [("punct", ".")]:
            continue  # import.meta
        elif text == "import" or following[:1] in ([("punct", "{")], [("punct", "*")]):
            for j in range(i + 1, len(tokens) - 1):  # to the statement's `from "x"`
                if tokens[j] == ("punct", ";") or tokens[j][0] in ("string", "computed"):
                    break
                if tokens[j] == ("name", "from") and tokens[j + 1][0] == "string":
                    found.append(tokens[j + 1][1])
                    break
    return found, computed


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
