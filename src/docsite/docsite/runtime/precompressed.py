"""Brotli copies of the "Try it" runtime, for hosts that serve precompressed files.

A host set up to serve precompressed files (the repository's static server with
``precompressed=True``; nginx's ``brotli_static``, Caddy's ``precompressed`` and the like)
answers a request for ``NAME`` from a browser that accepts ``br`` with ``NAME.br`` and
``Content-Encoding: br``, and the browser inflates it natively. Brotli at quality 9 takes the
runtime's download from 10.0 MB (the gzip copies the worker inflates itself) to about 8.4 MB.

The worker (``docs/assets/tryit/worker.mjs``) cannot ask a host what it does, so it looks at
the first file it fetches, the index ``tryit-files.json``, whose ``.br`` copy says
``"precompressed": true`` (the plain file does not): when the index says so, the host serves
this build's ``.br`` copies, and the worker fetches the plain names of the big files instead
of their ``.gz`` copies. (The encoding alone would not tell: many hosts compress JSON on the
fly but send a wasm file as it is, 9.6 MB instead of the 3.5 MB of its ``.gz`` copy.)

Two files exist only as ``.br`` (:data:`BR_ONLY`): the bundle inflated, and the standard
library as a *stored* zip (the served ``python_stdlib.zip`` deflates each member, which
compresses badly a second time).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# 9 of 11: quality 11 saves another 1 MB but takes minutes on two cores, in every CI run.
QUALITY = 9
# Served name -> the file it is made from (a .gz copy is inflated first).
BIG = {
    "pyodide.asm.wasm": "pyodide.asm.wasm",
    "pyodide.asm.mjs": "pyodide.asm.mjs",
    "pyodide.mjs": "pyodide.mjs",
    "python_stdlib.stored.zip": "python_stdlib.zip.gz",
    "site-packages.bin": "site-packages.bin.gz",
}
BR_ONLY = ("python_stdlib.stored.zip", "site-packages.bin")
# What the worker downloads for a start (the manifest's ``plain`` and ``brotli`` byte counts),
# with the shared libraries the manifest lists (served as files of their own).
DOWNLOAD = ("pyodide.asm.wasm", "pyodide.asm.mjs", "python_stdlib.stored.zip", "site-packages.bin")
JSON_FILES = ("tryit-files.json", "tryit-bundle.json", "tryit-lock.json")


def _brotli(folder: Path, pairs: dict[str, str]) -> None:
    args = [str(HERE / "brotli.mjs"), str(QUALITY)]
    for target, source in pairs.items():
        args += [str(folder / source), str(folder / (target + ".br"))]
    subprocess.run(["node", *args], check=True)


def compress_runtime(folder: Path, manifest: dict[str, Any], manifest_path: Path) -> None:
    """Write the ``.br`` copies of the big runtime files and of the shared libraries; add to
    the manifest what the worker downloads that way (``brotli``, on the wire, and ``plain``,
    inflated) and write it again."""
    dynlibs = [str(lib["file"]) for lib in manifest["dynlibs"]]
    _brotli(folder, {**BIG, **{name: name for name in dynlibs}})
    stored = gzip.decompress((folder / BIG["python_stdlib.stored.zip"]).read_bytes())
    plain = {"python_stdlib.stored.zip": len(stored), "site-packages.bin": int(manifest["size"])}
    download = (*DOWNLOAD, *dynlibs)
    manifest["plain"] = sum(plain.get(n) or (folder / n).stat().st_size for n in download)
    manifest["brotli"] = sum((folder / (n + ".br")).stat().st_size for n in download)
    manifest_path.write_text(json.dumps(manifest, separators=(",", ":")), encoding="utf-8")


def br_only(folder: Path, manifest: dict[str, Any]) -> dict[str, str]:
    """The index entries (name: sha256 of the inflated bytes) of :data:`BR_ONLY`, the files
    served only as ``.br``, for the runtime in ``folder`` and its ``manifest``."""
    stored = gzip.decompress((folder / BIG["python_stdlib.stored.zip"]).read_bytes())
    return {
        "python_stdlib.stored.zip": hashlib.sha256(stored).hexdigest(),
        "site-packages.bin": str(manifest["sha256"]),
    }


def compress_json(folder: Path, index: str) -> None:
    """The ``.br`` copies of the lockfile, the manifest and the ``index``, written last: the
    index's copy says ``"precompressed": true``, which tells the worker that the host serves
    ``.br`` files."""
    marked = folder / f"{index}.marked"
    files = json.loads((folder / index).read_text(encoding="utf-8"))
    marked.write_text(json.dumps({**files, "precompressed": True}), encoding="utf-8")
    try:
        _brotli(folder, {name: marked.name if name == index else name for name in JSON_FILES})
    finally:
        marked.unlink()
