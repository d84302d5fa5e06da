"""The saved interpreter of the "Try it" worker (``docs/assets/tryit/snapshot.mjs``).

After a cold start the worker keeps a memory snapshot of the interpreter, with every library
imported, in the browser's Cache Storage; a later visit restores it instead of starting CPython
and importing again. These tests run in headless Chromium against the built site: a later
visit restores it and runs every recipe to the committed transcript; a snapshot that does not
fit, or belongs to another build, is not used, and a fresh one replaces it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from docsite.testing.static_server import StaticServer
from tests._support.tryit_visit import LOAD_MS, RECIPES, Visit, committed

pytestmark = pytest.mark.browser

SAVED = "() => globalThis.__tryitRuntime && globalThis.__tryitRuntime.saved !== undefined"
# Everything about the one stored snapshot, read in the page (the worker's origin).
STORED = """async () => {
  const cache = await caches.open("tryit-snapshot");
  const keys = await cache.keys();
  const out = [];
  for (const request of keys) {
    const response = await cache.match(request);
    const bytes = new Uint8Array(await response.arrayBuffer());
    out.push({ url: request.url, size: bytes.length,
               meta: JSON.parse(response.headers.get("x-tryit-snapshot")) });
  }
  return out;
}"""
# Spoil the stored snapshot: its function-table size, or its bytes (Pyodide's magic number).
SPOIL = """async (how) => {
  const cache = await caches.open("tryit-snapshot");
  const [request] = await cache.keys();
  const response = await cache.match(request);
  const meta = JSON.parse(response.headers.get("x-tryit-snapshot"));
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (how === "table") meta.table += 1;
  if (how === "bytes") bytes[0] ^= 0xff;
  await cache.put(request, new Response(bytes, { headers: {
    "x-tryit-snapshot": JSON.stringify(meta) } }));
}"""


def _first_visit(visit: Visit, recipe: str) -> dict[str, Any]:
    """Load the runtime afresh and wait until the worker has saved the interpreter."""
    visit.goto(f"recipes/{recipe}/")
    visit.click("step", timeout=LOAD_MS)
    assert visit.runtime()["restored"] is False
    visit.page.wait_for_function(SAVED, timeout=LOAD_MS)
    assert visit.page.evaluate("globalThis.__tryitRuntime.saved") is True
    [stored] = visit.page.evaluate(STORED)
    assert stored["size"] > 10_000_000  # the interpreter's memory
    assert stored["meta"]["table"] > 0
    return dict(stored)


def test_a_later_visit_restores_the_interpreter_and_every_recipe_runs(
    chromium: Any, site_server: StaticServer, built_site: Path
) -> None:
    with Visit(chromium, site_server.url) as visit:
        _first_visit(visit, "resq-async-poll")
        visit.reopen()
        for index, name in enumerate(RECIPES):
            if index == 0:
                visit.goto(f"recipes/{name}/")
            else:
                visit.navigate(f"recipes/{name}/")
            visit.click("run", timeout=LOAD_MS)
            assert visit.transcript() == committed(name), name
        assert visit.runtime()["restored"] is True
        assert visit.runtime()["jspi"] is True  # the sync recipes above ran, restored too
        # a restored interpreter is not saved again
        assert visit.page.evaluate("globalThis.__tryitRuntime.saved") is None
        assert visit.errors == []


@pytest.mark.parametrize("spoiled", ["table", "bytes", "build"])
def test_a_snapshot_that_does_not_fit_is_dropped_and_a_fresh_one_saved(
    chromium: Any, site_server: StaticServer, built_site: Path, spoiled: str
) -> None:
    with Visit(chromium, site_server.url) as visit:
        first = _first_visit(visit, "resq-async-poll")
        if spoiled == "build":  # the site was rebuilt with another runtime since
            manifest = json.loads((built_site / "_tryit/pyodide/tryit-bundle.json").read_text())
            manifest["runtime"] = "0" * 64
            body = json.dumps(manifest)
            visit.context.route(
                "**/tryit-bundle.json",
                lambda route: route.fulfill(status=200, body=body, content_type="application/json"),
            )
            # ... and its index of files lists that manifest (the kept copy is another build's)
            index = json.loads((built_site / "_tryit/pyodide/tryit-files.json").read_text())
            index["files"]["tryit-bundle.json"] = hashlib.sha256(body.encode()).hexdigest()
            listing = json.dumps(index)
            visit.context.route(
                "**/tryit-files.json",
                lambda route: route.fulfill(
                    status=200, body=listing, content_type="application/json"
                ),
            )
        else:
            visit.page.evaluate(SPOIL, spoiled)
        visit.reopen()
        visit.goto("recipes/resq-async-poll/")
        visit.click("run", timeout=LOAD_MS)
        assert visit.transcript() == committed("resq-async-poll")
        assert visit.runtime()["restored"] is False
        visit.page.wait_for_function(SAVED, timeout=LOAD_MS)
        [stored] = visit.page.evaluate(STORED)  # one snapshot: the fresh one
        assert stored["meta"]["table"] == first["meta"]["table"]  # (dlopen handles vary)
        assert (stored["url"] == first["url"]) == (spoiled != "build")
        assert visit.errors == []
