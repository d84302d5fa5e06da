"""Build the code editor of the "Try it" widget (CodeMirror 6) as self-hosted ES modules.

The packages are pinned here (:data:`PACKAGES`, exact versions), fetched by ``npm pack``
into the git-ignored npm cache (``docsite/npm.py``) and written, one module per
package, into ``.cache/site/editor/codemirror/`` (git-ignored): each package's ES module
entry point with its bare import specifiers (``@codemirror/state``, ``style-mod``...)
rewritten to the sibling file (``./codemirror-state.js``). So the browser loads them
as they are, from the site's own origin, with no bundler. Beside them: ``LICENSE.txt``
(every package's licence, as their MIT terms ask) and ``manifest.json`` (the pins and the
files' sizes and sha256).

The MkDocs plugin (``docsite/plugin.py``) copies the folder into the built site as
``_tryit/codemirror/`` and writes into every page an import map (:func:`import_map`) that
resolves each package's name to its file there: ``docs/assets/tryit/editor.mjs`` imports
CodeMirror by those names (``@codemirror/state``), as it would from npm, so no source names
the build's output. Nothing imports that module before the reader clicks Edit, and the map
itself loads nothing. Usage as a script: ``python -m docsite.editor [--force]``.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from docsite import npm
from docsite.paths import CACHE, REPO

OUTPUT = CACHE / "site" / "editor"
FOLDER = "codemirror"  # the folder's name, in the cache and under the site's _tryit/

# What the editor uses (state, view, language, commands, Python) and everything those
# import, each at an exact version. To upgrade: change a pin, run this script; it fails
# when a package needs a dependency that is missing here or outside the pinned range.
PACKAGES = (
    "@codemirror/state@6.7.6",
    "@codemirror/view@6.43.15",
    "@codemirror/language@6.13.1",
    "@codemirror/commands@6.11.1",
    "@codemirror/lang-python@6.2.1",
    "@codemirror/autocomplete@6.20.4",
    "@codemirror/streamparser@6.0.0",
    "@lezer/common@1.5.5",
    "@lezer/highlight@1.2.5",
    "@lezer/lr@1.4.12",
    "@lezer/python@1.1.19",
    "@marijn/find-cluster-break@1.0.4",
    "crelt@1.0.7",
    "style-mod@4.1.4",
    "w3c-keyname@2.2.8",
)

# A static import or re-export at the start of a line, as the packages' builds write them:
# ``import { a } from '@codemirror/state';``, ``export { b } from 'x';``, ``import 'x';``.
_STATIC = re.compile(
    r"""^(?P<head>(?:import|export)\b[^;'"]*?\bfrom\s*|import\s*)(?P<q>['"])(?P<spec>[^'"\n]+)(?P=q)""",
    re.MULTILINE,
)
_DYNAMIC = re.compile(r"""\bimport\s*\(\s*['"]""")
_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def module_file(name: str) -> str:
    """The file a package is served as: ``@codemirror/state`` → ``codemirror-state.js``."""
    return name.lstrip("@").replace("/", "-") + ".js"


def split_spec(spec: str) -> tuple[str, str]:
    """``"@lezer/lr@1.4.12"`` → ``("@lezer/lr", "1.4.12")``."""
    name, _, version = spec.rpartition("@")
    if not name or not _VERSION.fullmatch(version):
        raise ValueError(f"spec must pin an exact version (name@x.y.z), got {spec!r}")
    return name, version


def entry_point(manifest: Mapping[str, Any]) -> str:
    """The ES module a browser's ``import`` of the package loads (``exports``, ``module``)."""
    exports = manifest.get("exports")
    if isinstance(exports, Mapping) and "." in exports:
        exports = exports["."]
    if isinstance(exports, str):
        return exports.removeprefix("./")
    if isinstance(exports, Mapping):
        for condition in ("import", "browser", "default"):
            if isinstance(exports.get(condition), str):
                return str(exports[condition]).removeprefix("./")
    if isinstance(manifest.get("module"), str):
        return str(manifest["module"]).removeprefix("./")
    raise ValueError(f"{manifest.get('name')}: package.json names no ES module entry point")


def satisfies(version: str, wanted: str) -> bool:
    """Whether ``version`` (x.y.z) is in the npm range ``wanted`` (``^x.y.z`` or exact)."""
    have = _VERSION.fullmatch(version)
    need = _VERSION.fullmatch(wanted.removeprefix("^"))
    if have is None or need is None:
        raise ValueError(f"unsupported version or range: {version!r} in {wanted!r}")
    h = tuple(int(part) for part in have.groups())
    n = tuple(int(part) for part in need.groups())
    if not wanted.startswith("^"):
        return h == n
    fixed = 1 if n[0] else 2  # ^1.2.3 keeps the major, ^0.2.3 the major and the minor
    return h[:fixed] == n[:fixed] and h >= n


def rewrite_imports(source: str, files: Mapping[str, str], where: str) -> str:
    """``source`` with each bare import specifier replaced by ``./<files[name]>``.

    Raises ``ValueError`` naming the module (``where``) for a specifier that is not a pinned
    package, and for a dynamic ``import("...")`` (none of the packages has one).
    """

    def replace(match: re.Match[str]) -> str:
        spec = match["spec"]
        if spec.startswith((".", "/")):
            raise ValueError(f"{where}: relative import {spec!r} (one file per package expected)")
        if spec not in files:
            raise ValueError(f"{where} imports {spec!r}, which is not pinned in PACKAGES")
        return f"{match['head']}{match['q']}./{files[spec]}{match['q']}"

    if _DYNAMIC.search(source):
        raise ValueError(f"{where} has a dynamic import, which this build does not rewrite")
    return _STATIC.sub(replace, source)


def check_dependencies(manifests: Mapping[str, Mapping[str, Any]]) -> None:
    """Raise ``ValueError`` listing every dependency that is not pinned or out of its range."""
    pinned = {name: str(m["version"]) for name, m in manifests.items()}
    problems = []
    for name, manifest in manifests.items():
        for dep, wanted in dict(manifest.get("dependencies") or {}).items():
            if dep not in pinned:
                problems.append(f"{name} needs {dep}@{wanted}, which is not pinned")
            elif not satisfies(pinned[dep], wanted):
                problems.append(f"{name} needs {dep}@{wanted}, pinned {pinned[dep]}")
    if problems:
        raise ValueError("editor packages: " + "; ".join(problems))


def _key() -> str:
    digest = hashlib.sha256("\n".join(PACKAGES).encode())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()[:16]


def build(*, force: bool = False) -> Path:
    """Write the editor's modules into ``OUTPUT/codemirror`` (cached) and return the folder."""
    target = OUTPUT / FOLDER
    manifest_path = target / "manifest.json"
    key = _key()
    built = json.loads(manifest_path.read_text("utf-8")) if manifest_path.exists() else {}
    if not force and built.get("key") == key:
        return target
    npm.pack_all(list(PACKAGES))  # one npm process for the missing ones
    names = dict(split_spec(spec) for spec in PACKAGES)
    specs = {name: f"{name}@{version}" for name, version in names.items()}
    manifests = {name: json.loads(npm.read(specs[name], "package.json")) for name in names}
    for name, manifest in manifests.items():
        if manifest.get("name") != name or manifest.get("version") != names[name]:
            raise ValueError(f"{specs[name]}: the tarball holds {manifest.get('name')}")
    check_dependencies(manifests)
    files = {name: module_file(name) for name in names}
    staging = OUTPUT / (FOLDER + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    modules: dict[str, dict[str, Any]] = {}
    licences = []
    for name, manifest in manifests.items():
        source = npm.read(specs[name], entry_point(manifest)).decode("utf-8")
        data = rewrite_imports(source, files, specs[name]).encode("utf-8")
        (staging / files[name]).write_bytes(data)
        modules[files[name]] = {
            "package": specs[name],
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
        licence = npm.read(specs[name], "LICENSE").decode("utf-8").strip()
        licences.append(f"{specs[name]} ({manifest.get('license', 'see below')})\n\n{licence}\n")
    (staging / "LICENSE.txt").write_text(("\n" + "-" * 72 + "\n\n").join(licences), "utf-8")
    summary = {"key": key, "packages": list(PACKAGES), "modules": modules}
    (staging / "manifest.json").write_text(json.dumps(summary, indent=1) + "\n", "utf-8")
    shutil.rmtree(target, ignore_errors=True)
    staging.replace(target)
    return target


def import_map(base: str) -> str:
    """The ``<script type="importmap">`` that resolves each pinned package's name (the names
    ``editor.mjs`` imports) to its module under ``base`` (the folder's URL, ending in "/").

    A relative ``base`` is written with its leading "./": an import map takes an address
    without one (``_tryit/...``) for another bare name, and ignores it.
    """
    if not re.match(r"[a-z][a-z0-9+.-]*:|\.{0,2}/", base):
        base = f"./{base}"
    names = [split_spec(spec)[0] for spec in PACKAGES]
    imports = {name: f"{base}{module_file(name)}" for name in names}
    return f'<script type="importmap">{json.dumps({"imports": imports})}</script>'


def install(dest: Path) -> None:
    """Build (cached) and copy the editor's modules into ``dest`` (a folder of the site)."""
    source = build()
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(source, dest)


def main(argv: list[str]) -> int:
    folder = build(force="--force" in argv)
    total = sum(p.stat().st_size for p in folder.glob("*.js"))
    print(f"editor ready in {folder.relative_to(REPO)} ({total / 1e3:.0f} kB of modules)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
