"""Pack the wheels of the "Try it" runtime into one gzip stream (the bundle).

Pyodide's ``loadPackage`` unpacks a wheel with Python's ``zipfile`` running in WebAssembly, one
file at a time: about a second for the ~700 files of the browser set on a 2-core machine. The
bundle holds the same files, already unpacked, back to back in one gzip stream (served as
``site-packages.bin.gz``); the worker (``docs/assets/tryit/worker.mjs``) inflates it with the
browser's native ``DecompressionStream``, checks its sha256 and writes each file into Pyodide's
site-packages: a tenth of the time, and fewer bytes (one stream compresses across files).

Shared libraries (``.so``: pydantic-core's) are listed apart: the worker compiles them while
the runtime starts and links them before CPython starts, always at the same place, which lets
it restore a saved interpreter on the next visit (``docs/assets/tryit/snapshot.mjs``). The
wheels and the lockfile stay served, as the fallback for a browser without
``DecompressionStream`` or Web Crypto.

The manifest, ``tryit-bundle.json``::

    {"file": "site-packages.bin", "sha256": <hex of the inflated bytes>, "size": <their length>,
     "site_packages": "/lib/python3.X/site-packages/", "packages": [<lockfile names>],
     "dynlibs": [<paths of the .so files>], "runtime": <hex>, "download": <bytes>,
     "files": [[<path under site-packages>, <offset>, <size>], ...]}

``runtime`` identifies the rest of what a saved interpreter depends on (the wasm, its
JavaScript and the standard library): a saved interpreter is only reused for the same bundle
and the same runtime. ``download`` is what the worker downloads with the bundle: the gzip copies
of the runtime files and of the bundle (its progress bar).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

BUNDLE_FILE = "site-packages.bin"  # served as BUNDLE_FILE + ".gz" only
MANIFEST = "tryit-bundle.json"


RUNTIME_FILES = ("pyodide.asm.wasm", "pyodide.asm.mjs", "python_stdlib.zip")


def site_packages(lock: dict[str, Any]) -> str:
    """Where Pyodide installs wheels, for the lockfile's Python (``/lib/python3.14/...``)."""
    major, minor = lock["info"]["python"].split(".")[:2]
    return f"/lib/python{major}.{minor}/site-packages/"


def runtime_hash(folder: Path) -> str:
    """sha256 over the runtime files in ``folder`` (``RUNTIME_FILES``, in that order)."""
    digest = hashlib.sha256()
    for name in RUNTIME_FILES:
        digest.update((folder / name).read_bytes())
    return digest.hexdigest()


def write_bundle(folder: Path, lock: dict[str, Any]) -> dict[str, Any]:
    """Write the bundle and its manifest into ``folder`` (where the lockfile's wheels are, next
    to the runtime files).

    Raises:
        ValueError: two wheels carry the same file (they would overwrite each other).
    """
    files: list[list[Any]] = []
    blob = bytearray()
    owners: dict[str, str] = {}
    packages = sorted(lock["packages"])
    for name in packages:
        with zipfile.ZipFile(folder / lock["packages"][name]["file_name"]) as whl:
            for member in whl.infolist():
                if member.is_dir():
                    continue
                if member.filename in owners:
                    other = owners[member.filename]
                    raise ValueError(f"{member.filename} is in both {other} and {name}")
                owners[member.filename] = name
                data = whl.read(member)
                files.append([member.filename, len(blob), len(data)])
                blob += data
    packed = gzip.compress(bytes(blob), compresslevel=9, mtime=0)
    (folder / (BUNDLE_FILE + ".gz")).write_bytes(packed)
    manifest = {
        "file": BUNDLE_FILE,
        "sha256": hashlib.sha256(blob).hexdigest(),
        "size": len(blob),
        "site_packages": site_packages(lock),
        "packages": packages,
        "dynlibs": [path for path, _, _ in files if path.endswith(".so")],
        "runtime": runtime_hash(folder),
        "download": len(packed)
        + sum((folder / f"{name}.gz").stat().st_size for name in RUNTIME_FILES),
        "files": files,
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, separators=(",", ":")), encoding="utf-8")
    return manifest
