"""The bundle of wheels the "Try it" worker unpacks itself (``scripts/site/bundle.py``)."""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "site"))

import bundle  # noqa: E402


def _wheel(folder: Path, name: str, members: dict[str, bytes]) -> dict[str, Any]:
    path = folder / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as whl:
        whl.writestr(f"{name}/", b"")  # a folder entry: not a file
        for member, data in members.items():
            whl.writestr(member, data)
    return {"file_name": path.name}


def _unpack(folder: Path, manifest: dict[str, Any]) -> dict[str, bytes]:
    raw = gzip.decompress((folder / (manifest["file"] + ".gz")).read_bytes())
    assert hashlib.sha256(raw).hexdigest() == manifest["sha256"]
    assert len(raw) == manifest["size"]
    return {name: raw[offset : offset + size] for name, offset, size in manifest["files"]}


def _runtime_files(folder: Path) -> None:
    for name in bundle.RUNTIME_FILES:
        (folder / name).write_bytes(name.encode())
        (folder / f"{name}.gz").write_bytes(gzip.compress(name.encode()))


def _downloaded(folder: Path) -> int:
    """Bytes of what the worker fetches: the gzip copies of the runtime files and the bundle."""
    names = [*bundle.RUNTIME_FILES, bundle.BUNDLE_FILE]
    return sum((folder / f"{name}.gz").stat().st_size for name in names)


def test_every_wheel_is_packed_and_shared_libraries_are_listed(tmp_path: Path) -> None:
    _runtime_files(tmp_path)
    lock = {
        "info": {"python": "3.14.2"},
        "packages": {
            "alpha": _wheel(tmp_path, "alpha", {"alpha/__init__.pyc": b"A" * 100, "a.txt": b""}),
            "beta": _wheel(tmp_path, "beta", {"beta/mod.py": b"x = 1\n"}),
            "gamma": _wheel(tmp_path, "gamma", {"gamma/_core.so": b"\0asm", "gamma/i.py": b""}),
        },
    }
    manifest = bundle.write_bundle(tmp_path, lock)
    assert manifest["packages"] == ["alpha", "beta", "gamma"]
    assert manifest["dynlibs"] == ["gamma/_core.so"]
    assert manifest["site_packages"] == "/lib/python3.14/site-packages/"
    assert manifest["download"] == _downloaded(tmp_path)  # the worker's progress bar
    files = _unpack(tmp_path, manifest)
    assert files == {
        "alpha/__init__.pyc": b"A" * 100,
        "a.txt": b"",
        "beta/mod.py": b"x = 1\n",
        "gamma/_core.so": b"\0asm",
        "gamma/i.py": b"",
    }
    on_disk = json.loads((tmp_path / bundle.MANIFEST).read_text(encoding="utf-8"))
    assert on_disk == manifest


def test_the_runtime_hash_changes_with_any_runtime_file(tmp_path: Path) -> None:
    # a saved interpreter (docs/assets/tryit/snapshot.mjs) is only reused for the same runtime
    _runtime_files(tmp_path)
    before = bundle.runtime_hash(tmp_path)
    assert bundle.runtime_hash(tmp_path) == before
    for name in bundle.RUNTIME_FILES:
        (tmp_path / name).write_bytes(b"changed")
        assert bundle.runtime_hash(tmp_path) != before
        _runtime_files(tmp_path)


def test_the_same_file_in_two_wheels_is_refused(tmp_path: Path) -> None:
    _runtime_files(tmp_path)
    lock = {
        "info": {"python": "3.14.2"},
        "packages": {
            "one": _wheel(tmp_path, "one", {"shared/x.py": b"1"}),
            "two": _wheel(tmp_path, "two", {"shared/x.py": b"2"}),
        },
    }
    with pytest.raises(ValueError, match=r"shared/x\.py is in both one and two"):
        bundle.write_bundle(tmp_path, lock)


def test_the_served_bundle_holds_every_wheel_of_the_lockfile(built_site: Path) -> None:
    folder = built_site / "_tryit" / "pyodide"
    lock = json.loads((folder / "tryit-lock.json").read_text(encoding="utf-8"))
    manifest = json.loads((folder / bundle.MANIFEST).read_text(encoding="utf-8"))
    assert manifest["packages"] == sorted(lock["packages"])
    assert [path.split("/")[0] for path in manifest["dynlibs"]] == ["pydantic_core"]
    assert manifest["runtime"] == bundle.runtime_hash(folder)
    assert manifest["download"] == _downloaded(folder)
    files = _unpack(folder, manifest)
    for name in ("fastapi", "pydantic-core"):
        with zipfile.ZipFile(folder / lock["packages"][name]["file_name"]) as whl:
            for member in whl.namelist():
                assert files[member] == whl.read(member)
