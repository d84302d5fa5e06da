"""Write the "Try it" runtime's own Pyodide lockfile from a folder of wheels.

Pyodide's bundled ``pyodide-lock.json`` describes its own rebuilt wheels (other sha256s), so the
site ships a lockfile of its own: for every wheel served, its sha256 (Pyodide checks it), the
import names it provides and the names of the other served wheels it depends on (from the
wheel's ``Requires-Dist``, evaluated for the Pyodide platform).
"""

from __future__ import annotations

import email.parser
import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

# The marker environment of the browser runtime (Pyodide 314.0.7 = CPython 3.14.2 on wasm32).
PYODIDE_MARKERS = {
    "implementation_name": "cpython",
    "implementation_version": "3.14.2",
    "os_name": "posix",
    "platform_machine": "wasm32",
    "platform_python_implementation": "CPython",
    "platform_release": "",
    "platform_system": "Emscripten",
    "platform_version": "",
    "python_full_version": "3.14.2",
    "python_version": "3.14",
    "sys_platform": "emscripten",
    "extra": "",
}


def _metadata(whl: zipfile.ZipFile) -> email.message.Message:
    for name in whl.namelist():
        parts = name.split("/")
        if len(parts) == 2 and parts[0].endswith(".dist-info") and parts[1] == "METADATA":
            return email.parser.Parser().parsestr(whl.read(name).decode("utf-8"))
    raise ValueError(f"{whl.filename}: no .dist-info/METADATA")


def _imports(whl: zipfile.ZipFile) -> list[str]:
    """Top-level importable names: packages (folders with Python files) and modules."""
    names: set[str] = set()
    for name in whl.namelist():
        top, _, rest = name.partition("/")
        if top.endswith((".dist-info", ".data")):
            continue
        if rest and (name.endswith((".py", ".pyc", ".so")) or ".cpython-" in name):
            names.add(top)
        elif not rest and name.endswith((".py", ".pyc")):
            names.add(top.rsplit(".", 1)[0])
    return sorted(n for n in names if n.isidentifier())


def sha256(path: Path) -> str:
    """Hex sha256 of a file."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def build_lock(wheels: list[Path], info: dict[str, Any]) -> dict[str, Any]:
    """Return the lockfile (as a dict) for ``wheels``; every dependency must be among them.

    Raises:
        ValueError: a wheel depends (on this platform) on a distribution that is not served.
    """
    entries: dict[str, dict[str, Any]] = {}
    requires: dict[str, list[Requirement]] = {}
    for path in sorted(wheels):
        dist, version, _build, _tags = parse_wheel_filename(path.name)
        with zipfile.ZipFile(path) as whl:
            meta = _metadata(whl)
            imports = _imports(whl)
        requires[dist] = [Requirement(r) for r in meta.get_all("Requires-Dist") or []]
        entries[dist] = {
            "name": dist,
            "version": str(version),
            "file_name": path.name,
            "install_dir": "site",
            "sha256": sha256(path),
            "package_type": "package",
            "imports": imports,
            "depends": [],
            "unvendored_tests": False,
            "shared_library": False,
        }
    for dist, reqs in requires.items():
        depends: set[str] = set()
        for req in reqs:
            if req.marker is not None and not req.marker.evaluate(PYODIDE_MARKERS):
                continue
            name = canonicalize_name(req.name)
            if name not in entries:
                raise ValueError(f"{dist} requires {req} but no wheel for {name} is served")
            depends.add(name)
        entries[dist]["depends"] = sorted(depends)
    return {"info": info, "packages": entries}


def write_lock(folder: Path, info: dict[str, Any], target: Path) -> dict[str, Any]:
    """Build the lockfile for every ``*.whl`` in ``folder`` and write it to ``target``."""
    lock = build_lock(sorted(folder.glob("*.whl")), info)
    target.write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return lock
