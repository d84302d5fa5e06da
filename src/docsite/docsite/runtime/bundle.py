"""Pack the wheels of the "Try it" runtime into one gzip stream (the bundle).

Pyodide's ``loadPackage`` unpacks a wheel with Python's ``zipfile`` running in WebAssembly, one
file at a time: about a second for the ~700 files of the browser set on a 2-core machine. The
bundle holds the same files, already unpacked, back to back in one gzip stream (served as
``site-packages.bin.gz``); the worker (``docs/assets/tryit/worker.mjs``) inflates it with the
browser's native ``DecompressionStream``, checks its sha256 and writes each file into Pyodide's
site-packages: a tenth of the time, and fewer bytes (one stream compresses across files).

Shared libraries (``.so``: pydantic-core's) are not in the bundle but served as files of their
own (``NAME.so``, with a ``.gz`` copy), since CPython's start waits for them: the worker
fetches them with the wasm and the standard library, compiles them as they arrive and links
them before CPython starts, always at the same place, which lets it restore a saved interpreter
on the next visit (``docs/assets/tryit/snapshot.mjs``); the bundle, which only the imports
need, downloads meanwhile. The wheels and the lockfile stay served, as the fallback for a
browser without ``DecompressionStream`` or Web Crypto.

The manifest, ``tryit-bundle.json``::

    {"file": "site-packages.bin", "sha256": <hex of the inflated bytes>, "size": <their length>,
     "site_packages": "/lib/python3.X/site-packages/", "packages": [<lockfile names>],
     "dynlibs": [{"path": <under site-packages>, "file": <served name>, "sha256": <hex>,
                  "size": <bytes>}, ...],
     "runtime": <hex>, "download": <bytes>,
     "files": [[<path under site-packages>, <offset>, <size>], ...]}

``runtime`` identifies the rest of what a saved interpreter depends on (the wasm, its
JavaScript, the standard library and the shared libraries): a saved interpreter is only reused
for the same bundle and the same runtime. ``download`` is what the worker downloads: the gzip
copies of the runtime files, of the shared libraries and of the bundle (its progress bar).
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


def runtime_hash(folder: Path, dynlibs: tuple[str, ...] = ()) -> str:
    """sha256 over the runtime files in ``folder`` (``RUNTIME_FILES``, in that order), then the
    served shared libraries named in ``dynlibs``."""
    digest = hashlib.sha256()
    for name in (*RUNTIME_FILES, *dynlibs):
        digest.update((folder / name).read_bytes())
    return digest.hexdigest()


def served_name(path: str) -> str:
    """The name a shared library of the bundle is served under (its file name)."""
    return path.rsplit("/", 1)[-1]


def _write_dynlib(folder: Path, path: str, data: bytes) -> dict[str, Any]:
    """Serve one shared library as ``folder/NAME`` and ``NAME.gz``; its manifest entry."""
    name = served_name(path)
    (folder / name).write_bytes(data)
    (folder / (name + ".gz")).write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    digest = hashlib.sha256(data).hexdigest()
    return {"path": path, "file": name, "sha256": digest, "size": len(data)}


def write_bundle(folder: Path, lock: dict[str, Any]) -> dict[str, Any]:
    """Write the bundle, the shared libraries and the manifest into ``folder`` (where the
    lockfile's wheels are, next to the runtime files).

    Raises:
        ValueError: two wheels carry the same file (they would overwrite each other), or two
            shared libraries the same file name.
    """
    files: list[list[Any]] = []
    dynlibs: list[dict[str, Any]] = []
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
                if member.filename.endswith(".so"):
                    dynlibs.append(_write_dynlib(folder, member.filename, data))
                    continue
                files.append([member.filename, len(blob), len(data)])
                blob += data
    served = tuple(lib["file"] for lib in dynlibs)
    if len(set(served)) != len(served):
        raise ValueError(f"two shared libraries would be served under one name: {served}")
    packed = gzip.compress(bytes(blob), compresslevel=9, mtime=0)
    (folder / (BUNDLE_FILE + ".gz")).write_bytes(packed)
    manifest = {
        "file": BUNDLE_FILE,
        "sha256": hashlib.sha256(blob).hexdigest(),
        "size": len(blob),
        "site_packages": site_packages(lock),
        "packages": packages,
        "dynlibs": dynlibs,
        "runtime": runtime_hash(folder, served),
        "download": len(packed)
        + sum((folder / f"{name}.gz").stat().st_size for name in (*RUNTIME_FILES, *served)),
        "files": files,
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, separators=(",", ":")), encoding="utf-8")
    return manifest
