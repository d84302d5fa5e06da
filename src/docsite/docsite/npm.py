"""Fetch files out of a pinned npm package with ``npm pack`` into a git-ignored cache.

Stdlib only: the hedron build hook and the site build both import this module, so the
third-party front-end files (htmx, the Pyodide runtime) are never committed and never
loaded from another origin at run time.

Usage as a script::

    python -m docsite.npm htmx.org@2.0.11 dist/htmx.min.js DEST_DIR

The code editor's packages (CodeMirror, fifteen of them) are fetched in one ``npm pack``
(:func:`pack_all`) and read member by member (:func:`read`) by ``docsite/editor.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from docsite.paths import CACHE

DEFAULT_CACHE = CACHE / "npm"


def _cache_dir() -> Path:
    return Path(os.environ.get("RESQ_HEDRON_NPM_CACHE", DEFAULT_CACHE))


def _tarball(spec: str) -> Path:
    """Where the tarball of ``spec`` (``name@exact-version``) is kept in the cache."""
    if "@" not in spec.lstrip("@"):
        raise ValueError(f"spec must pin an exact version (name@x.y.z), got {spec!r}")
    name, version = spec.rsplit("@", 1)
    return _cache_dir() / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"


def pack_all(specs: list[str]) -> list[Path]:
    """Return the tarballs of ``specs``, downloading the missing ones with ONE ``npm pack``.

    One npm process for a set of packages (CodeMirror is fifteen) instead of one per package.
    """
    tarballs = [_tarball(spec) for spec in specs]
    missing = [spec for spec, path in zip(specs, tarballs, strict=True) if not path.exists()]
    if not missing:
        return tarballs
    cache = _cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is required to fetch front-end assets (apt-get install npm)")
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        subprocess.run(
            [npm, "pack", *missing, "--silent", "--pack-destination", tmp],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        for spec in missing:
            produced = Path(tmp) / _tarball(spec).name
            if not produced.exists():
                found = sorted(p.name for p in Path(tmp).glob("*.tgz"))
                raise RuntimeError(f"npm pack {spec} did not produce {produced.name} ({found})")
            produced.replace(_tarball(spec))
    return tarballs


def read(spec: str, member: str) -> bytes:
    """The bytes of ``member`` (a path inside the package, e.g. ``package.json``)."""
    with tarfile.open(pack(spec), "r:gz") as tar:
        try:
            source = tar.extractfile(f"package/{member}")
        except KeyError:
            raise KeyError(f"{member} is not in {spec}") from None
        if source is None:
            raise RuntimeError(f"{member} is not a file in {spec}")
        with source:
            return source.read()


def pack(spec: str) -> Path:
    """Return the path of the ``npm pack`` tarball for ``spec`` (``name@exact-version``).

    The tarball is downloaded once into the cache; later calls reuse it.
    """
    return pack_all([spec])[0]


def extract(spec: str, members: list[str], dest: Path) -> list[Path]:
    """Extract ``members`` (paths inside the package, e.g. ``dist/htmx.min.js``) into ``dest``.

    Files keep their base name. Returns the written paths.
    """
    tarball = pack(spec)
    dest.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tarfile.open(tarball, "r:gz") as tar:
        for member in members:
            info = tar.getmember(f"package/{member}")
            source = tar.extractfile(info)
            if source is None:
                raise RuntimeError(f"{member} is not a file in {spec}")
            target = dest / Path(member).name
            tmp = target.with_suffix(target.suffix + ".part")
            with source, open(tmp, "wb") as out:
                shutil.copyfileobj(source, out)
            tmp.replace(target)
            written.append(target)
    return written


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    spec, *members, dest = argv
    for path in extract(spec, members, Path(dest)):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
