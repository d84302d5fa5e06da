"""Fetch files out of a pinned npm package with ``npm pack`` into a git-ignored cache.

Stdlib only: the hedron build hook and the site build both import this module, so the
third-party front-end files (htmx, the Pyodide runtime) are never committed and never
loaded from another origin at run time.

Usage as a script::

    python scripts/npm_fetch.py htmx.org@2.0.11 dist/htmx.min.js DEST_DIR
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CACHE = REPO_ROOT / ".cache" / "npm"


def _cache_dir() -> Path:
    return Path(os.environ.get("RESQ_HEDRON_NPM_CACHE", DEFAULT_CACHE))


def pack(spec: str) -> Path:
    """Return the path of the ``npm pack`` tarball for ``spec`` (``name@exact-version``).

    The tarball is downloaded once into the cache; later calls reuse it.
    """
    if "@" not in spec.lstrip("@"):
        raise ValueError(f"spec must pin an exact version (name@x.y.z), got {spec!r}")
    cache = _cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    name, version = spec.rsplit("@", 1)
    expected = cache / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
    if expected.exists():
        return expected
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is required to fetch front-end assets (apt-get install npm)")
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        subprocess.run(
            [npm, "pack", spec, "--silent", "--pack-destination", tmp],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        produced = list(Path(tmp).glob("*.tgz"))
        if len(produced) != 1:
            raise RuntimeError(f"npm pack {spec} produced {produced!r}")
        produced[0].replace(expected)
    return expected


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
