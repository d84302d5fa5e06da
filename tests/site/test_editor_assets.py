"""The code editor's build (``docsite/editor.py``): CodeMirror's pinned npm packages
become self-hosted ES modules whose imports are all relative, every package's licence kept."""

from __future__ import annotations

import json
import re

import pytest

from docsite import editor as editor_assets
from docsite.paths import DOCS

FILES = {"@codemirror/state": "codemirror-state.js", "style-mod": "style-mod.js"}


def test_bare_specifiers_become_sibling_files() -> None:
    source = (
        "import { EditorState, Text } from '@codemirror/state';\n"
        'import { StyleModule } from "style-mod";\n'
        "export { Text } from '@codemirror/state';\n"
        "import {\n  a,\n  b\n} from 'style-mod';\n"
        "import 'style-mod';\n"
        '// a comment naming `x from "module"` is left alone\n'
        "const s = 'import from';\n"
    )
    out = editor_assets.rewrite_imports(source, FILES, "demo")
    assert out.splitlines()[0] == "import { EditorState, Text } from './codemirror-state.js';"
    assert 'import { StyleModule } from "./style-mod.js";' in out
    assert "export { Text } from './codemirror-state.js';" in out
    assert "} from './style-mod.js';" in out
    assert "import './style-mod.js';" in out
    assert 'x from "module"' in out
    assert "const s = 'import from';" in out


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("import { x } from '@lezer/missing';", "imports '@lezer/missing', which is not pinned"),
        ("import { x } from './other.js';", "relative import './other.js'"),
        ("const m = import('style-mod');", "dynamic import"),
    ],
)
def test_an_import_the_build_cannot_serve_is_an_error_naming_the_module(
    source: str, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        editor_assets.rewrite_imports(source, FILES, "@codemirror/demo@6.0.0")
    assert "@codemirror/demo@6.0.0" in str(info.value)


def test_caret_ranges_and_exact_pins() -> None:
    assert editor_assets.satisfies("6.7.6", "^6.0.0")
    assert editor_assets.satisfies("6.7.6", "^6.7.6")
    assert not editor_assets.satisfies("6.6.0", "^6.7.0")
    assert not editor_assets.satisfies("7.0.0", "^6.0.0")
    assert editor_assets.satisfies("0.2.9", "^0.2.3")
    assert not editor_assets.satisfies("0.3.0", "^0.2.3")
    assert editor_assets.satisfies("1.0.4", "1.0.4")
    assert not editor_assets.satisfies("1.0.5", "1.0.4")
    with pytest.raises(ValueError, match="unsupported"):
        editor_assets.satisfies("1.0.0", ">=1.0.0")


def test_a_missing_or_out_of_range_dependency_stops_the_build() -> None:
    manifests = {
        "@codemirror/view": {"version": "6.43.15", "dependencies": {"@codemirror/state": "^6.7.0"}},
        "@codemirror/state": {"version": "6.6.0", "dependencies": {"@marijn/x": "^1.0.0"}},
    }
    with pytest.raises(ValueError, match=r"^editor packages: ") as info:
        editor_assets.check_dependencies(manifests)
    assert str(info.value) == (
        "editor packages: @codemirror/view needs @codemirror/state@^6.7.0, pinned 6.6.0; "
        "@codemirror/state needs @marijn/x@^1.0.0, which is not pinned"
    )
    manifests["@codemirror/state"] = {"version": "6.7.6"}
    editor_assets.check_dependencies(manifests)  # all satisfied: no error


def test_entry_points_follow_exports_then_module() -> None:
    assert editor_assets.entry_point({"exports": {"import": "./dist/index.js"}}) == "dist/index.js"
    assert editor_assets.entry_point({"exports": {".": {"import": "./a.js"}}}) == "a.js"
    assert editor_assets.entry_point({"exports": "./b.js"}) == "b.js"
    assert editor_assets.entry_point({"module": "src/c.js"}) == "src/c.js"
    with pytest.raises(ValueError, match="no ES module entry point"):
        editor_assets.entry_point({"name": "cjs-only", "main": "index.js"})


def test_specs_must_pin_exact_versions() -> None:
    assert editor_assets.split_spec("@lezer/lr@1.4.12") == ("@lezer/lr", "1.4.12")
    for spec in ("crelt", "crelt@^1.0.0", "@lezer/lr"):
        with pytest.raises(ValueError, match="exact version"):
            editor_assets.split_spec(spec)


def test_the_built_modules_import_only_each_other() -> None:
    folder = editor_assets.build()
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["packages"] == list(editor_assets.PACKAGES)
    modules = sorted(p.name for p in folder.glob("*.js"))
    assert modules == sorted(manifest["modules"])
    assert len(modules) == len(editor_assets.PACKAGES)
    imported: set[str] = set()
    for name in modules:
        source = (folder / name).read_text(encoding="utf-8")
        specs = re.findall(r"""^(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)""", source, re.M)
        specs += re.findall(r"""^import\s*['"]([^'"]+)""", source, re.M)
        assert all(spec.startswith("./") for spec in specs), (name, specs)
        imported |= {spec[2:] for spec in specs}
    assert imported <= set(modules)
    # every module but the entry points the editor imports is needed by another one
    roots = {"codemirror-commands.js", "codemirror-lang-python.js"}
    assert set(modules) - imported <= roots
    licences = (folder / "LICENSE.txt").read_text(encoding="utf-8")
    for spec in editor_assets.PACKAGES:
        assert spec in licences
    assert licences.count("Permission is hereby granted") == len(editor_assets.PACKAGES)


def test_the_import_map_resolves_the_editors_imports_to_the_built_modules() -> None:
    editor = (DOCS / "assets" / "tryit" / "editor.mjs").read_text()
    wanted = set(re.findall(r"""^} from "([^"]+)";|^import .* from "([^"]+)";""", editor, re.M))
    names = {name for pair in wanted for name in pair if name}
    assert "@codemirror/view" in names
    tag = editor_assets.import_map("/site/_tryit/codemirror/")
    start, end = '<script type="importmap">', "</script>"
    assert tag.startswith(start)
    assert tag.endswith(end)
    imports = json.loads(tag.removeprefix(start).removesuffix(end))
    assert names <= set(imports["imports"])
    built = {p.name for p in editor_assets.build().glob("*.js")}
    files = {url.removeprefix("/site/_tryit/codemirror/") for url in imports["imports"].values()}
    assert files == built
    # a relative address says so (else the map takes it for another bare name)
    relative = editor_assets.import_map("_tryit/codemirror/")
    assert '"@lezer/lr": "./_tryit/codemirror/lezer-lr.js"' in relative
    assert '"crelt": "../codemirror/crelt.js"' in editor_assets.import_map("../codemirror/")
