"""Build the self-hosted "Try it" runtime into ``.cache/site/runtime/`` (git-ignored; with the
prepared interpreter, ``.cache/site/runtime-prepared/``).

Steps (each cached; rerun only when its inputs change):

1. the Pyodide runtime files from the pinned npm package (``docsite/npm.py``);
2. the browser wheel set pinned in ``browser-requirements.txt``, downloaded with pip for the
   Pyodide platform (pure wheels plus the wasm builds of compiled ones);
3. fresh wheels of this repository's ``resq``, ``hedron`` and ``tryit`` distributions (no
   recipe is in the runtime: the page hands the worker each recipe's files);
4. bytecode: the standard library (without the parts no recipe can use in a browser,
   ``STDLIB_DROP``) and every wheel, rewritten so that what the runtime imports is a ``.pyc``
   compiled by the pinned Pyodide itself under Node (``bytecode.py``, ``run_in_node.mjs``);
5. a lockfile of our own (sha256, depends, imports) that ``loadPyodide`` is pointed at, and
   the bundle: the pure wheels unpacked into one gzip stream (``bundle.py``);
6. gzip copies of the wasm, its JavaScript and the standard library (:func:`precompress`),
   which the worker inflates itself, and brotli copies of those and of the bundle, for hosts
   that serve precompressed files (``precompressed.py``);
7. only with ``prepared=True`` (``--prepared``; the plugin's ``prepared_interpreter``), the
   prepared interpreter: a snapshot of the runtime started and imported by the site's own
   worker in headless Chromium, which a first visit on a fast link restores instead of
   starting afresh, and the bundle and the standard library without the modules it has
   imported, which that restore downloads instead of the whole files
   (``prepared.py``); it starts as a copy of the plain runtime, so the files are compressed
   once for both;
8. htmx, taken from hedron's build (same pinned npm package);
9. ``tryit-files.json``, the index of the served files and their sha256 (:func:`write_index`):
   the worker keeps the files it downloads in the browser's Cache Storage under those hashes,
   so a later visit downloads only this index, and a new build's files replace the old ones.

The ``docsite`` plugin calls :func:`build` and copies the result into the built site under
``_tryit/``. Usage as a script: ``python -m docsite.runtime.build [--force] [--prepared]``.
"""

from __future__ import annotations

import contextlib
import fcntl
import gzip
import hashlib
import io
import json
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

from docsite import npm, vendor
from docsite.paths import CACHE as _CACHE
from docsite.paths import REPO as ROOT
from docsite.runtime import bundle, lockfile, precompressed
from docsite.runtime import prepared as prepared_module

HERE = Path(__file__).resolve().parent
CACHE = _CACHE / "site"
RUNTIME = CACHE / "runtime"
#: The same runtime with the prepared interpreter (:func:`build` ``prepared=True``).
PREPARED_RUNTIME = CACHE / "runtime-prepared"

PYODIDE_SPEC = "pyodide@314.0.7"
PYODIDE_FILES = [
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
]
PLATFORM_ARGS = [
    "--only-binary=:all:",
    "--python-version",
    "3.14",
    "--implementation",
    "cp",
    "--abi",
    "cp314",
    "--platform",
    "pyemscripten_2026_0_wasm32",
]
# The pure wheel, although a wasm build exists: the wasm one brings two shared libraries
# that Pyodide compiles and links at install time on every visit, for a speed-up (charset
# guessing) that no recipe uses.
PURE_WHEELS = ("charset-normalizer",)
PURE_ARGS = ["--only-binary=:all:", "--python-version", "3.14", "--implementation", "py"]
PURE_ARGS += ["--abi", "none", "--platform", "any"]
BROWSER_REQUIREMENTS = HERE / "browser-requirements.txt"
LOCK_NAME = "tryit-lock.json"
INDEX_NAME = "tryit-files.json"
# Standard-library parts no recipe can reach in the browser (debuggers, test runners, REPL,
# mail/ftp protocols, profilers): left out of the served python_stdlib.zip to save bytes.
STDLIB_DROP = frozenset(
    [
        "_pyrepl",
        "unittest",
        "pydoc.py",
        "pydoc_data",
        "doctest.py",
        "pdb.py",
        "bdb.py",
        "xmlrpc",
        "wsgiref",
        "mailbox.py",
        "imaplib.py",
        "ftplib.py",
        "smtplib.py",
        "poplib.py",
        "tabnanny.py",
        "pickletools.py",
        "profile.py",
        "cProfile.py",
        "pstats.py",
        "trace.py",
        "timeit.py",
        "zipapp.py",
        "idlelib",
        "tkinter",
        "turtledemo",
        "turtle.py",
        "ensurepip",
        "venv",
        "lib2to3",
        "curses",
        "dbm",
        # No processes, no C types, and the C versions of these modules are built in.
        "multiprocessing",
        "ctypes",
        "_pyio.py",
        "_pydatetime.py",
        "_pydecimal.py",
        "xml",
    ]
)
# The codecs kept (Unicode, ASCII/Latin-1, Windows-1252 and the binary codecs): the legacy
# code-page tables (cp037, mac_*, iso8859_*, the CJK wrappers...) are 0.3 MB that only
# charset guessing would try, and charset-normalizer skips a codec that is not there.
ENCODINGS_KEEP = frozenset(
    [
        "__init__",
        "aliases",
        "ascii",
        "latin_1",
        "charmap",
        "cp1252",
        "cp437",
        "idna",
        "punycode",
        "undefined",
        "utf_7",
        "utf_8",
        "utf_8_sig",
        "utf_16",
        "utf_16_be",
        "utf_16_le",
        "utf_32",
        "utf_32_be",
        "utf_32_le",
        "raw_unicode_escape",
        "unicode_escape",
        "base64_codec",
        "hex_codec",
        "quopri_codec",
        "uu_codec",
        "zlib_codec",
        "bz2_codec",
        "rot_13",
    ]
)
# Modules that read their own source at run time keep their .py (with bytecode beside):
# anyio builds its lazy-import map from these two files' source.
KEEP_SOURCES = ("anyio/__init__.py", "anyio/abc/__init__.py")
# Wheel members left out of the served wheels (prefixes). pydantic.v1, Pydantic 1's
# compatibility layer: no recipe and nothing in resq or hedron uses it, but FastAPI imports
# it to check each new route's parameters against it (0.05 s of a visit's first step in the
# browser); it takes an ImportError as "no Pydantic 1 models here".
WHEEL_DROP = ("pydantic/v1/",)
HTMX = vendor.HTMX
HEDRON_JS = ROOT / "src" / "hedron" / "hedron" / "static" / "hedron.js"
#: The only scripts the hedron demo panel's sandboxed frame may run (``apppage.mjs``), served
#: beside the runtime under ``_tryit/`` by their file names.
FRAME_SCRIPTS = (HTMX, HEDRON_JS)


def _tree_hash(*paths: Path) -> str:
    digest = hashlib.sha256()
    for base in paths:
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for path in files:
            if "__pycache__" in path.parts or path.suffix == ".pyc":
                continue
            digest.update(str(path.relative_to(ROOT)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


_held = 0  # how deep this process is inside :func:`_exclusive`


@contextlib.contextmanager
def _exclusive() -> Iterator[None]:
    """Hold the cache's lock: builds in one checkout (a test session and ``mkdocs serve``, two
    pytest workers) take turns on ``.cache/site`` instead of writing its staging folders at
    once. Re-entrant within a process."""
    global _held
    if _held:
        _held += 1
        try:
            yield
        finally:
            _held -= 1
        return
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _held = 1
        try:
            yield
        finally:
            _held = 0
            fcntl.flock(lock, fcntl.LOCK_UN)


def _stamped(folder: Path, key: str) -> bool:
    stamp = folder / ".stamp"
    return stamp.exists() and stamp.read_text() == key


def _stamp(folder: Path, key: str) -> None:
    (folder / ".stamp").write_text(key)


def fetch_pyodide() -> Path:
    """The Pyodide runtime files, extracted from the pinned npm package."""
    folder = CACHE / "pyodide"
    if not _stamped(folder, PYODIDE_SPEC):
        npm.extract(PYODIDE_SPEC, PYODIDE_FILES, folder)
        _stamp(folder, PYODIDE_SPEC)
    return folder


def download_wheels() -> Path:
    """The pinned browser wheel set for the Pyodide platform (exact pins, no resolution).

    Distributions in :data:`PURE_WHEELS` are taken as their pure-Python wheel even where a
    wasm build exists (see there).
    """
    folder = CACHE / "wheels"
    key = _tree_hash(BROWSER_REQUIREMENTS) + ",".join(PURE_WHEELS)
    if not _stamped(folder, key):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        pins = [
            line.split("#", 1)[0].strip()
            for line in BROWSER_REQUIREMENTS.read_text(encoding="utf-8").splitlines()
        ]
        pins = [pin for pin in pins if pin]
        pure = [pin for pin in pins if pin.split("==")[0].lower() in PURE_WHEELS]
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check"]
        cmd += ["--no-deps", "-d", str(folder)]
        subprocess.run([*cmd, *PLATFORM_ARGS, *(p for p in pins if p not in pure)], check=True)
        if pure:
            subprocess.run([*cmd, *PURE_ARGS, *pure], check=True)
        _stamp(folder, key)
    return folder


def build_local_wheels() -> Path:
    """Fresh wheels of ``src/resq`` and ``src/hedron`` (rebuilt when their sources change)."""
    with _exclusive():
        return _build_local_wheels()


def _build_local_wheels() -> Path:
    folder = CACHE / "local"
    sources = [ROOT / "src" / "resq", ROOT / "src" / "hedron"]
    key = _tree_hash(*sources)
    if not _stamped(folder, key):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        cmd = [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check"]
        cmd += ["--no-deps", "--no-build-isolation", "-w", str(folder)]
        subprocess.run([*cmd, *map(str, sources)], check=True, stdout=subprocess.DEVNULL)
        _stamp(folder, key)
    return folder


def build_tryit_wheel() -> Path:
    """A wheel of the ``tryit`` driver (``src/tryit``, built by its build backend like resq and
    hedron). It carries no recipe: a recipe's edit never rebuilds the runtime."""
    folder = CACHE / "tryit"
    source = ROOT / "src" / "tryit"
    key = _tree_hash(source)
    if _stamped(folder, key) and any(folder.glob("tryit-*.whl")):
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    cmd = [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check"]
    cmd += ["--no-deps", "--no-build-isolation", "-w", str(folder), str(source)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    _stamp(folder, key)
    return folder


def _stdlib_keeps(name: str) -> bool:
    top, _, rest = name.partition("/")
    if top in STDLIB_DROP:
        return False
    if top == "encodings" and rest.endswith(".py") and "/" not in rest:
        return rest[:-3] in ENCODINGS_KEEP
    return True


def trim_stdlib(source: Path, target: Path) -> None:
    """Copy Pyodide's ``python_stdlib.zip`` without :data:`STDLIB_DROP` and unkept codecs."""
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w") as out:
        for info in src.infolist():
            if _stdlib_keeps(info.filename):
                out.writestr(info, src.read(info), compress_type=info.compress_type)


def _host(path: Path) -> str:
    """``path`` as Pyodide sees it under ``run_in_node.mjs`` (host ``/`` mounted at ``/host``)."""
    return "/host" + str(path.resolve())


def precompile(pyodide: Path, wheel_dirs: list[Path]) -> Path:
    """Bytecode builds of the trimmed standard library and of every wheel (``bytecode.py``).

    Compiled by the pinned Pyodide itself under Node, so the browser imports ``.pyc`` files
    instead of compiling every module from source on each visit.
    """
    folder = CACHE / "bytecode"
    key = "|".join((part / ".stamp").read_text() for part in [pyodide, *wheel_dirs])
    key += "|" + ",".join(sorted(STDLIB_DROP | ENCODINGS_KEEP)) + "|" + ",".join(KEEP_SOURCES)
    key += "|" + ",".join(WHEEL_DROP)
    key += "|" + _tree_hash(HERE / "bytecode.py", HERE / "run_in_node.mjs")
    if _stamped(folder, key):
        return folder
    staging = CACHE / "bytecode.new"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    trimmed = staging / "python_stdlib.source.zip"
    trim_stdlib(pyodide / "python_stdlib.zip", trimmed)
    wheels = sorted(p for d in wheel_dirs for p in d.glob("*.whl"))
    job = {
        "stdlib": [_host(trimmed), _host(staging / "python_stdlib.zip")],
        "wheels": [[_host(w), _host(staging / w.name)] for w in wheels],
        "entry": "tryit.browser",
        "recipes": _host(ROOT / "recipes"),  # what the probe runs (tryit.recipe.ROOT_ENV)
        "keep_sources": list(KEEP_SOURCES),
        "drop": list(WHEEL_DROP),
    }
    (staging / "jobs.json").write_text(json.dumps(job, indent=1), encoding="utf-8")
    script = [str(HERE / "run_in_node.mjs"), str(pyodide), str(HERE / "bytecode.py")]
    done = subprocess.run(
        ["node", *script, _host(staging / "jobs.json")], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:  # its report is for a failure only: a clean build prints nothing
        raise RuntimeError(f"the runtime's bytecode was not made:\n{done.stdout}{done.stderr}")
    trimmed.unlink()
    (staging / "jobs.json").unlink()
    _stamp(staging, key)
    shutil.rmtree(folder, ignore_errors=True)
    staging.replace(folder)
    return folder


def precompress(folder: Path) -> None:
    """Write ``NAME.gz`` beside the wasm, its JavaScript and the standard library.

    The worker fetches these and inflates them with ``DecompressionStream``; the plain files
    stay for browsers without it. The standard library's copy is a *stored* zip (one gzip
    stream over it compresses better than per-file deflate, and imports read it uncompressed).
    """
    for name in ("pyodide.asm.wasm", "pyodide.asm.mjs"):
        data = (folder / name).read_bytes()
        (folder / (name + ".gz")).write_bytes(gzip.compress(data, 9, mtime=0))
    stored = io.BytesIO()
    with zipfile.ZipFile(folder / "python_stdlib.zip") as src, zipfile.ZipFile(stored, "w") as out:
        for info in src.infolist():
            out.writestr(info, src.read(info), compress_type=zipfile.ZIP_STORED)
    packed = gzip.compress(stored.getvalue(), 9, mtime=0)
    (folder / "python_stdlib.zip.gz").write_bytes(packed)


def write_index(
    folder: Path, manifest: dict[str, object], br_only: dict[str, str]
) -> dict[str, str]:
    """Write :data:`INDEX_NAME`: ``{"files": {name: sha256}}`` of every file in ``folder``
    (but the ``.br`` copies, which are served under the plain name, and the prepared
    interpreter's copies: the worker keeps that one as the interpreter saved for the next visit,
    not with the files).

    The bundle's inflated bytes are listed too (under its ``file`` name: a server that labels
    ``.gz`` files ``Content-Encoding: gzip`` has the browser inflate it), and so are the files
    served only as ``.br`` (``br_only``, see ``precompressed.py``). The worker asks for this
    index on every start (``docs/assets/tryit/files.mjs``).
    """
    shipped = manifest.get("snapshot")
    unlisted = {INDEX_NAME, f"{shipped['file']}.gz"} if isinstance(shipped, dict) else {INDEX_NAME}
    files = {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.iterdir())
        if path.is_file() and path.name not in unlisted and path.suffix != ".br"
    }
    files[str(manifest["file"])] = str(manifest["sha256"])
    files.update(br_only)
    if isinstance(shipped, dict):  # what a restore needs, served as .br under these names
        files.update({str(e["file"]): str(e["sha256"]) for e in shipped["rest"].values()})
    text = json.dumps({"files": files}, indent=0, sort_keys=True)
    (folder / INDEX_NAME).write_text(text + "\n", encoding="utf-8")
    return files


def write_manifests(folder: Path, info: dict[str, object], *, prepared: bool = False) -> None:
    """The lockfile, the bundle and the index of ``folder`` (runtime files and wheels), for the
    lockfile's ``info`` (Pyodide's): the last step of :func:`build`. ``prepared=False`` leaves
    out the prepared interpreter (and removes an older one's files), about 20 s less."""
    lock = lockfile.write_lock(folder, info, folder / LOCK_NAME)
    manifest = bundle.write_bundle(folder, lock)
    precompressed.compress_runtime(folder, manifest, folder / bundle.MANIFEST)
    shipped = prepared_module
    for name in (shipped.FILE, *shipped.REST.values()):
        for copy in folder.glob(f"{name}.*"):
            copy.unlink()
    if prepared:
        _add_prepared(folder)
    else:
        _write_index_files(folder, manifest)


def _add_prepared(folder: Path) -> None:
    """Add the prepared interpreter to ``folder``, a finished runtime without one (or a copy of
    it: the prepared runtime starts as a copy of the plain one, whose files, compressed copies
    included, are the same), then write its manifest and index again."""
    for name in (INDEX_NAME, *(f"{json_file}.br" for json_file in precompressed.JSON_FILES)):
        (folder / name).unlink(missing_ok=True)  # written last, once the snapshot is in
    manifest = json.loads((folder / bundle.MANIFEST).read_text(encoding="utf-8"))
    manifest["snapshot"] = prepared_module.make(folder)
    _write_index_files(folder, manifest)


def _write_index_files(folder: Path, manifest: dict[str, object]) -> None:
    """The manifest, the index and their brotli copies: what :func:`write_manifests` writes
    last."""
    (folder / bundle.MANIFEST).write_text(json.dumps(manifest, separators=(",", ":")), "utf-8")
    write_index(folder, manifest, precompressed.br_only(folder, manifest))
    precompressed.compress_json(folder, INDEX_NAME)


def build(*, force: bool = False, prepared: bool = False) -> Path:
    """Assemble the runtime folder (Pyodide files, wheels, lockfile, htmx) and return it:
    :data:`RUNTIME`, or with ``prepared`` :data:`PREPARED_RUNTIME`, which adds the prepared
    interpreter (made in headless Chromium: the one step that needs a browser)."""
    with _exclusive():
        return _build(force=force, prepared=prepared)


def _build(*, force: bool, prepared: bool) -> Path:
    if force:  # everything but the lock this process holds
        for path in CACHE.iterdir():
            if path.name != ".lock":
                shutil.rmtree(path) if path.is_dir() else path.unlink()
    parts = [fetch_pyodide(), download_wheels(), build_local_wheels(), build_tryit_wheel()]
    vendor.ensure_htmx()
    compiled = precompile(parts[0], parts[1:])
    steps = [HERE / name for name in ("bundle.py", "build.py", "precompressed.py", "brotli.mjs")]
    target = PREPARED_RUNTIME if prepared else RUNTIME
    if prepared:  # what the snapshot holds depends on how the worker starts Python
        shipped = prepared_module
        steps += [HERE / "prepared.py", *shipped.worker_files()]
    key = (compiled / ".stamp").read_text() + _tree_hash(HTMX, *steps)
    if _stamped(target, key):
        return target
    staging = target.with_name(target.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    if prepared:  # the plain runtime's files, compressed once for both, and the snapshot
        shutil.copytree(_build(force=False, prepared=False), staging)
        _add_prepared(staging / "pyodide")
        _stamp(staging, key)
        shutil.rmtree(target, ignore_errors=True)
        staging.replace(target)
        return target
    pyodide_dir = staging / "pyodide"
    pyodide_dir.mkdir(parents=True)
    for name in PYODIDE_FILES:
        if name not in ("python_stdlib.zip", "pyodide-lock.json"):
            shutil.copy2(parts[0] / name, pyodide_dir / name)
    for path in compiled.iterdir():  # the standard library and every wheel, as bytecode
        if path.name != ".stamp":
            shutil.copy2(path, pyodide_dir / path.name)
    info = json.loads((parts[0] / "pyodide-lock.json").read_text())["info"]
    precompress(pyodide_dir)
    write_manifests(pyodide_dir, info)
    shutil.copy2(HTMX, staging / "htmx.min.js")
    _stamp(staging, key)
    shutil.rmtree(target, ignore_errors=True)
    staging.replace(target)
    return target


def main(argv: list[str]) -> int:
    """``python -m docsite.runtime.build [--force] [--prepared]``."""
    folder = build(force="--force" in argv, prepared="--prepared" in argv)
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    print(f"runtime ready in {folder.relative_to(ROOT)} ({total / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
