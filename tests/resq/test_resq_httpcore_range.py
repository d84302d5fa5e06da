"""resq's own httpx transport on the lowest and the highest httpcore its ``pyproject.toml``
allows, over loopback.

For each version, pip installs that httpcore alone (``--no-deps``, from the package index pip
is set up with) into a temporary folder, and a child Python with that folder first on its path
runs :data:`CHECK`: keep-alive reuse, a connection the server closed while idle, a refused
connection (``httpx.ConnectError``) and a read timeout (``httpx.ReadTimeout``), all through
resq's transport. Each install and each run is bounded in time.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # installs httpcore's lowest and highest versions

ROOT = Path(__file__).resolve().parents[2]
#: The newest httpcore release below the range's upper bound that this suite knows of; a
#: newer 1.x is tested by the suite itself once it is the installed one.
HIGHEST_KNOWN = "1.0.9"

CHECK = r"""
import socket, sys, threading
import anyio, httpcore, httpx
from resq import Requests

assert httpcore.__version__ == sys.argv[1], (httpcore.__version__, sys.argv[1])
assert httpcore.__file__.startswith(sys.argv[2]), httpcore.__file__

server = socket.create_server(("127.0.0.1", 0))
port = server.getsockname()[1]
accepted = []
closed = threading.Event()

def serve(conn, close_after):
    try:
        _serve(conn, close_after)
    finally:
        conn.close()
        closed.set()

def _serve(conn, close_after):
    for _ in range(close_after):
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        if b"/slow" in data:
            threading.Event().wait(2)
            return
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")

def accept():
    while True:
        conn, _ = server.accept()
        accepted.append(conn)
        close_after = 3 if len(accepted) == 1 else 100
        threading.Thread(target=serve, args=(conn, close_after), daemon=True).start()

threading.Thread(target=accept, daemon=True).start()

async def main():
    base = f"http://127.0.0.1:{port}"
    async with Requests(base, adapter="httpx", timeout=1) as client:
        assert client._engine.slots is not None  # resq's own transport
        for _ in range(3):
            assert (await client.get("/a")).text == "ok"
        assert len(accepted) == 1  # one connection, kept alive
        assert await anyio.to_thread.run_sync(closed.wait, 5)
        # the server closed it after three answers: the next request takes a new one
        for _ in range(2):
            with anyio.fail_after(5):
                assert (await client.get("/b")).status_code == 200
        assert len(accepted) == 2
        try:
            await client.get("/slow")
        except httpx.ReadTimeout:
            pass
        else:
            raise AssertionError("no ReadTimeout")
    with socket.create_server(("127.0.0.1", 0)) as spare:
        gone = spare.getsockname()[1]
    async with Requests(f"http://127.0.0.1:{gone}", adapter="httpx") as client:
        try:
            await client.get("/")
        except httpx.ConnectError:
            print("ok", httpcore.__version__)
        else:
            raise AssertionError("no ConnectError")

anyio.run(main)
"""


def _declared_range() -> tuple[str, str]:
    data = tomllib.loads((ROOT / "src" / "resq" / "pyproject.toml").read_text())
    (spec,) = [d for d in data["project"]["dependencies"] if d.startswith("httpcore")]
    match = re.fullmatch(r"httpcore>=([\d.]+),<(\d+)", spec)
    assert match, spec
    return match.group(1), match.group(2)


def test_the_range_is_declared_and_the_known_highest_is_in_it() -> None:
    lowest, below = _declared_range()
    assert lowest == "1.0.0"
    assert int(HIGHEST_KNOWN.split(".")[0]) < int(below)


@pytest.mark.parametrize("which", ["lowest", "highest"])
def test_resqs_transport_works_on_the_ends_of_the_httpcore_range(
    which: str, tmp_path: Path
) -> None:
    lowest, _ = _declared_range()
    version = lowest if which == "lowest" else HIGHEST_KNOWN
    target = tmp_path / f"httpcore-{version}"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile"]
    installed = subprocess.run(
        [*pip, "--target", str(target), f"httpcore=={version}"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(ROOT / "src" / "resq")])}
    run = subprocess.run(
        [sys.executable, "-c", CHECK, version, str(target)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["ok", version]


def _private_names_of_resq(trees: list[ast.Module]) -> set[str]:
    """The ``_names`` resq defines itself: its functions, classes, attributes and slots."""
    own: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                own.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                    own.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                own.add(node.value)  # __slots__ entries
            elif isinstance(node, ast.Name):
                own.add(node.id)
    return {name for name in own if name.startswith("_")}


def test_resq_uses_no_private_name_of_httpx_or_httpcore() -> None:
    """No ``httpx._x``/``httpcore._x`` import or attribute, no ``vars()``/``__dict__`` of their
    objects, and no ``obj._x`` that resq does not define itself (``pool._proxy``)."""
    sources = sorted((ROOT / "src" / "resq" / "resq").rglob("*.py"))
    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in sources]
    own = _private_names_of_resq(trees)
    found: list[str] = []
    for path, tree in zip(sources, trees, strict=True):
        for node in ast.walk(tree):
            where = f"{path.name}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.ImportFrom) and re.match(
                r"(httpx|httpcore)\._", node.module or ""
            ):
                found.append(f"{where} imports {node.module}")
            elif isinstance(node, ast.Import):
                found += [f"{where} imports {a.name}" for a in node.names if "._" in a.name]
            elif isinstance(node, ast.Attribute):
                private = node.attr.startswith("_") and not node.attr.startswith("__")
                if private and node.attr not in own:
                    found.append(f"{where} reads {ast.unparse(node)}")
                if node.attr == "__dict__":
                    found.append(f"{where} reads {ast.unparse(node)}")
            elif isinstance(node, ast.Call) and ast.unparse(node.func) == "vars":
                found.append(f"{where} calls {ast.unparse(node)}")
    assert found == []
