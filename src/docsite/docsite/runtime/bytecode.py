"""Precompile the "Try it" runtime's Python modules to bytecode, inside Pyodide itself.

Run by ``docsite/runtime/run_in_node.mjs`` (Pyodide under Node), so the bytecode is made by the
very interpreter that loads it in the browser (CPython 3.14 of the pinned Pyodide): a ``.pyc``
from any other Python would be refused. Without it the browser compiles every module it
imports from source on each visit, which was most of the time a cold "Try it" took.

Only what the runtime imports is compiled (the probe: boot, then every recipe run to its end);
the rest stays source, as bytecode is about twice the size of source once zipped. A compiled
``pkg/mod.py`` becomes a sourceless ``pkg/mod.pyc`` whose code carries the source's path, so
tracebacks still name the right file. Members listed in ``keep_sources`` (anyio reads its own
``__init__`` source) keep their ``.py`` with an unchecked hash-based ``__pycache__`` entry.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.util
import json
import marshal
import os
import sys
import zipfile
from typing import Any

# Where Pyodide puts the standard library and the wheels it installs.
STDLIB_PREFIX = "/lib/python314.zip/"
SITE_PACKAGES = "/lib/python3.14/site-packages/"
FIXED_DATE = (1980, 1, 1, 0, 0, 0)


def _without_docstrings(source: bytes, filename: str) -> ast.Module:
    """The module's syntax tree without its module and function docstrings (their ``__doc__``
    becomes None, as under ``python -OO``; asserts stay, unlike ``-OO``).

    Class docstrings stay: a dataclass without one computes a signature for its ``__doc__``
    when it is created (slower imports), and pydantic shows model docstrings in schemas.
    """
    tree = ast.parse(source, filename)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            first = body[0] if body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                body[0:1] = [] if len(body) > 1 else [ast.copy_location(ast.Pass(), first)]
    return tree


def _pyc(code: Any, flags: int, key: bytes) -> bytes:
    """A ``.pyc`` as PEP 552 lays it out: the magic number, the flags, the 8 bytes that key it
    to its source (a time and a size, or a hash), then the marshalled code."""
    return importlib.util.MAGIC_NUMBER + flags.to_bytes(4, "little") + key + marshal.dumps(code)


def _compile(source: bytes, filename: str) -> bytes:
    """A sourceless ``.pyc`` (timestamp kind; nothing to compare it with once installed)."""
    code = compile(_without_docstrings(source, filename), filename, "exec", dont_inherit=True)
    return _pyc(code, 0, bytes(8))


def _hash_pyc(source: bytes, filename: str) -> bytes:
    """An unchecked hash-based ``.pyc``: used beside its source, whatever the file times."""
    code = compile(source, filename, "exec", dont_inherit=True)
    return _pyc(code, 0b01, importlib.util.source_hash(source))  # hash-based, not checked


def _cache_name(path: str) -> str:
    folder, _, name = path.rpartition("/")
    cached = f"__pycache__/{name[:-3]}.{sys.implementation.cache_tag}.pyc"
    return f"{folder}/{cached}" if folder else cached


def _entry(name: str, data: bytes, out: zipfile.ZipFile) -> None:
    out.writestr(zipfile.ZipInfo(name, FIXED_DATE), data, zipfile.ZIP_DEFLATED, compresslevel=9)


async def probe(wheels: list[str], entry: str) -> set[str]:
    """Files of every module the runtime imports: install, boot, each recipe run to its end.

    The wheels are installed by Pyodide's own ``loadPackage`` (as in the browser, whose
    package loader imports modules too). Returns archive member names: ``asyncio/events.py``
    for the standard library, ``fastapi/routing.py`` for wheels.
    """
    import pyodide_js  # type: ignore[import-not-found]  # Pyodide only
    from pyodide.ffi import to_js  # type: ignore[import-not-found]

    host_paths = [path.removeprefix("/host") for path in wheels]  # loadPackage reads the host
    await pyodide_js.loadPackage(to_js(host_paths), messageCallback=lambda _msg: None)
    driver = importlib.import_module(entry)
    await driver.boot()
    recipes = importlib.import_module("tryit.recipe")
    for name in recipes.recipe_names():
        recipe = recipes.load_recipe(name)
        if not recipe.in_browser:
            continue  # needs processes of its own ([real]): never runs in the browser
        # a client's recipe runs to its end; a page's opens its app (its page sends the rest)
        first = "run" if recipe.driver == "client" else "open"
        for action in (first, "reset"):
            try:  # sync recipes need JSPI, which Node lacks: their imports come from boot
                await driver.handle(json.dumps({"action": action, "recipe": name}))
            except Exception as error:  # a probe, not a test: report and go on
                print(f"probe: {name} {action}: {error!r}")
    used: set[str] = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None) or ""
        for root in (STDLIB_PREFIX, SITE_PACKAGES):
            if path.startswith(root):
                used.add(path[len(root) :])
    return used


def stdlib(source: str, target: str, used: set[str]) -> int:
    """Rewrite the standard-library zip, the ``used`` modules as bytecode; return their count."""
    count = 0
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w") as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith(".py") and info.filename in used:
                _entry(info.filename + "c", _compile(data, STDLIB_PREFIX + info.filename), out)
                count += 1
            else:
                out.writestr(info, data, compress_type=info.compress_type)
    return count


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def wheel(
    source: str, target: str, used: set[str], keep_sources: set[str], drop: tuple[str, ...] = ()
) -> int:
    """Rewrite a wheel, the ``used`` modules as bytecode, without the members that start with
    one of ``drop``, with a matching RECORD."""
    members: list[tuple[str, bytes]] = []
    record_name = ""
    count = 0
    with zipfile.ZipFile(source) as src:
        for name in src.namelist():
            if name.endswith("/") or name.startswith(drop):
                continue
            data = src.read(name)
            if name.endswith(".dist-info/RECORD"):
                record_name = name
            elif not name.endswith(".py") or name not in used:
                members.append((name, data))
            elif name in keep_sources:
                pyc = _hash_pyc(data, SITE_PACKAGES + name)
                members += [(name, data), (_cache_name(name), pyc)]
                count += 1
            else:
                members.append((name + "c", _compile(data, SITE_PACKAGES + name)))
                count += 1
    if not record_name:
        raise ValueError(f"{source}: no .dist-info/RECORD")
    record = [_record_line(n, d) for n, d in members] + [f"{record_name},,"]
    members.append((record_name, ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(target, "w") as out:
        for name, data in members:
            _entry(name, data, out)
    return count


async def main(args: list[str]) -> int:
    """Run the job described by the JSON file ``args[0]``.

    ``{"stdlib": [source, target], "wheels": [[source, target], ...], "entry": module,
    "recipes": folder, "keep_sources": [member, ...], "drop": [prefix, ...]}``: probe what
    ``entry`` imports running the recipes of ``folder``, then rewrite the standard library and
    every wheel.
    """
    with open(args[0], encoding="utf-8") as handle:  # noqa: ASYNC230 - a build step
        job: dict[str, Any] = json.load(handle)
    wheels = [pair[0] for pair in job["wheels"]]
    os.environ["TRYIT_RECIPES"] = job["recipes"]  # the runtime carries no recipe
    used = await probe(wheels, job["entry"])
    print(f"probe: {len(used)} modules imported")
    count = stdlib(job["stdlib"][0], job["stdlib"][1], used)
    print(f"{job['stdlib'][1].rsplit('/', 1)[-1]}: {count} modules compiled")
    for source, target in job["wheels"]:
        drop = tuple(job.get("drop", []))
        count = wheel(source, target, used, set(job.get("keep_sources", [])), drop)
        print(f"{target.rsplit('/', 1)[-1]}: {count} modules compiled")
    return 0
