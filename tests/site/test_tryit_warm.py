"""A later visit: the worker keeps the runtime's files in Cache Storage under their sha256
(``docs/assets/tryit/files.mjs``, the build's index ``tryit-files.json``).

Headless Chromium against the built site: with a server that lets the browser keep nothing
(``Cache-Control: no-store``, no ``Last-Modified``), a later visit to another page downloads
under a megabyte for the widget; after a rebuild with a changed file, the changed file is
downloaded and used, the unchanged ones are not downloaded again, and the old ones are gone.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from docsite.paths import REPO
from docsite.runtime import build as runtime
from docsite.testing.static_server import StaticServer
from tests._support.tryit_visit import LOAD_MS, Visit, committed

pytestmark = pytest.mark.browser

RECIPE = "resq-async-poll"
STORED = "() => globalThis.__tryitRuntime.saved !== undefined && __tryitRuntime.kept !== undefined"
KEPT = """async () => {
  const cache = await caches.open("tryit-files");
  return (await cache.keys()).map((request) => request.url.split("/").pop());
}"""


def _widget_bytes(server: StaticServer) -> int:
    return sum(size for path, size in server.log if "/_tryit/" in path or "/tryit/" in path)


def _first_visit(visit: Visit, page: str) -> list[str]:
    """Load the runtime afresh; return the sha256 of the files kept."""
    visit.goto(page)
    visit.click("step", timeout=LOAD_MS)
    assert visit.runtime()["restored"] is False
    visit.page.wait_for_function(STORED, timeout=LOAD_MS)
    kept = list(visit.page.evaluate(KEPT))
    assert len(kept) == visit.page.evaluate("globalThis.__tryitRuntime.kept") > 3
    return kept


def _index(folder: Path) -> dict[str, str]:
    return dict(json.loads((folder / runtime.INDEX_NAME).read_text())["files"])


def test_a_later_visit_downloads_under_a_megabyte_without_cache_headers(
    chromium: Any, built_site: Path
) -> None:
    index = _index(built_site / "_tryit" / "pyodide")
    with StaticServer(built_site, no_store=True) as server, Visit(chromium, server.url) as visit:
        kept = _first_visit(visit, f"recipes/{RECIPE}/")
        assert set(kept) <= set(index.values())
        assert index["pyodide.asm.wasm.gz"] in kept
        assert index["site-packages.bin.gz"] in kept
        manifest = json.loads((built_site / "_tryit/pyodide/tryit-bundle.json").read_text())
        [library] = [lib["file"] + ".gz" for lib in manifest["dynlibs"]]  # served apart
        assert index[library] in kept
        visit.reopen()
        server.clear_log()
        visit.goto("recipes/taskflow/")  # another page, a new worker
        visit.click("step", timeout=LOAD_MS)
        assert visit.transcript() == committed("taskflow")[:1]
        assert visit.runtime()["restored"] is True
        served = [path.rsplit("/", 1)[1] for path, _ in server.log]
        assert "pyodide.asm.wasm.gz" not in served
        assert "site-packages.bin.gz" not in served
        assert library not in served
        assert "tryit-files.json" in served  # asked every time: it says what is current
        assert _widget_bytes(server) <= 1_000_000, sorted(server.log, key=lambda e: -e[1])[:5]


# A new build's tryit: its recorder writes "> rebuilt ..." for each line the code prints.
REBUILT = """
_printed = Recorder.printed


def _rebuilt(self, text):
    _printed(self, "rebuilt " + text)


Recorder.printed = _rebuilt
"""


def _rebuild_with_changed_code(folder: Path) -> None:
    """What the runtime build does after the driver's code changed: a new tryit wheel, then
    the lockfile, the bundle and the index written again (the runtime files stay as they are;
    without the prepared interpreter, which a host sending files as they are never offers).
    The wheel's compiled ``_record`` module gives way to its source, changed."""
    [wheel] = folder.glob("tryit-*.whl")
    source = (REPO / "src" / "tryit" / "tryit" / "_record.py").read_bytes() + REBUILT.encode()
    with zipfile.ZipFile(wheel) as old:
        members = [(info, old.read(info)) for info in old.infolist()]
    assert "tryit/_record.pyc" in [info.filename for info, _ in members]
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as new:
        for info, data in members:
            if info.filename == "tryit/_record.pyc":
                new.writestr("tryit/_record.py", source)
            else:
                new.writestr(info, data)
    info = json.loads((folder / runtime.LOCK_NAME).read_text())["info"]
    runtime.write_manifests(folder, info, prepared=False)


def test_a_new_build_replaces_the_kept_files(
    chromium: Any, built_site: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    folder = site / "_tryit" / "pyodide"
    before = _index(folder)
    with StaticServer(site) as server, Visit(chromium, server.url) as visit:
        _first_visit(visit, f"recipes/{RECIPE}/")
        _rebuild_with_changed_code(folder)
        after = _index(folder)
        changed = {name for name in after if after[name] != before.get(name)}
        assert "site-packages.bin.gz" in changed
        assert "pyodide.asm.wasm.gz" not in changed
        visit.reopen()
        server.clear_log()
        visit.goto(f"recipes/{RECIPE}/")
        visit.click("run", timeout=LOAD_MS)
        expected = committed(RECIPE)
        printed = next(i for i, line in enumerate(expected) if line.startswith("> "))
        expected[printed] = expected[printed].replace("> ", "> rebuilt ", 1)
        assert visit.transcript() == expected  # the new build's code runs
        assert visit.runtime()["restored"] is False  # the saved interpreter was the old build's
        served = {path.rsplit("/", 1)[1] for path, _ in server.log}
        assert "site-packages.bin.gz" in served  # the changed file is downloaded ...
        assert "pyodide.asm.wasm.gz" not in served  # ... the unchanged ones are not
        visit.page.wait_for_function(STORED, timeout=LOAD_MS)
        kept = set(visit.page.evaluate(KEPT))
        assert kept <= set(after.values())  # nothing of the old build is kept
        assert after["site-packages.bin.gz"] in kept
        assert before["site-packages.bin.gz"] not in kept
        assert after["pyodide.asm.wasm.gz"] in kept
        assert visit.errors == []
