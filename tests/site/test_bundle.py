"""The bundle of wheels the "Try it" worker unpacks itself (``docsite/runtime/bundle.py``)."""

from __future__ import annotations

import gzip
import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from docsite.runtime import bundle

ROOT = Path(__file__).resolve().parents[2]


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


def _downloaded(folder: Path, manifest: dict[str, Any]) -> int:
    """Bytes of what the worker fetches: the gzip copies of the runtime files, of the shared
    libraries and of the bundle."""
    libraries = [lib["file"] for lib in manifest["dynlibs"]]
    names = [*bundle.RUNTIME_FILES, *libraries, bundle.BUNDLE_FILE]
    return sum((folder / f"{name}.gz").stat().st_size for name in names)


def test_every_wheel_is_packed_and_shared_libraries_are_served_apart(tmp_path: Path) -> None:
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
    # CPython's start waits for the shared library, not for the bundle: it is a file of its own
    sha = hashlib.sha256(b"\0asm").hexdigest()
    assert manifest["dynlibs"] == [
        {"path": "gamma/_core.so", "file": "_core.so", "sha256": sha, "size": 4}
    ]
    assert (tmp_path / "_core.so").read_bytes() == b"\0asm"
    assert gzip.decompress((tmp_path / "_core.so.gz").read_bytes()) == b"\0asm"
    assert manifest["site_packages"] == "/lib/python3.14/site-packages/"
    assert manifest["download"] == _downloaded(tmp_path, manifest)  # the worker's progress bar
    files = _unpack(tmp_path, manifest)
    assert files == {
        "alpha/__init__.pyc": b"A" * 100,
        "a.txt": b"",
        "beta/mod.py": b"x = 1\n",
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
    # ... and with the shared libraries it is given (a saved interpreter has them linked)
    (tmp_path / "_core.so").write_bytes(b"\0asm")
    with_lib = bundle.runtime_hash(tmp_path, ("_core.so",))
    assert with_lib != before
    (tmp_path / "_core.so").write_bytes(b"\0asm2")
    assert bundle.runtime_hash(tmp_path, ("_core.so",)) != with_lib


@pytest.mark.parametrize(
    ("one", "two", "message"),
    [
        ("shared/x.py", "shared/x.py", r"shared/x\.py is in both one and two"),
        # served under their file names: two libraries of one name would overwrite each other
        ("one/_core.so", "two/_core.so", r"two shared libraries would be served under one name"),
    ],
    ids=["file", "shared library"],
)
def test_the_same_file_in_two_wheels_is_refused(
    tmp_path: Path, one: str, two: str, message: str
) -> None:
    _runtime_files(tmp_path)
    lock = {
        "info": {"python": "3.14.2"},
        "packages": {
            "one": _wheel(tmp_path, "one", {one: b"1"}),
            "two": _wheel(tmp_path, "two", {two: b"2"}),
        },
    }
    with pytest.raises(ValueError, match=message):
        bundle.write_bundle(tmp_path, lock)


def test_the_served_bundle_holds_every_wheel_of_the_lockfile(built_site: Path) -> None:
    folder = built_site / "_tryit" / "pyodide"
    lock = json.loads((folder / "tryit-lock.json").read_text(encoding="utf-8"))
    manifest = json.loads((folder / bundle.MANIFEST).read_text(encoding="utf-8"))
    assert manifest["packages"] == sorted(lock["packages"])
    [lib] = manifest["dynlibs"]
    assert lib["path"].split("/")[0] == "pydantic_core"
    served = (folder / lib["file"]).read_bytes()
    assert hashlib.sha256(served).hexdigest() == lib["sha256"]
    index = json.loads((folder / "tryit-files.json").read_text(encoding="utf-8"))["files"]
    assert index[lib["file"]] == lib["sha256"]  # kept in Cache Storage like the others
    assert lib["file"] + ".gz" in index
    assert (folder / (lib["file"] + ".br")).exists()  # for a host serving precompressed files
    assert manifest["runtime"] == bundle.runtime_hash(folder, (lib["file"],))
    assert manifest["download"] == _downloaded(folder, manifest)
    files = _unpack(folder, manifest)
    assert lib["path"] not in files
    for name in ("fastapi", "pydantic-core"):
        with zipfile.ZipFile(folder / lock["packages"][name]["file_name"]) as whl:
            for member in whl.namelist():
                expected = served if member == lib["path"] else files[member]
                assert expected == whl.read(member)
