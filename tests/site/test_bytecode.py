"""The runtime's bytecode step (``docsite/runtime/bytecode.py`` run inside Pyodide under Node).

What the browser imports must arrive as ``.pyc`` made by Pyodide's own CPython 3.14 (compiling
~600 modules from source on every visit was most of a cold "Try it"); what it never imports
stays source; recipes stay source; wheels stay valid (RECORD matches).
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.util
import subprocess
import zipfile
from pathlib import Path

import pytest

from docsite.runtime import build as runtime
from docsite.runtime import bytecode, lockfile

pytestmark = pytest.mark.slow  # runs Pyodide under Node

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pyodide_dir(built_site: Path) -> Path:
    return built_site / "_tryit" / "pyodide"


def _wheel(folder: Path, prefix: str) -> zipfile.ZipFile:
    (path,) = folder.glob(f"{prefix}-*.whl")
    return zipfile.ZipFile(path)


def _magic(data: bytes) -> bytes:
    return data[:4]


def test_imported_modules_ship_as_bytecode_of_one_other_interpreter(pyodide_dir: Path) -> None:
    stdlib = zipfile.ZipFile(pyodide_dir / "python_stdlib.zip")
    names = set(stdlib.namelist())
    assert {"asyncio/__init__.pyc", "json/__init__.pyc", "zipfile/__init__.pyc"} <= names
    assert "asyncio/__init__.py" not in names
    fastapi = _wheel(pyodide_dir, "fastapi")
    assert "fastapi/routing.pyc" in fastapi.namelist()
    assert "fastapi/routing.py" not in fastapi.namelist()
    magics = {_magic(stdlib.read(n)) for n in names if n.endswith(".pyc")}
    magics |= {_magic(fastapi.read(n)) for n in fastapi.namelist() if n.endswith(".pyc")}
    assert len(magics) == 1  # one interpreter made them all ...
    assert magics != {importlib.util.MAGIC_NUMBER}  # ... and not this CPython


def test_what_the_runtime_never_imports_stays_source(pyodide_dir: Path) -> None:
    names = set(zipfile.ZipFile(pyodide_dir / "python_stdlib.zip").namelist())
    assert "pdb.py" not in names
    assert "pdb.pyc" not in names
    assert not any(n.startswith("multiprocessing/") for n in names)
    assert "encodings/utf_8.pyc" in names
    assert "encodings/cp037.py" not in names  # a legacy code page: not kept
    assert "encodings/utf_32.py" in names  # kept, never imported: still source
    pydantic = _wheel(pyodide_dir, "pydantic").namelist()
    assert "pydantic/mypy.py" in pydantic
    assert "pydantic/mypy.pyc" not in pydantic


def test_sources_read_at_run_time_keep_their_py_and_the_driver_carries_no_recipe(
    pyodide_dir: Path,
) -> None:
    anyio = _wheel(pyodide_dir, "anyio")
    tag = "cpython-314"
    assert "anyio/__init__.py" in anyio.namelist()
    cached = anyio.read(f"anyio/__pycache__/__init__.{tag}.pyc")
    assert int.from_bytes(cached[4:8], "little") == 0b01  # hash-based, never checked
    tryit = _wheel(pyodide_dir, "tryit").namelist()
    assert not [n for n in tryit if "recipe.toml" in n or "/_recipes/" in n]  # no recipe
    assert "tryit/browser.pyc" in tryit


def test_pydantic_v1_is_left_out_of_the_served_pydantic(pyodide_dir: Path) -> None:
    # runtime.WHEEL_DROP: FastAPI imported it for every route; an ImportError means "no v1"
    pydantic = _wheel(pyodide_dir, "pydantic").namelist()
    assert not [name for name in pydantic if name.startswith("pydantic/v1/")]
    assert "pydantic/main.pyc" in pydantic


def test_a_wheel_rewrite_leaves_out_dropped_members(tmp_path: Path) -> None:
    source, target = tmp_path / "demo-1.0-py3-none-any.whl", tmp_path / "out.whl"
    with zipfile.ZipFile(source, "w") as whl:
        whl.writestr("demo/__init__.py", "x = 1\n")
        whl.writestr("demo/v1/__init__.py", "y = 2\n")
        whl.writestr("demo/v1.txt", "not under demo/v1/\n")
        whl.writestr("demo-1.0.dist-info/RECORD", "")
    bytecode.wheel(str(source), str(target), set(), set(), ("demo/v1/",))
    names = zipfile.ZipFile(target).namelist()
    assert sorted(names) == ["demo-1.0.dist-info/RECORD", "demo/__init__.py", "demo/v1.txt"]
    record = zipfile.ZipFile(target).read("demo-1.0.dist-info/RECORD")
    assert b"demo/v1/" not in record


@pytest.mark.parametrize(
    "prefix", ["fastapi", "anyio", "hedron", "tryit", "pydantic_core", "pydantic"]
)
def test_rewritten_wheels_have_a_matching_record(pyodide_dir: Path, prefix: str) -> None:
    whl = _wheel(pyodide_dir, prefix)
    (record,) = [n for n in whl.namelist() if n.endswith(".dist-info/RECORD")]
    listed = {}
    for line in whl.read(record).decode().splitlines():
        name, digest, _size = line.rsplit(",", 2)
        listed[name] = digest
    assert set(listed) == set(whl.namelist())
    for name, digest in listed.items():
        if name != record:
            raw = hashlib.sha256(whl.read(name)).digest()
            assert digest == "sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def test_lockfile_finds_import_names_of_sourceless_wheels(tmp_path: Path) -> None:
    path = tmp_path / "demo-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as whl:
        whl.writestr("pkg/__init__.pyc", b"")
        whl.writestr("single.pyc", b"")
        whl.writestr("demo-1.0.dist-info/METADATA", "Name: demo\nVersion: 1.0\n")
    with zipfile.ZipFile(path) as whl:
        assert lockfile._imports(whl) == ["pkg", "single"]


def test_docstrings_go_and_code_stays() -> None:
    source = b'''"""Module doc."""
from __future__ import annotations


class A:
    """Class doc."""

    def f(self) -> int:
        """Method doc."""
        return 1

    async def g(self) -> None:
        """Only a docstring."""


def h() -> str:
    "a docstring too"
    x = "kept"
    return x


def i() -> int:
    42
    return 2
'''
    tree = bytecode._without_docstrings(source, "demo.py")
    namespace: dict[str, object] = {}
    exec(compile(tree, "demo.py", "exec"), namespace)
    cls = namespace["A"]
    assert namespace.get("__doc__") is None
    assert cls.__doc__ == "Class doc."  # kept: see _without_docstrings
    assert cls.f.__doc__ is None
    assert cls().f() == 1  # type: ignore[operator]
    assert namespace["h"]() == "kept"  # type: ignore[operator]
    assert namespace["h"].__doc__ is None  # type: ignore[attr-defined]
    assert isinstance(tree.body[0], ast.ImportFrom)  # the future import is still first
    constants = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    assert 42 in constants
    assert "kept" in constants


def test_stdlib_trim_rules() -> None:
    assert not runtime._stdlib_keeps("pdb.py")
    assert not runtime._stdlib_keeps("multiprocessing/pool.py")
    assert not runtime._stdlib_keeps("encodings/mac_roman.py")
    assert runtime._stdlib_keeps("encodings/utf_8.py")
    assert runtime._stdlib_keeps("encodings/__init__.py")
    assert runtime._stdlib_keeps("asyncio/events.py")


def test_node_runner_reports_a_failing_script(tmp_path: Path) -> None:
    script = tmp_path / "fails.py"
    script.write_text("async def main(args):\n    raise RuntimeError('boom ' + args[0])\n")
    runner = Path(runtime.__file__).parent / "run_in_node.mjs"
    pyodide = runtime.fetch_pyodide()
    result = subprocess.run(
        ["node", str(runner), str(pyodide), str(script), "now"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "boom now" in result.stderr
