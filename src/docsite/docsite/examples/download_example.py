#!/usr/bin/env python3
"""Download a runnable resq + hedron example from the documentation site, checked by sha256.

Standard library only. Fetch it with curl, then run it (curl's ``-f`` stops the line with an
error when the site cannot be reached; ``curl … | python3 -`` would hide that and succeed)::

    curl -fsSL <site>/download_example.py -o download_example.py \
        && python3 download_example.py --base-url <site>/ jobs-poll
    python3 download_example.py --list
    python3 download_example.py --all --dest examples
    python3 download_example.py --check jobs-poll      # compare a folder with the site

Without ``--base-url`` (or ``$EXAMPLES_BASE_URL``) it downloads from the site that served
it: each site serves this script with its own address as the default. The site it used is in
the last lines it prints.

Each example lands in ``<dest>/<name>/``. Its archive is checked against the sha256 the
site's ``examples/manifest.json`` lists, and every file in it against the file's own sha256,
in a temporary folder; only when every example asked for has passed are the folders moved
into place, so a failed or corrupt download writes nothing. An existing folder is never
touched unless ``--force`` is given; then each of its files that differs from the download
is kept beside it as ``<file>.orig``. Every error is one line on stderr, with exit status 1
(2 for a usage error), and nothing is written.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shlex
import shutil
import socket
import sys
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path, PurePosixPath

#: The documentation site this copy came from: the site build writes its own address here.
DEFAULT_BASE_URL = "http://127.0.0.1:8008/"
BASE_URL_ENV = "EXAMPLES_BASE_URL"
MANIFEST_PATH = "examples/manifest.json"
TIMEOUT_S = 30.0
BACKUP_SUFFIX = ".orig"
#: Said with every error reaching a site: where the address comes from.
ELSEWHERE = "(to download from another site, pass its address with --base-url)"


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
        raise DownloadError(f"{url}: {why} {ELSEWHERE}") from None
    except TimeoutError:
        why = f"no answer within {TIMEOUT_S:.0f} s: no network?"
        raise DownloadError(f"{url}: {why} {ELSEWHERE}") from None
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
                f"{url}: not found. Is {base_url} the resq + hedron documentation site? "
                + ELSEWHERE
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


def file_digests(manifest: dict[str, object], name: str) -> dict[str, str]:
    """Return ``{relative path: sha256}`` for one example; unsafe paths raise."""
    files = _examples(manifest)[name].get("files")
    if not isinstance(files, dict) or not files:
        raise DownloadError(f"manifest entry {name!r} lists no files")
    for filename, digest in files.items():
        path = PurePosixPath(filename)
        unsafe = path.is_absolute() or ".." in path.parts or filename != path.as_posix()
        if unsafe or not isinstance(digest, str):
            raise DownloadError(f"manifest entry {name!r} has an unsafe file entry {filename!r}")
    return dict(files)


def download(base_url: str, manifest: dict[str, object], name: str) -> dict[str, bytes]:
    """Download one example's archive; return its files once every sha256 matches.

    Raises:
        DownloadError: the archive or a file in it does not match the manifest, or the
            archive holds anything else than the example's files.
    """
    entry = _examples(manifest)[name]
    expected = file_digests(manifest, name)
    archive, archive_sha = entry.get("archive"), entry.get("archive_sha256")
    if not isinstance(archive, str) or not isinstance(archive_sha, str):
        raise DownloadError(
            f"manifest entry {name!r} lists no archive sha256: download this script again "
            "from the site, it may be newer"
        )
    url = f"{base_url}examples/{urllib.parse.quote(archive)}"
    data = fetch(url)
    actual = hashlib.sha256(data).hexdigest()
    if actual != archive_sha:
        raise DownloadError(
            f"checksum mismatch for {url}: manifest says sha256 {archive_sha}, the download "
            f"has {actual}. Nothing was written; try again, or report it."
        )
    files: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for member in tar:
                filename = member.name.removeprefix(f"{name}/")
                if not member.isfile() or filename not in expected or filename in files:
                    raise DownloadError(f"{url}: unexpected member {member.name!r}")
                handle = tar.extractfile(member)
                assert handle is not None  # a regular file
                files[filename] = handle.read()
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise DownloadError(f"{url}: not a readable archive ({exc})") from None
    for filename, digest in expected.items():
        if filename not in files:
            raise DownloadError(f"{url}: {filename} is missing from the archive")
        if hashlib.sha256(files[filename]).hexdigest() != digest:
            raise DownloadError(f"{url}: {filename} does not match its sha256 in the manifest")
    return files


def _backup_name(path: Path) -> Path:
    """``app.py.orig``, or ``app.py.2.orig`` … when an earlier backup is there."""
    candidate = path.with_name(path.name + BACKUP_SUFFIX)
    n = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.{n}{BACKUP_SUFFIX}")
        n += 1
    return candidate


def plan_destination(dest: Path, files: dict[str, list[str]], force: bool) -> None:
    """Refuse, before anything is downloaded or written, a destination that cannot take
    ``files`` (``{example: [relative paths]}``)."""
    if dest.exists() and not dest.is_dir():
        raise DownloadError(f"--dest {dest} is a file, not a folder: pick another --dest")
    blocker = next((p for p in dest.parents if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise DownloadError(f"--dest {dest}: {blocker} is a file, not a folder")
    for name, filenames in files.items():
        folder = dest / name
        if folder.exists() and not folder.is_dir():
            raise DownloadError(f"{folder} exists and is a file, not a folder: move it away first")
        for filename in filenames:
            target = folder / filename
            for parent in target.relative_to(folder).parents:
                here = folder / parent
                if here.exists() and not here.is_dir():
                    raise DownloadError(f"{here} is a file where the example has a folder")
            if target.is_dir():
                raise DownloadError(f"{target} is a folder where the example has a file")
        clashes = [f for f in filenames if (folder / f).exists()]
        if clashes and not force:
            raise DownloadError(
                f"{folder}/ already holds {', '.join(clashes[:3])}"
                f"{' …' if len(clashes) > 3 else ''}: pass --force to replace them "
                f"(yours are kept as <file>{BACKUP_SUFFIX}), or pick another --dest"
            )


def _stage(staging: Path, name: str, files: dict[str, bytes]) -> Path:
    folder = staging / name
    for filename, data in files.items():
        target = folder / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return folder


def _merge(staged: Path, folder: Path, files: dict[str, bytes]) -> list[str]:
    """Move the staged files into an existing folder; keep the reader's changed files."""
    notes = []
    for filename, data in files.items():
        target = folder / filename
        if target.is_file() and target.read_bytes() != data:
            backup = _backup_name(target)
            os.replace(target, backup)
            notes.append(f"kept your {target} as {backup.name}")
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged / filename, target)
    return notes


def install(dest: Path, downloads: dict[str, dict[str, bytes]]) -> list[str]:
    """Write the verified downloads: staged in a temporary folder beside ``dest``, then moved
    into place. Returns what ``--force`` backed up.

    A new example folder appears at once (one rename); if a later one fails, the folders
    created by this call are removed again.
    """
    existing = next(p for p in [dest, *dest.parents] if p.exists())
    notes: list[str] = []
    created: list[Path] = []
    with tempfile.TemporaryDirectory(prefix=".download_example-", dir=existing) as tmp:
        staging = Path(tmp)
        staged = {name: _stage(staging, name, files) for name, files in downloads.items()}
        try:
            dest.mkdir(parents=True, exist_ok=True)
            for name, files in downloads.items():
                folder = dest / name
                if folder.is_dir():
                    notes += _merge(staged[name], folder, files)
                else:
                    os.replace(staged[name], folder)
                    created.append(folder)
        except OSError:
            for folder in created:
                shutil.rmtree(folder, ignore_errors=True)
            raise
    return notes


def check_folder(folder: Path, digests: dict[str, str]) -> list[str]:
    """One line per file of ``folder`` that differs from the manifest (none: it matches)."""
    if not folder.is_dir():
        raise DownloadError(f"{folder} is not a folder: download the example first")
    problems = []
    for filename, digest in digests.items():
        path = folder / filename
        if not path.is_file():
            problems.append(f"missing: {path}")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            problems.append(f"changed: {path}")
    return problems


def _commands(manifest: dict[str, object], name: str, folder: Path) -> list[str]:
    """The "Next:" commands: the manifest's ``setup`` (from ``cd``) and ``run`` blocks."""
    entry = _examples(manifest)[name]
    commands = []
    for key in ("setup", "run"):
        value = entry.get(key)
        if isinstance(value, list):
            commands += [c for c in value if isinstance(c, str)]
    into = f"cd {name}"  # the setup starts there: into the folder the example landed in
    return [
        f"cd {shlex.quote(str(folder))}{c[len(into) :]}"
        if c == into or c.startswith(f"{into} ")
        else c
        for c in commands
    ]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="download_example.py",
        description="Download resq + hedron examples from the documentation site.",
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="example(s) to download")
    parser.add_argument("--all", action="store_true", help="download every example")
    parser.add_argument("--list", action="store_true", help="list the examples and exit")
    parser.add_argument(
        "--check", action="store_true", help="compare downloaded folders with the site"
    )
    parser.add_argument(
        "--base-url",
        default=os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL,
        help=f"site to download from (default: ${BASE_URL_ENV} or {DEFAULT_BASE_URL})",
    )
    parser.add_argument("--dest", default=".", help="folder to put <name>/ folders in (default: .)")
    parser.add_argument(
        "--force",
        action="store_true",
        help=f"replace files that exist, keeping changed ones as <file>{BACKUP_SUFFIX}",
    )
    return parser


def _run(args: argparse.Namespace) -> int:
    base_url = normalize_base_url(args.base_url)
    manifest = load_manifest(base_url)
    if args.list:
        for name, entry in sorted(_examples(manifest).items()):
            print(f"{name:24} {entry.get('title', '')}")
        return 0
    names = choose(manifest, args.names, args.all)
    dest = Path(args.dest)
    if args.check:
        failed = 0
        for name in names:
            digests = file_digests(manifest, name)
            problems = check_folder(dest / name, digests)
            for line in problems:
                print(line)
            verdict = (
                f"{len(problems)} of {len(digests)} files differ from"
                if problems
                else (f"all {len(digests)} files match")
            )
            print(f"{name}: {verdict} {base_url}{MANIFEST_PATH}")
            failed += bool(problems)
        return 1 if failed else 0
    plan_destination(dest, {n: list(file_digests(manifest, n)) for n in names}, args.force)
    downloads = {name: download(base_url, manifest, name) for name in names}
    for note in install(dest, downloads):
        print(note)
    for name, files in downloads.items():
        where = f"{dest / name}/"
        print(
            f"{name}: {len(files)} files from {base_url} in {where}, sha256 checked against "
            f"{MANIFEST_PATH}"
        )
    print("\nNext (README.md in the folder says what to expect):")
    for name in downloads:
        for command in _commands(manifest, name, dest / name):
            for line in command.splitlines():  # a long command goes on with "\"
                print(f"  {line}")
        if len(downloads) > 1:
            print(f"  cd {os.path.relpath('.', dest / name)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the exit status (0 ok, 1 error, 2 usage)."""
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except DownloadError as exc:
        message = str(exc)
    except OSError as exc:  # the destination: permissions, a full disk, …
        message = f"{exc.filename or args.dest}: {exc.strerror or exc}"
    except KeyboardInterrupt:
        print("download_example.py: interrupted; nothing was written", file=sys.stderr)
        return 130
    print(f"download_example.py: error: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
