"""The repository's JavaScript, type-checked by TypeScript as mypy checks its Python.

Every JS source (:func:`sources`: the "Try it" widget and worker under ``docs/assets/``, the
runtime build's Node scripts, hedron's own script) starts with ``// @ts-check`` and belongs to
exactly one of three programs, one per place the code runs, each a ``tsconfig.<name>.json``
beside this file with the options of ``tsconfig.base.json``:

- ``page``: the site's pages and the demo panel's frame (the DOM);
- ``worker``: the Pyodide worker and what it imports (a DedicatedWorker's global scope);
- ``node``: the build's Node scripts.

The few outside types the code uses (CodeMirror's, Pyodide's, Node's) are declared in
``types/``, only as much of them as is used. TypeScript itself is pinned (:data:`TYPESCRIPT`),
fetched with ``npm pack`` into the git-ignored cache (``docsite/npm.py``) and run with Node
(``tsc --build tsconfig.json``); it writes nothing but what it knows of the last check of each
program (``.cache/jscheck/``). Usage::

    python -m docsite.jscheck
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from docsite import npm
from docsite.paths import CACHE, DOCS, REPO, SRC

TYPESCRIPT = "typescript@6.0.3"
HERE = Path(__file__).resolve().parent
PROGRAMS = ("page", "worker", "node")
PRAGMA = "// @ts-check"
_TOOL = CACHE / "typescript" / TYPESCRIPT.rpartition("@")[2]
_LINE_COMMENT = re.compile(r"^\s*//.*$", re.MULTILINE)


def sources() -> list[Path]:
    """Every JavaScript source of the site and the libraries (third-party files excluded)."""
    found = [
        path
        for top in (DOCS, SRC)
        for pattern in ("*.js", "*.mjs")
        for path in top.rglob(pattern)
        if "vendor" not in path.relative_to(top).parts
    ]
    return sorted(found)


def config(program: str) -> Path:
    """A program's ``tsconfig.<program>.json``."""
    return HERE / f"tsconfig.{program}.json"


def program_files(program: str) -> list[Path]:
    """The files a program lists (``files`` of its config; its comments are whole lines)."""
    text = _LINE_COMMENT.sub("", config(program).read_text(encoding="utf-8"))
    return [(HERE / name).resolve() for name in json.loads(text).get("files", [])]


def problems() -> list[str]:
    """What keeps the programs from covering every source once, each with its pragma."""
    found: list[str] = []
    listed: dict[Path, list[str]] = {}
    for program in PROGRAMS:
        for path in program_files(program):
            listed.setdefault(path, []).append(program)
            if not path.is_file():
                found.append(f"tsconfig.{program}.json lists {path}, which does not exist")
    for path in sources():
        where = path.relative_to(REPO)
        programs = listed.get(path, [])
        if len(programs) != 1:
            found.append(f"{where} is in {len(programs)} programs ({', '.join(programs)}), not 1")
        if not path.read_text(encoding="utf-8").startswith(PRAGMA + "\n"):
            found.append(f"{where} does not start with {PRAGMA!r}")
    return found


def install() -> Path:
    """TypeScript's compiler (``lib/tsc.js``), from the pinned package, extracted once."""
    tsc = _TOOL / "lib" / "tsc.js"
    if tsc.exists():
        return tsc
    tarball = npm.pack(TYPESCRIPT)
    staging = _TOOL.with_name(_TOOL.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    with tarfile.open(tarball, "r:gz") as tar:
        members = [
            m
            for m in tar.getmembers()
            if re.fullmatch(r"package/(package\.json|lib/_?tsc\.js|lib/lib\.[^/]+\.d\.ts)", m.name)
        ]
        for member in members:
            member.name = member.name.removeprefix("package/")
        tar.extractall(staging, members=members, filter="data")
    shutil.rmtree(_TOOL, ignore_errors=True)
    staging.replace(_TOOL)
    return tsc


def check(programs: tuple[str, ...] = PROGRAMS) -> int:
    """Run ``tsc --build`` on the programs (a program none of whose files changed since it last
    passed is not checked again); print what it says; 0 when all pass."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("Node.js is required to run TypeScript (apt-get install nodejs)")
    found = problems()
    for problem in found:
        print(f"jscheck: {problem}", file=sys.stderr)
    every = programs == PROGRAMS  # tsconfig.json: the three
    configs = [HERE / "tsconfig.json"] if every else [config(program) for program in programs]
    pretty = "true" if sys.stdout.isatty() else "false"
    command = [node, str(install()), "--build", *map(str, configs), "--pretty", pretty]
    run = subprocess.run(command, cwd=REPO, check=False)
    return 1 if found or run.returncode else 0


def main(argv: list[str]) -> int:
    started = time.perf_counter()
    programs = tuple(argv) or PROGRAMS
    unknown = sorted(set(programs) - set(PROGRAMS))
    if unknown:
        print(f"usage: python -m docsite.jscheck [{' '.join(PROGRAMS)}]", file=sys.stderr)
        return 2
    status = check(programs)
    elapsed = time.perf_counter() - started
    print(f"tsc: {'failed' if status else 'passed'} ({', '.join(programs)}; {elapsed:.1f} s)")
    return status
