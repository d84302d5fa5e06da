#!/usr/bin/env python3
"""Download a runnable resq + hedron example from the documentation site, checked by sha256.

Standard library only, so it runs straight from the site::

    curl -fsSL <site>/download_example.py | python3 - jobs-poll
    python3 download_example.py --list
    python3 download_example.py --all --dest examples
    python3 download_example.py jobs-poll --base-url http://127.0.0.1:8008/

Each example lands in ``<dest>/<name>/``. Every file is checked against the site's
``examples/manifest.json`` before anything is written; existing files are never overwritten
unless ``--force`` is given. When the files come from another address than the published site
(a local ``mkdocs serve``, a mirror), ``requirements.txt`` is pointed at that address's wheels
page, so the example installs the wheels of the very build it was downloaded from.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import socket
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path, PurePosixPath

#: The published documentation site (kept in step with mkdocs.yml by scripts/examples.py;
#: the site build serves this script with the URL it is served from).
DEFAULT_BASE_URL = "http://127.0.0.1:8008/"
BASE_URL_ENV = "EXAMPLES_BASE_URL"
MANIFEST_PATH = "examples/manifest.json"
TIMEOUT_S = 30.0


class DownloadError(Exception):
    """A download that cannot go on; the message says why and what to do."""


def normalize_base_url(url: str) -> str:
    """Return ``url`` with a trailing ``/``; raise :class:`DownloadError` unless it is http(s)."""
    parsed = urllib.parse.urlsplit(url.strip())
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise DownloadError(
            f"bad URL {url!r}: --base-url must be an http:// or https:// address "
            f"such as {DEFAULT_BASE_URL}"
        )
    text = urllib.parse.urlunsplit((parsed.scheme, parsed.netloc, parsed.path, "", ""))
    return text if text.endswith("/") else text + "/"


def fetch(url: str) -> bytes:
    """Return the body of ``url``; raise :class:`DownloadError` with a readable reason."""
    request = urllib.request.Request(url, headers={"User-Agent": "download_example.py"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            data: bytes = response.read()
            return data
    except urllib.error.HTTPError as exc:
        exc.close()
        raise DownloadError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        host = urllib.parse.urlsplit(url).netloc
        reason = exc.reason
        if isinstance(reason, socket.gaierror):
            why = f"cannot resolve {host} ({reason.strerror}): no network, or a mistyped URL?"
        elif isinstance(reason, ConnectionRefusedError):
            why = f"connection refused by {host}: is the site being served there?"
        elif isinstance(reason, TimeoutError):
            why = f"no answer from {host} within {TIMEOUT_S:.0f} s: no network?"
        else:
            why = f"cannot reach {host} ({reason}): no network?"
        raise DownloadError(f"{url}: {why}") from None
    except TimeoutError:
        raise DownloadError(f"{url}: no answer within {TIMEOUT_S:.0f} s: no network?") from None
    except (OSError, ValueError) as exc:
        raise DownloadError(f"{url}: {exc}") from None


def load_manifest(base_url: str) -> dict[str, object]:
    """Fetch and sanity-check ``<base_url>examples/manifest.json``."""
    url = base_url + MANIFEST_PATH
    try:
        raw = fetch(url)
    except DownloadError as exc:
        if "HTTP 404" in str(exc):
            raise DownloadError(
                f"{url}: not found. Is {base_url} the resq + hedron documentation site?"
            ) from None
        raise
    try:
        manifest = json.loads(raw)
    except ValueError:
        manifest = None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("examples"), dict):
        raise DownloadError(f"{url} is not an example manifest: is {base_url} the docs site?")
    return manifest


def _examples(manifest: dict[str, object]) -> dict[str, dict[str, object]]:
    examples = manifest["examples"]
    assert isinstance(examples, dict)
    return examples


def choose(manifest: dict[str, object], names: list[str], everything: bool) -> list[str]:
    """Return the example names to download; unknown names raise :class:`DownloadError`."""
    available = sorted(_examples(manifest))
    if everything:
        return available
    if not names:
        raise DownloadError(f"name an example or pass --all; available: {', '.join(available)}")
    unknown = [n for n in names if n not in available]
    if unknown:
        raise DownloadError(
            f"unknown example {', '.join(map(repr, unknown))}; available: {', '.join(available)}"
        )
    return list(dict.fromkeys(names))


def download(base_url: str, manifest: dict[str, object], name: str) -> dict[str, bytes]:
    """Download one example's files and verify each against the manifest's sha256."""
    entry = _examples(manifest)[name]
    files = entry.get("files")
    if not isinstance(files, dict) or not files:
        raise DownloadError(f"manifest entry {name!r} lists no files")
    result: dict[str, bytes] = {}
    for filename, expected in files.items():
        path = PurePosixPath(filename)
        if path.is_absolute() or ".." in path.parts or not isinstance(expected, str):
            raise DownloadError(f"manifest entry {name!r} has an unsafe file entry {filename!r}")
        url = f"{base_url}examples/{name}/{urllib.parse.quote(filename)}"
        data = fetch(url)
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected:
            raise DownloadError(
                f"checksum mismatch for {url}: manifest says sha256 {expected}, "
                f"the download has {actual}. Nothing was written; try again, or report it."
            )
        result[filename] = data
    return result


def repoint_requirements(files: dict[str, bytes], published: str, base_url: str) -> bool:
    """Point ``requirements.txt`` at ``base_url``'s wheels page; return whether it changed."""
    old = files.get("requirements.txt")
    if old is None or published == base_url:
        return False
    new = old.replace(f"{published}wheels/".encode(), f"{base_url}wheels/".encode())
    files["requirements.txt"] = new
    return new != old


def _commands(manifest: dict[str, object], name: str) -> list[str]:
    entry = _examples(manifest)[name]
    commands = []
    for key in ("setup", "run"):
        value = entry.get(key)
        if isinstance(value, list):
            commands += [c for c in value if isinstance(c, str)]
    return commands


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the exit status (0 ok, 1 error, 2 usage)."""
    parser = argparse.ArgumentParser(
        prog="download_example.py",
        description="Download resq + hedron examples from the documentation site.",
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="example(s) to download")
    parser.add_argument("--all", action="store_true", help="download every example")
    parser.add_argument("--list", action="store_true", help="list the examples and exit")
    parser.add_argument(
        "--base-url",
        default=os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL,
        help=f"site to download from (default: ${BASE_URL_ENV} or {DEFAULT_BASE_URL})",
    )
    parser.add_argument("--dest", default=".", help="folder to put <name>/ folders in (default: .)")
    parser.add_argument("--force", action="store_true", help="overwrite files that exist")
    args = parser.parse_args(argv)
    try:
        base_url = normalize_base_url(args.base_url)
        manifest = load_manifest(base_url)
        if args.list:
            for name, entry in sorted(_examples(manifest).items()):
                print(f"{name:24} {entry.get('title', '')}")
            return 0
        names = choose(manifest, args.names, args.all)
        published = manifest.get("site_url")
        downloads = {name: download(base_url, manifest, name) for name in names}
        dest = Path(args.dest)
        clashes = [
            dest / name / filename
            for name, files in downloads.items()
            for filename in files
            if (dest / name / filename).exists()
        ]
        if clashes and not args.force:
            listed = "\n  ".join(str(p) for p in clashes)
            raise DownloadError(
                f"refusing to overwrite existing files (pass --force to replace them):\n  {listed}"
            )
    except DownloadError as exc:
        print(f"download_example.py: error: {exc}", file=sys.stderr)
        return 1
    for name, files in downloads.items():
        repointed = isinstance(published, str) and repoint_requirements(files, published, base_url)
        folder = dest / name
        for filename, data in files.items():
            target = folder / filename
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        print(f"{name}: {len(files)} files in {folder}/, sha256 checked against {MANIFEST_PATH}")
        if repointed:
            print(f"{name}: requirements.txt now installs the wheels from {base_url}wheels/")
    print("\nNext:")
    for name in downloads:
        print(f"  cd {dest / name}")
        for command in _commands(manifest, name):
            print(f"  {command}")
        if len(downloads) > 1:
            print(f"  cd {os.path.relpath('.', dest / name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
