"""What the build's prepared interpreter depends on (``docsite/runtime/prepared.py``): the
worker that makes it, every module of it. The runtime's build makes a new snapshot when one of
them changes (``docsite/runtime/build.py``)."""

from __future__ import annotations

from pathlib import Path

from docsite.runtime import prepared


def test_every_module_the_worker_imports_is_part_of_it() -> None:
    names = {path.name for path in prepared.worker_files()}
    assert {
        "worker.mjs",
        "progress.mjs",
        "snapshot.mjs",
        "prepared.mjs",
        "download.mjs",
        "files.mjs",
        "lockdown.mjs",
    } <= names
    assert "tryit.mjs" not in names  # the page's module, which the worker never runs
    assert "fetcher.mjs" not in names  # the bundle's own worker: it starts no Python


def test_imports_are_followed_over_lines_and_through_other_modules(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    sources = {
        "w.mjs": 'import {\n  a,\n  b,\n} from "./a.mjs";\nimport "./lib/c.mjs";\n',
        "a.mjs": 'export { x } from "./b.mjs";\n// import "./not.mjs";\n',
        "b.mjs": 'import { a } from "./a.mjs";\nexport const x = () => import("./d.mjs");\n',
        "lib/c.mjs": "import(new URL('pyodide.mjs', import.meta.url).href);\n",  # the runtime's
        "d.mjs": "",
        "not.mjs": "",
    }
    for name, text in sources.items():
        (tmp_path / name).write_text(text)
    found = prepared.worker_files(tmp_path / "w.mjs")
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        "a.mjs",
        "b.mjs",
        "d.mjs",
        "lib/c.mjs",
        "w.mjs",
    ]
