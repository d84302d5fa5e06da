"""hedron_core in Pyodide (real Chromium + the pinned Pyodide runtime): it imports with no
third-party package and renders byte-for-byte what CPython renders."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hedron_support import ROOT
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from hedron_core import render
from hedron_core.components import registry
from hedron_core.document import render_document
from hedron_core.explorer import explorer_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PYODIDE = ROOT / ".cache" / "site" / "pyodide"
CORE = ROOT / "src" / "hedron" / "hedron_core"
TYPES = {".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json"}

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>pyodide</title></head>
<body><script type="module">
import { loadPyodide } from "/pyodide/pyodide.mjs";
window.runCore = async (code) => {
  const py = await loadPyodide({ indexURL: "/pyodide/" });
  const zip = await (await fetch("/hedron_core.zip")).arrayBuffer();
  py.unpackArchive(zip, "zip", { extractDir: "/home/pyodide/lib" });
  py.runPython("import sys; sys.path.insert(0, '/home/pyodide/lib')");
  return py.runPython(code);
};
window.ready = true;
</script></body></html>"""

CODE = """
import json, sys, threading
import hedron_core
from hedron_core import render, render_document
from hedron_core.components import registry
from hedron_core.explorer import explorer_page
out = {info.name: render(info.example) for info in registry()}
out["__document__"] = render_document(explorer_page(), title="x", csrf_token="t" * 43)
out["__platform__"] = sys.platform
out["__threads__"] = threading.active_count()
out["__web__"] = sorted(m for m in sys.modules if m.split(".")[0] in ("fastapi", "starlette"))
json.dumps(out)
"""


def core_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for path in sorted(CORE.rglob("*.py")):
            if "jobs" not in path.relative_to(CORE).parts:
                zf.write(path, Path("hedron_core") / path.relative_to(CORE))
    return buffer.getvalue()


def build_server() -> Starlette:
    archive = core_zip()

    async def index(request: Request) -> Response:
        return HTMLResponse(PAGE)

    async def runtime(request: Request) -> Response:
        name = request.path_params["name"]
        path = PYODIDE / name
        if "/" in name or not path.is_file():
            return Response(status_code=404)
        media = TYPES.get(path.suffix, "application/octet-stream")
        return Response(path.read_bytes(), media_type=media)

    async def core(request: Request) -> Response:
        return Response(archive, media_type="application/zip")

    return Starlette(
        routes=[
            Route("/", index),
            Route("/pyodide/{name}", runtime),
            Route("/hedron_core.zip", core),
        ]
    )


def test_hedron_core_renders_identically_in_pyodide(chromium: Any, live_server: Any) -> None:
    if not (PYODIDE / "pyodide.mjs").exists():
        pytest.skip("the Pyodide runtime is not in .cache/site/pyodide (the site build fetches it)")
    base = live_server(build_server())
    context = chromium.new_context()
    page = context.new_page()
    try:
        page.goto(base + "/")
        page.wait_for_function("window.ready === true")
        result = json.loads(page.evaluate("code => window.runCore(code)", CODE))
    finally:
        context.close()
    assert result.pop("__platform__") == "emscripten"
    assert result.pop("__threads__") == 1
    assert result.pop("__web__") == []
    expected = {info.name: render(info.example) for info in registry()}
    expected["__document__"] = render_document(explorer_page(), title="x", csrf_token="t" * 43)
    assert result == expected
