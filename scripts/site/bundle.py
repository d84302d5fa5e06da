"""Pack the pure-Python wheels of the "Try it" runtime into one gzip stream (the bundle).

Pyodide's ``loadPackage`` unpacks a wheel with Python's ``zipfile`` running in WebAssembly, one
file at a time: about a second for the ~700 files of the browser set on a 2-core machine. The
bundle holds the same files, already unpacked, back to back in one gzip stream (served as
``site-packages.bin.gz``); the worker (``docs/assets/tryit/worker.mjs``) inflates it with the
browser's native ``DecompressionStream``, checks its sha256 and writes each file into Pyodide's
site-packages: a tenth of the time, and fewer bytes (one stream compresses across files). Wheels with shared libraries (``.so``: pydantic-core) still go
through ``loadPackage``, which also links them. The wheels and the lockfile stay served, as the
fallback for a browser without ``DecompressionStream`` or Web Crypto.

The manifest, ``tryit-bundle.json``::

    {"file": "site-packages.bin", "sha256": <hex of the inflated bytes>, "size": <their length>,
     "packages": [<lockfile names in the bundle>], "native": [<names left to loadPackage>],
     "files": [[<path under site-packages>, <offset>, <size>], ...]}
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


def _is_native(whl: zipfile.ZipFile) -> bool:
    return any(name.endswith(".so") for name in whl.namelist())


def write_bundle(folder: Path, lock: dict[str, Any]) -> dict[str, Any]:
    """Write the bundle and its manifest into ``folder`` (where the lockfile's wheels are).

    Raises:
        ValueError: two wheels carry the same file (they would overwrite each other).
    """
    files: list[list[Any]] = []
    blob = bytearray()
    owners: dict[str, str] = {}
    packages: list[str] = []
    native: list[str] = []
    for name, entry in sorted(lock["packages"].items()):
        with zipfile.ZipFile(folder / entry["file_name"]) as whl:
            if _is_native(whl):
                native.append(name)
                continue
            packages.append(name)
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
        "packages": packages,
        "native": native,
        "files": files,
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, separators=(",", ":")), encoding="utf-8")
    return manifest
