"""The interpreter a first visit may restore: made at build time by the "Try it" worker itself.

A fresh start spends about 2.5 s of CPU on a 2-core machine starting CPython and importing
FastAPI, pydantic, httpx, requests, resq and hedron; restoring a memory snapshot of that
interpreter takes about 0.3 s. The worker (``docs/assets/tryit/snapshot.mjs``) already keeps
such a snapshot in the reader's Cache Storage after a fresh start; this script makes one for
first visits. It serves the runtime folder being built with the site's worker scripts on
127.0.0.1, lets the worker start afresh in headless Chromium (``/usr/bin/chromium``), and takes
the interpreter the worker saved out of the browser's Cache Storage.

The snapshot is 45 MB and is served only compressed (``NAME.gz``, ``NAME.br``: about 11 and 9
MB), so it pays only on a fast link: the worker downloads it only when the first runtime file
arrived fast enough (``docs/assets/tryit/prepared.mjs``), and otherwise starts afresh as before.
A restored interpreter never reads the compiled modules it has imported again, so this script
also writes the bundle and the standard library without them (``REST``), which a restore
downloads instead of the whole files: a first visit that takes the snapshot then downloads
15.2 MB from a host serving the ``.br`` copies, under the 16 MB the site allows itself.

Usage: ``python -m docsite.runtime.prepared FOLDER`` (the runtime folder, with its
manifest ``tryit-bundle.json``). Writes the compressed copies into FOLDER and prints the
manifest's ``snapshot`` entry as JSON. :func:`make` runs it in a subprocess: Playwright's sync
API must not share a process with the MkDocs build that calls it.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from docsite.jsimports import imports
from docsite.paths import DOCS

HERE = Path(__file__).resolve().parent
WORKER_DIR = DOCS / "assets" / "tryit"
WORKER = WORKER_DIR / "worker.mjs"
FILE = "tryit-snapshot.bin"  # served as FILE + ".gz" and FILE + ".br" only
# The worker checks the snapshot in slices of this size, each as soon as it is in, so that
# only the last slice's sha256 is left once the last byte arrives (the whole 45 MB took 0.1 s).
PART = 4 << 20
# Brotli quality for the snapshot: 5 takes seconds on two cores; 9 saves 0.5 MB in minutes.
QUALITY = 5
BOOT_MS = 300_000  # bound for the worker's start in the build's browser
# What a restore downloads instead of the bundle and the standard library: the same without
# the compiled modules the snapshot has imported (served names; only compressed)
REST = {"bundle": "site-packages.rest.bin", "stdlib": "python_stdlib.rest.zip"}
# The files of a restore's download that are the runtime's own (the rest: REST and FILE)
RUNTIME_DOWNLOAD = ("pyodide.asm.wasm", "pyodide.asm.mjs", "pyodide.mjs")

# The page that runs the worker: nothing but the worker and a way to read what it saved.
PAGE = """<!doctype html><meta charset="utf-8"><title>shipped interpreter</title>
<script type="module">
const worker = new Worker("assets/tryit/worker.mjs?modules", { type: "module" });
worker.onmessage = ({ data }) => {
  if (data.kind === "failed") window.failed = data.reason;
  if (data.kind === "modules") window.modules = data.files;
  if (data.kind === "saved") window.saved = data.ok;
};
worker.postMessage({ kind: "start" });
</script>"""
# Once saved: the one entry of the worker's snapshot cache, offered as a download.
TAKE = """async () => {
  const cache = await caches.open("tryit-snapshot");
  const [request] = await cache.keys();
  const response = await cache.match(request);
  const meta = response.headers.get("x-tryit-snapshot");
  const blob = await response.blob();
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = "snapshot.bin";
  document.body.append(a);
  a.click();
  const key = request.url.split("/snapshot/").pop();
  return { key, meta: JSON.parse(meta), modules: window.modules };
}"""


def worker_files(entry: Path = WORKER) -> list[Path]:
    """The worker's module graph: ``entry`` and every module it imports, directly or not
    (``docsite.jsimports``), sorted. A change to any of them may change how the worker starts
    or restores Python, and so what a snapshot holds: the runtime's build makes a new one then.
    Pyodide's own modules, which it imports from a computed address, are the runtime's."""
    found: set[Path] = set()
    todo = [entry.resolve()]
    while todo:
        path = todo.pop()
        if path not in found:
            found.add(path)
            specs, _ = imports(path.read_text(encoding="utf-8"))
            todo += [(path.parent / s).resolve() for s in specs if s.startswith(("./", "../"))]
    return sorted(found)


def _take(folder: Path, out: Path) -> dict[str, Any]:
    """Run the worker on ``folder`` in Chromium; write the saved snapshot to ``out``; return
    its cache key and meta."""
    from docsite.testing.browser import chromium_browser
    from docsite.testing.static_server import StaticServer

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        (site / "assets").mkdir()
        (site / "assets" / "tryit").symlink_to(WORKER_DIR)
        (site / "_tryit").mkdir()
        (site / "_tryit" / "pyodide").symlink_to(folder.resolve())
        (site / "index.html").write_text(PAGE, encoding="utf-8")
        with StaticServer(site) as server, chromium_browser() as browser:
            context = browser.new_context(accept_downloads=True)
            page = context.new_page()
            page.goto(server.url)
            page.wait_for_function(
                "() => window.saved !== undefined || window.failed", timeout=BOOT_MS, polling=100
            )
            failed = page.evaluate("window.failed || null")
            if failed or page.evaluate("window.saved") is not True:
                raise RuntimeError(f"the worker did not save an interpreter: {failed}")
            with page.expect_download() as download:
                taken = page.evaluate(TAKE)
            download.value.save_as(out)
            context.close()
            origin = server.url.rstrip("/").encode()
    if origin in out.read_bytes():
        raise RuntimeError(f"the snapshot holds the build's origin {origin!r}")
    return taken


def _brotli(pairs: list[tuple[Path, Path]], quality: int) -> None:
    args = [str(HERE / "brotli.mjs"), str(quality)]
    for source, target in pairs:
        args += [str(source), str(target)]
    subprocess.run(["node", *args], check=True)


def _rest(folder: Path, manifest: dict[str, Any], modules: list[str]) -> dict[str, Any]:
    """Write the bundle and the standard library without the ``modules`` (files of compiled
    modules the snapshot has imported) as ``REST`` (each as ``.gz`` and ``.br``); return
    their manifest entries. A restore writes them where the whole files would be."""
    site = str(manifest["site_packages"])
    version = site.split("/lib/python", 1)[1].split("/", 1)[0]  # "3.14"
    stdlib_prefix = f"/lib/python{version.replace('.', '')}.zip/"  # where Pyodide puts it
    imported = set(modules)
    blob = gzip.decompress((folder / f"{manifest['file']}.gz").read_bytes())
    files, rest, dropped = [], bytearray(), 0
    for name, offset, size in manifest["files"]:
        if site + name in imported:
            dropped += 1
            continue
        files.append([name, len(rest), size])
        rest += blob[offset : offset + size]
    stdlib = io.BytesIO()
    with zipfile.ZipFile(folder / "python_stdlib.zip") as src, zipfile.ZipFile(stdlib, "w") as out:
        for info in src.infolist():
            if stdlib_prefix + info.filename in imported:
                dropped += 1
                continue
            out.writestr(info, src.read(info), compress_type=zipfile.ZIP_STORED)
    if dropped < len(imported) * 0.9:  # the paths Python reported are not the ones served
        raise RuntimeError(f"only {dropped} of {len(imported)} imported modules are served")
    entries: dict[str, Any] = {}
    for part, data in (("bundle", bytes(rest)), ("stdlib", stdlib.getvalue())):
        name = REST[part]
        (folder / name).write_bytes(data)
        (folder / f"{name}.gz").write_bytes(gzip.compress(data, 9, mtime=0))
        entries[part] = {
            "file": name,
            "sha256": hashlib.sha256(data).hexdigest(),
            "size": len(data),
        }
    entries["bundle"]["files"] = files
    _brotli([(folder / name, folder / f"{name}.br") for name in REST.values()], 9)
    for name in REST.values():
        (folder / name).unlink()  # served only compressed
    return entries


def build(folder: Path) -> dict[str, Any]:
    """Make the snapshot for the runtime ``folder``; write ``FILE.gz`` and ``FILE.br`` there,
    and the ``REST`` files, and return the manifest entry: the file, its sha256 and size
    (inflated), the sha256 of each slice of ``PART`` bytes (``parts``), the bytes each copy
    takes on the wire, the ``meta`` a restore checks (snapshot.mjs), the ``rest`` files and
    what a restore from a host serving the ``.br`` copies downloads (``download``: ``plain``,
    inflated, and ``brotli``, on the wire)."""
    manifest = json.loads((folder / "tryit-bundle.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / FILE
        taken = _take(folder, raw)
        expected = f"{manifest['sha256']}-{manifest['runtime']}"
        if not taken["key"].endswith(expected):
            raise RuntimeError(f"snapshot key {taken['key']} is not this runtime's ({expected})")
        data = raw.read_bytes()
        (folder / (FILE + ".gz")).write_bytes(gzip.compress(data, 9, mtime=0))
        _brotli([(raw, folder / (FILE + ".br"))], QUALITY)
    rest = _rest(folder, manifest, taken["modules"])
    libs = [str(lib["file"]) for lib in manifest["dynlibs"]]
    plain = sum((folder / name).stat().st_size for name in (*RUNTIME_DOWNLOAD, *libs))
    plain += len(data) + rest["bundle"]["size"] + rest["stdlib"]["size"]
    wire = (*RUNTIME_DOWNLOAD, *libs, *REST.values(), FILE)
    return {
        "file": FILE,
        "key": taken["key"],
        "sha256": hashlib.sha256(data).hexdigest(),
        "size": len(data),
        "parts": {
            "size": PART,
            "sha256": [
                hashlib.sha256(data[at : at + PART]).hexdigest() for at in range(0, len(data), PART)
            ],
        },
        "gzip": (folder / (FILE + ".gz")).stat().st_size,
        "brotli": (folder / (FILE + ".br")).stat().st_size,
        "meta": taken["meta"],
        "rest": rest,
        "download": {
            "plain": plain,
            "brotli": sum((folder / f"{name}.br").stat().st_size for name in wire),
        },
    }


def make(folder: Path) -> dict[str, Any]:
    """:func:`build` in a subprocess (see the module docstring)."""
    if not shutil.which("node"):
        raise RuntimeError("node is missing: scripts/bootstrap installs it")
    done = subprocess.run(
        [sys.executable, "-m", "docsite.runtime.prepared", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the shipped interpreter was not made:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: python -m docsite.runtime.prepared FOLDER", file=sys.stderr)
        return 2
    print(json.dumps(build(Path(argv[0]))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
