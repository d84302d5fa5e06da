"""The bundle of pure wheels the "Try it" worker unpacks itself (``scripts/site/bundle.py``)."""

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


def test_pure_wheels_are_packed_and_native_ones_left_to_pyodide(tmp_path: Path) -> None:
    lock = {
        "packages": {
            "alpha": _wheel(tmp_path, "alpha", {"alpha/__init__.pyc": b"A" * 100, "a.txt": b""}),
            "beta": _wheel(tmp_path, "beta", {"beta/mod.py": b"x = 1\n"}),
            "gamma": _wheel(tmp_path, "gamma", {"gamma/_core.so": b"\0asm", "gamma/i.py": b""}),
        }
    }
    manifest = bundle.write_bundle(tmp_path, lock)
    assert manifest["packages"] == ["alpha", "beta"]
    assert manifest["native"] == ["gamma"]
    files = _unpack(tmp_path, manifest)
    assert files == {"alpha/__init__.pyc": b"A" * 100, "a.txt": b"", "beta/mod.py": b"x = 1\n"}
    on_disk = json.loads((tmp_path / bundle.MANIFEST).read_text(encoding="utf-8"))
    assert on_disk == manifest


def test_the_same_file_in_two_wheels_is_refused(tmp_path: Path) -> None:
    lock = {
        "packages": {
            "one": _wheel(tmp_path, "one", {"shared/x.py": b"1"}),
            "two": _wheel(tmp_path, "two", {"shared/x.py": b"2"}),
        }
    }
    with pytest.raises(ValueError, match=r"shared/x\.py is in both one and two"):
        bundle.write_bundle(tmp_path, lock)


def test_the_served_bundle_holds_every_pure_wheel_of_the_lockfile(built_site: Path) -> None:
    folder = built_site / "_tryit" / "pyodide"
    lock = json.loads((folder / "tryit-lock.json").read_text(encoding="utf-8"))
    manifest = json.loads((folder / bundle.MANIFEST).read_text(encoding="utf-8"))
    assert manifest["native"] == ["pydantic-core"]
    assert sorted(manifest["packages"] + manifest["native"]) == sorted(lock["packages"])
    files = _unpack(folder, manifest)
    with zipfile.ZipFile(folder / lock["packages"]["fastapi"]["file_name"]) as whl:
        for name in whl.namelist():
            assert files[name] == whl.read(name)
