"""The "Try it" runtime from a host that serves precompressed brotli files.

The build writes ``.br`` copies of the big runtime files (``docsite/runtime/precompressed.py``);
a host set up for precompressed files (here the repository's static server with
``precompressed=True``) sends them, ``Content-Encoding: br``, to a browser that accepts brotli.
The worker sees it on the index it fetches first and then takes those copies instead of the
``.gz`` ones it would inflate itself. These tests run in headless Chromium against the built
site: the brotli copies are used and a recipe steps to its committed transcript, a later visit
takes them from the worker's own cache, and a missing copy falls back to the ``.gz`` one. They
are about a fresh start, so the link is taken for a slow one: on a fast one such a host's first
visit restores the prepared interpreter instead (``test_shipped_interpreter.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from docsite.testing.static_server import StaticServer
from tests._support.tryit_visit import LOAD_MS, brotli_host_visit, committed

pytestmark = pytest.mark.browser

RECIPE = "resq-async-poll"
BIG = ("pyodide.asm.wasm", "python_stdlib.stored.zip", "site-packages.bin")
KEPT = "() => globalThis.__tryitRuntime && globalThis.__tryitRuntime.kept !== undefined"


def _served(server: StaticServer) -> dict[str, int]:
    """Runtime file name -> bytes sent, for what the server sent so far."""
    return {p.rsplit("/", 1)[1]: n for p, n in server.log if "/_tryit/pyodide/" in p}


def test_a_brotli_host_sends_the_br_copies_and_a_later_visit_keeps_them(
    chromium: Any, built_site: Path
) -> None:
    folder = built_site / "_tryit" / "pyodide"
    with brotli_host_visit(chromium, built_site, "slow") as (server, visit):
        visit.goto(f"recipes/{RECIPE}/")
        assert _served(server) == {}  # nothing of the runtime before the click
        visit.click("step", timeout=LOAD_MS)
        visit.click("run")
        assert visit.transcript() == committed(RECIPE)
        assert visit.runtime()["brotli"] is True
        served = _served(server)
        for name in BIG:  # the .br copy, sent under the plain name
            assert served[name] == (folder / f"{name}.br").stat().st_size, name
        assert not [name for name in served if name.endswith(".gz") or name.endswith(".whl")]
        visit.page.wait_for_function(KEPT, timeout=LOAD_MS)
        visit.reopen()  # a later visit: the worker's cache has this build's files
        server.clear_log()
        visit.goto(f"recipes/{RECIPE}/")
        visit.click("run", timeout=LOAD_MS)
        assert visit.transcript() == committed(RECIPE)
        again = _served(server)
        assert not set(BIG) & set(again), again
        assert visit.errors == []


def test_a_missing_brotli_copy_is_replaced_by_the_gz_copy(chromium: Any, built_site: Path) -> None:
    with brotli_host_visit(chromium, built_site, "slow") as (server, visit):
        # a host that has the other .br copies but not the bundle's
        visit.page.route("**/_tryit/pyodide/site-packages.bin", lambda r: r.fulfill(status=404))
        visit.goto(f"recipes/{RECIPE}/")
        visit.click("run", timeout=LOAD_MS)
        assert visit.transcript() == committed(RECIPE)
        served = _served(server)
        assert "site-packages.bin.gz" in served  # inflated by the worker
        assert "pyodide.asm.wasm" in served
        assert "pyodide.asm.wasm.gz" not in served
        assert not [name for name in served if name.endswith(".whl")]  # the bundle was used
        assert visit.errors == []
