"""MkDocs plugin ``docsite/examples``: publish the standalone example tree with the site.

The committed tree ``docs/examples/`` (written by ``scripts/examples.py``) is served raw, never
rendered: MkDocs would turn each ``README.md`` into a page, so the plugin takes every
``examples/`` file out of the build and :func:`publish` copies the files as they are, adding
what only a build knows. The built site then has:

- ``/examples/<name>/<file>``: the tree's files, plus ``wheels/<wheel>``, the ``resq`` /
  ``hedron`` wheels of this very build the example installs; its ``requirements.txt`` gets
  their ``--hash`` (so ``pip install --require-hashes`` works, with the site down too);
- ``/examples/<name>.tar.gz`` (``<name>/<file>`` members) and ``<name>.tar.gz.sha256``
  (``sha256sum -c`` reads it);
- ``/examples/manifest.json``: the tree's manifest, each example with the sha256 of every
  file it now holds and of its archive (``archive_sha256``);
- ``/wheels/``: the wheels again, with an ``index.html`` that ``pip install --find-links
  <site>/wheels/`` reads (links carry ``#sha256=``);
- ``/download_example.py``: the download script, its default URL set to the site's URL.

The wheels come from the site's shared wheel build (``runtime.build_local_wheels`` in this
folder), the same files the in-browser runtime loads.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import io
import json
import shutil
import tarfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mkdocs.config import base
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import Files

from docsite.examples import tree as examples
from docsite.paths import DOCS
from docsite.runtime import build as runtime

EXAMPLES_DIR = DOCS / "examples"
DOWNLOAD_SCRIPT = Path(__file__).resolve().parent / "download_example.py"
PREFIX = "examples/"


def local_wheels() -> dict[str, Path]:
    """Return ``{"resq": wheel, "hedron": wheel}`` from the site's shared wheel build."""
    folder = Path(runtime.build_local_wheels())
    wheels = {}
    for dist in ("resq", "hedron"):
        found = sorted(folder.glob(f"{dist}-*-py3-none-any.whl"))
        if len(found) != 1:
            raise RuntimeError(f"expected one {dist} wheel in {folder}, found {found}")
        wheels[dist] = found[0]
    return wheels


def wheels_index(wheels: list[Path]) -> str:
    """Return the ``/wheels/index.html`` page: one link per wheel, with its sha256."""
    links = "\n".join(
        f'<a href="{html.escape(p.name)}#sha256={hashlib.sha256(p.read_bytes()).hexdigest()}">'
        f"{html.escape(p.name)}</a><br>"
        for p in sorted(wheels)
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Wheels of this documentation build</title></head>
<body>
<h1>Wheels of this documentation build</h1>
<p>The exact resq and hedron code these pages show. Use with
<code>pip install --find-links &lt;this page&gt; ...</code>.</p>
{links}
</body>
</html>
"""


def _archive(name: str, files: dict[str, bytes], mtime: float) -> bytes:
    buffer = io.BytesIO()
    # mtime=0 in the gzip header too: the same files always give the same archive (and sha256).
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for filename, data in files.items():
            info = tarfile.TarInfo(f"{name}/{filename}")
            info.size = len(data)
            info.mode = 0o644
            info.mtime = int(mtime)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def with_wheel_hashes(requirements: bytes, wheels: dict[str, bytes]) -> bytes:
    """Add ``--hash=sha256:…`` to each ``./wheels/<wheel>`` line of ``requirements``.

    Raises:
        RuntimeError: a wheel is not named by exactly one line (regenerate the tree).
    """
    lines = requirements.decode().split("\n")
    for filename, data in wheels.items():
        line = f"./{examples.WHEELS_DIR}/{filename}"
        if lines.count(line) != 1:
            raise RuntimeError(
                f"requirements.txt names {line} {lines.count(line)} times, not once: "
                "run `python scripts/examples.py`"
            )
        digest = hashlib.sha256(data).hexdigest()
        lines[lines.index(line)] = f"{line} \\\n    --hash=sha256:{digest}"
    return "\n".join(lines).encode()


def _publish_example(
    out: Path,
    name: str,
    entry: dict[str, Any],
    files: dict[str, bytes],
    wheels: dict[str, Path],
    mtime: float,
) -> None:
    """Write one example (files, wheels, archive, its sha256) and update its manifest entry."""
    by_name = {path.name: path for path in wheels.values()}
    shipped = {}
    for filename in entry.get("wheels", []):
        if filename not in by_name:
            raise RuntimeError(
                f"{name} installs {filename}, this build makes {sorted(by_name)}: "
                "run `python scripts/examples.py`"
            )
        shipped[filename] = by_name[filename].read_bytes()
    files["requirements.txt"] = with_wheel_hashes(files["requirements.txt"], shipped)
    folder = examples.WHEELS_DIR
    files.update({f"{folder}/{filename}": data for filename, data in shipped.items()})
    entry["files"] = {f: hashlib.sha256(data).hexdigest() for f, data in files.items()}
    for filename, data in files.items():
        target = out / name / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    archive = _archive(name, files, mtime)
    entry["archive_sha256"] = hashlib.sha256(archive).hexdigest()
    (out / entry["archive"]).write_bytes(archive)
    (out / f"{entry['archive']}.sha256").write_text(
        f"{entry['archive_sha256']}  {entry['archive']}\n", "utf-8"
    )


def publish(
    site_dir: Path,
    *,
    site_url: str | None = None,
    examples_dir: Path = EXAMPLES_DIR,
    wheels: dict[str, Path] | None = None,
    tree: Mapping[str, bytes] | None = None,
) -> dict[str, Any]:
    """Write the examples, archives, wheels page and download script into ``site_dir``.

    The committed tree names the default site URL. When the site is built for another URL
    (``SITE_URL=… mkdocs build``, or ``mkdocs serve`` on its own address), the generated
    files (``requirements.txt``, ``README.md``) are re-based onto it; the recipe's code files
    are never changed. The published manifest carries the sha256 of every file as served.

    Args:
        site_dir: the built site's folder.
        site_url: the URL the site is served from (``config.site_url``). ``None`` publishes
            the tree for the URL it was generated for.
        examples_dir: the generated tree (``docs/examples/``).
        wheels: the wheels to publish (default: :func:`local_wheels`).
        tree: the tree's files (``{"<name>/<file>": bytes}``, its ``manifest.json`` among
            them) instead of those in ``examples_dir``: ``mkdocs serve`` publishes the tree
            the recipes generate right now, so a download follows an edit.

    Returns:
        The manifest that was published.

    Raises:
        RuntimeError: the tree does not match its manifest, or the wheels are not the versions
            the manifest names: regenerate with ``python scripts/examples.py``.
    """
    if tree is None:
        tree = {
            p.relative_to(examples_dir).as_posix(): p.read_bytes()
            for p in sorted(examples_dir.rglob("*"))
            if p.is_file()
        }
    manifest: dict[str, Any] = json.loads(tree["manifest.json"])
    if wheels is None:
        wheels = local_wheels()
    names = {dist: path.name for dist, path in wheels.items()}
    if names != manifest["wheels"]:
        raise RuntimeError(
            f"this build makes {names}, docs/examples/manifest.json names "
            f"{manifest['wheels']}: run `python scripts/examples.py`"
        )
    old_url: str = manifest["site_url"]
    new_url = site_url.rstrip("/") + "/" if site_url else old_url
    out = site_dir / "examples"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    mtime = (examples_dir / "manifest.json").stat().st_mtime
    for name, entry in manifest["examples"].items():
        files = {f: tree[f"{name}/{f}"] for f in entry["files"]}
        for filename, data in files.items():
            if hashlib.sha256(data).hexdigest() != entry["files"][filename]:
                raise RuntimeError(
                    f"docs/examples/{name}/{filename} does not match manifest.json: "
                    "run `python scripts/examples.py`"
                )
        if new_url != old_url:
            for filename in examples.GENERATED_FILES:
                files[filename] = files[filename].replace(old_url.encode(), new_url.encode())
        _publish_example(out, name, entry, files, wheels, mtime)
    manifest["site_url"] = new_url
    (out / "manifest.json").write_bytes(examples.manifest_bytes(manifest))
    wheel_dir = site_dir / "wheels"
    shutil.rmtree(wheel_dir, ignore_errors=True)
    wheel_dir.mkdir(parents=True)
    for path in wheels.values():
        shutil.copy2(path, wheel_dir / path.name)
    (wheel_dir / "index.html").write_text(wheels_index(list(wheels.values())), "utf-8")
    script = examples.with_default_base_url(DOWNLOAD_SCRIPT.read_text("utf-8"), new_url)
    (site_dir / "download_example.py").write_text(script, "utf-8")
    return manifest


class ExamplesConfig(base.Config):
    """``docsite/examples`` has no options: the tree is ``docs/examples/``, the address
    ``site_url``."""


class ExamplesPlugin(BasePlugin[ExamplesConfig]):
    """``plugins: [docsite/examples]``: the example tree, served raw with what a build adds."""

    def on_files(self, files: Files, config: Any) -> Files:
        """Take ``docs/examples/**`` out of MkDocs' build: those files are published raw."""
        for file in list(files):
            if file.src_uri.startswith(PREFIX):
                files.remove(file)
        return files

    def __init__(self) -> None:
        self._serving = False

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self._serving = command == "serve"

    def on_post_build(self, config: Any) -> None:
        """Publish the tree, the archives, the wheels and the download script: the committed
        tree, or under ``mkdocs serve`` the one the recipes generate now (an edited recipe's
        download shows the edit before ``scripts/recipe sync`` commits it)."""
        site_dir, examples_dir = Path(config["site_dir"]), Path(config["docs_dir"]) / "examples"
        tree = examples.current_tree() if self._serving else None
        publish(site_dir, site_url=config.get("site_url"), examples_dir=examples_dir, tree=tree)

    def on_serve(self, server: Any, config: Any, builder: Any) -> Any:
        """``mkdocs serve`` rebuilds when the download script changes."""
        server.watch(str(DOWNLOAD_SCRIPT))
        return server
