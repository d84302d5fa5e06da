"""The built site for the browser tests: built once per run and served to every pytest process.

The site is built for the address of the server that serves it (instant navigation only
treats links under ``site_url`` as internal, and canonical links name it). ``scripts/test``
therefore starts one host for its whole run::

    python -m docsite.testing.shared_site FOLDER

which builds the whole site (with the prepared interpreter, whose tests need it) into
``FOLDER/site`` for the address of a server on 127.0.0.1 and then serves it, until its
standard input closes: ``scripts/test`` holds the other end, so the host ends with the run
however the run ends. It prints one line, ``building``, once it holds ``FOLDER/.lock``, and
holds it until the build is done; then ``FOLDER/built-for`` names the address, or
``FOLDER/failed`` holds what the build printed. Each request it serves is appended to
``FOLDER/log``.

A pytest process reads the result with :func:`shared`, which waits for the lock. Without a
host (a plain ``pytest``), each process builds a site of its own (``tests/site/conftest.py``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from docsite.paths import REPO
from docsite.testing.static_server import StaticServer

BUILD_TIMEOUT_S = 900


class SiteNotBuilt(RuntimeError):
    """The site's build failed; the message holds what it printed."""


def build_site(target: Path, url: str) -> None:
    """``mkdocs build --strict`` of the whole site for ``url`` into ``target``, with the Try-it
    runtime and its prepared interpreter.

    Raises:
        SiteNotBuilt: the build failed (with its output).
    """
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": url, "TRYIT_PREPARED": "1"}
    env.pop("TRYIT_SKIP_RUNTIME", None)
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(target)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )
    if result.returncode != 0:
        raise SiteNotBuilt(result.stdout + result.stderr)


@contextlib.contextmanager
def locked(path: Path, *, shared: bool = False) -> Iterator[None]:
    """Hold ``path``'s lock (``shared``: beside other readers) while the block runs."""
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


class SharedSite:
    """The host's site as a pytest process sees it: what a :class:`StaticServer` of its own
    would give (``url``, ``root``, ``log``)."""

    def __init__(self, folder: Path, url: str) -> None:
        self.folder = folder
        self.root = folder / "site"
        self.url = url

    @property
    def log(self) -> list[tuple[str, int]]:
        """``(path, bytes)`` of every file the host served so far, to every process."""
        text = (self.folder / "log").read_text(encoding="utf-8")
        entries = [line.rsplit("\t", 1) for line in text.splitlines()]
        return [(path, int(size)) for path, size in entries]


def shared(folder: Path) -> SharedSite | None:
    """The host's site in ``folder`` once it is built (waits for the build), or ``None``
    when no host builds there.

    Raises:
        SiteNotBuilt: the host's build failed.
    """
    if not (folder / ".lock").is_file():
        return None
    with locked(folder / ".lock", shared=True):
        if (folder / "failed").is_file():
            raise SiteNotBuilt((folder / "failed").read_text(encoding="utf-8"))
        if not (folder / "built-for").is_file():
            raise SiteNotBuilt(f"the site's host in {folder} ended before its build did")
        return SharedSite(folder, (folder / "built-for").read_text(encoding="utf-8"))


def _say(line: str) -> None:
    print(line, flush=True)


def host(
    folder: Path,
    *,
    build: Callable[[Path, str], None] = build_site,
    announce: Callable[[str], None] = _say,
    until: Callable[[], object] = sys.stdin.read,
) -> None:
    """Build the site in ``folder`` (``build(target, url)``) and serve it until ``until``
    returns: by default, until standard input closes (see above). ``announce`` is told
    ``"building"`` once the lock is held."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "log").touch()
    with StaticServer(folder / "site", log_file=folder / "log") as server:
        with locked(folder / ".lock"):
            announce("building")
            try:
                build(folder / "site", server.url)
            except Exception as failure:  # told to the tests, which wait for it
                told = str(failure)
                if not isinstance(failure, SiteNotBuilt):
                    told = f"{type(failure).__name__}: {told}"
                (folder / "failed").write_text(told, encoding="utf-8")
            else:
                (folder / "built-for").write_text(server.url, encoding="utf-8")
        until()


def stop_on_sigterm() -> None:
    """End this process on ``SIGTERM`` (how ``scripts/test`` stops its host) as on an error:
    a build still running is killed with it (``subprocess.run`` kills its child when
    interrupted), not left writing into a folder the script is removing."""

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)


def main(argv: list[str]) -> int:
    """``python -m docsite.testing.shared_site FOLDER``."""
    if len(argv) != 1:
        print("usage: python -m docsite.testing.shared_site FOLDER", file=sys.stderr)
        return 2
    stop_on_sigterm()
    host(Path(argv[0]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
