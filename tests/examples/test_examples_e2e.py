"""End to end, for every example in the committed tree, as a reader would do it.

Publish the site's example part exactly as the site build does (the hook's ``publish``: raw
tree, archives, this build's wheels, download script), serve it on 127.0.0.1, fetch the
download script from it and run it as ``curl … | python3 - --all`` into a temporary folder,
create one fresh virtualenv (no system site-packages) and ``pip install -r requirements.txt``
of every example into it (``resq``/``hedron`` from the served wheels, third-party packages
from the machine's pip configuration), then start each example with its own ``uvicorn``
command on a free port and drive it to its terminal state over HTTP:

- hedron apps: open ``/``, submit the form if there is one, follow the ``Poll`` with a resq
  client until the status endpoint answers ``HTTP 286`` (finished, polling stops);
- resq examples: start the server, run ``python client.py`` against it, which must exit 0.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from examples_htmx_driver import drive

ROOT = Path(__file__).resolve().parents[2]
#: The tree under test (the committed one; another can be named to try the test itself).
TREE = Path(os.environ.get("EXAMPLES_E2E_TREE", ROOT / "docs" / "examples"))
MANIFEST = json.loads((TREE / "manifest.json").read_text())
EXAMPLES = sorted(MANIFEST["examples"])
WHEELHOUSE = ROOT / ".cache" / "examples" / "wheelhouse"
LOCAL_DISTRIBUTIONS = ("resq", "hedron")
START_TIMEOUT_S = 30.0
CLIENT_TIMEOUT_S = 120.0
#: What the final HTML answer must say, for examples whose endpoint does not speak JSON.
TERMINAL_TEXT = {"poll-component": "done"}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site_url(hook: ModuleType, static_server: Any, tmp_path_factory: Any) -> Iterator[str]:
    site_dir = tmp_path_factory.mktemp("site")
    with static_server(site_dir) as url:
        hook.publish(site_dir, site_url=url, examples_dir=TREE)
        yield url


@pytest.fixture(scope="module")
def downloaded(site_url: str, tmp_path_factory: Any) -> Path:
    """Every example, downloaded with the served script piped into ``python3 -``."""
    work = tmp_path_factory.mktemp("reader")
    with urllib.request.urlopen(site_url + "download_example.py", timeout=10) as response:
        script = response.read()
    proc = subprocess.run(
        [sys.executable, "-S", "-", "--all"],
        input=script,
        cwd=work,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return work


def _pip(*args: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _wheelhouse(requirement_files: list[Path]) -> Path:
    """Third-party wheels for these requirements, fetched once per requirement set.

    Filled by ``pip download`` through the machine's pip configuration the first time; resq
    and hedron are removed from it, so they can only come from the site.
    """
    third_party = sorted(
        line
        for path in requirement_files
        for line in path.read_text().splitlines()
        if line.strip() and not line.startswith("#") and " @ " not in line
    )
    key = hashlib.sha256("\n".join([sys.version, *third_party]).encode()).hexdigest()[:16]
    folder = WHEELHOUSE / key
    if (folder / ".complete").exists():
        return folder
    staging = WHEELHOUSE / f"{key}.{os.getpid()}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    reqs = [arg for path in requirement_files for arg in ("-r", str(path))]
    _pip("download", "-q", "-d", str(staging), *reqs)
    for dist in LOCAL_DISTRIBUTIONS:
        for wheel in staging.glob(f"{dist}-*.whl"):
            wheel.unlink()
    (staging / ".complete").touch()
    with contextlib.suppress(OSError):  # a concurrent run may have finished first
        staging.rename(folder)
    shutil.rmtree(staging, ignore_errors=True)
    return folder


@pytest.fixture(scope="module")
def venv(downloaded: Path, site_url: str, tmp_path_factory: Any) -> Path:
    """One fresh virtualenv with every example's requirements installed; its ``bin/``.

    ``pip install -r requirements.txt`` of every example, as a reader runs it: resq and hedron
    from the site (direct references in the files), the rest from a local wheelhouse.
    """
    folder = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    files = [downloaded / name / "requirements.txt" for name in EXAMPLES]
    wheelhouse = _wheelhouse(files)
    reqs = [arg for path in files for arg in ("-r", str(path))]
    _pip("--python", str(folder / "bin" / "python"), "install", "-q", "--no-index",
         "--find-links", str(wheelhouse), *reqs)  # fmt: skip
    # resq and hedron were installed from this site's wheels, not from anywhere else.
    wanted = "".join(path.read_text() for path in files)
    for dist, wheel in MANIFEST["wheels"].items():
        if f"/wheels/{wheel}" not in wanted:
            continue
        (info,) = (folder / "lib").glob(f"python3*/site-packages/{dist}-*.dist-info")
        origin = json.loads((info / "direct_url.json").read_text())["url"]
        assert origin == f"{site_url}wheels/{wheel}"
    return folder / "bin"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_listening(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)  # polling a condition (the port accepts) with a deadline
    raise AssertionError(f"server not listening after {START_TIMEOUT_S}s:\n{log.read_text()}")


def _server_argv(command: str) -> list[str]:
    """The command's argv without ``&``, ``--reload`` and its own host/port (ours are added)."""
    argv: list[str] = []
    words = iter(shlex.split(command))
    for word in words:
        if word in ("--host", "--port"):
            next(words, None)
        elif word not in ("&", "--reload") and not word.startswith(("--host=", "--port=")):
            argv.append(word)
    return argv


class _Server:
    """One ``uvicorn`` command of an example, run from the venv on a free loopback port."""

    def __init__(self, command: str, cwd: Path, bin_dir: Path, env: dict[str, str]) -> None:
        argv = _server_argv(command)
        argv[0] = str(bin_dir / argv[0])
        self.port = _free_port()
        argv += ["--host", "127.0.0.1", "--port", str(self.port)]
        self.log = cwd / f".uvicorn-{self.port}.log"
        self._log_file = self.log.open("wb")
        self.proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdout=self._log_file, stderr=subprocess.STDOUT
        )
        _wait_listening(self.port, self.proc, self.log)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._log_file.close()


#: Runs ``python SCRIPT ARGS`` under resq's virtual clock: every request is real, only the
#: waits between attempts take no time (a 30 s window with 2 s delay is 16 quick requests).
VIRTUAL_TIME = (
    "import runpy, sys\n"
    "from resq.clock import VirtualClock, use_clock\n"
    "sys.argv = sys.argv[1:]\n"
    "with use_clock(VirtualClock()):\n"
    "    runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def _server_keeps_time(name: str) -> bool:
    """Whether the recipe's server runs work on real time (its demo names a job runner).

    Such a client waits in real time; a count-based server is driven under virtual time.
    """
    recipe = tomllib.loads((ROOT / "recipes" / name / "recipe.toml").read_text())
    return "runner" in recipe.get("demo", {})


def _extra_apps(name: str, folder: Path, run: list[str]) -> list[str]:
    """``uvicorn`` commands for exported modules defining ``app`` that no run command starts."""
    started = " ".join(run)
    commands = []
    for filename in MANIFEST["examples"][name]["files"]:
        module = filename.removesuffix(".py")
        if not filename.endswith(".py") or "/" in filename or f"{module}:app" in started:
            continue
        if re.search(r"^app = ", (folder / filename).read_text(), flags=re.MULTILINE):
            commands.append(f"uvicorn {module}:app")
    return commands


def _printed_lines(name: str) -> list[str] | None:
    """The lines the recipe's transcript records as printed (``> …``), if it has a transcript."""
    transcript = ROOT / "recipes" / name / "transcript.txt"
    if not transcript.is_file():
        return None
    lines = transcript.read_text().splitlines()
    return [line[2:] for line in lines if line.startswith("> ")] or None


def _clean_env(bin_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(bin_dir.parent)
    return env


def test_every_example_is_published_byte_for_byte(site_url: str) -> None:
    """The seed's ``curl -fsSL <site>/examples/<name>/<file> -o <file>`` form works.

    Code files are the recipe's bytes; every served file matches the served manifest.
    """
    with urllib.request.urlopen(f"{site_url}examples/manifest.json", timeout=10) as response:
        served_manifest = json.loads(response.read())
    for name in EXAMPLES:
        for filename, digest in served_manifest["examples"][name]["files"].items():
            url = f"{site_url}examples/{name}/{filename}"
            with urllib.request.urlopen(url, timeout=10) as response:
                served = response.read()
            assert hashlib.sha256(served).hexdigest() == digest
            if filename not in ("requirements.txt", "README.md"):
                assert served == (ROOT / "recipes" / name / filename).read_bytes()


def test_wheels_page_works_with_pip_find_links(site_url: str, tmp_path: Path) -> None:
    """``pip … --no-index --find-links <site>/wheels/`` finds exactly this build's wheels."""
    pins = [w.split("-")[0] + "==" + w.split("-")[1] for w in MANIFEST["wheels"].values()]
    pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-index"]
    proc = subprocess.run(
        [*pip, "--find-links", f"{site_url}wheels/", "-d", str(tmp_path), *pins],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    for wheel in MANIFEST["wheels"].values():
        with urllib.request.urlopen(f"{site_url}wheels/{wheel}", timeout=10) as response:
            assert (tmp_path / wheel).read_bytes() == response.read()


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs_standalone_to_its_terminal_state(
    name: str, downloaded: Path, venv: Path
) -> None:
    folder = downloaded / name
    entry = MANIFEST["examples"][name]
    run = entry["run"]
    assert run, f"{name}: the manifest lists no run command"
    env = _clean_env(venv)
    servers: list[_Server] = []
    try:
        for command in run:
            argv = [word for word in shlex.split(command) if word != "&"]
            assert argv[0] in ("uvicorn", "python", "python3"), f"{name}: cannot run {command!r}"
            if argv[0] == "uvicorn":
                servers.append(_Server(command, folder, venv, env))
                continue
            assert servers, f"{name}: {command!r} runs before any server"
            python = [str(venv / "python")]
            if not _server_keeps_time(name):
                python += ["-c", VIRTUAL_TIME]
            proc = subprocess.run(
                [*python, *argv[1:]],
                cwd=folder,
                env={**env, "BASE_URL": servers[-1].url},
                capture_output=True,
                text=True,
                timeout=CLIENT_TIMEOUT_S,
                check=False,
            )
            assert proc.returncode == 0, f"{command}:\n{proc.stdout}\n{proc.stderr}"
            printed = _printed_lines(name)
            if printed is not None:  # what the recorded transcript says the reader sees
                assert proc.stdout.splitlines() == printed
            else:
                assert proc.stdout.strip(), f"{command} printed nothing"
        if entry["library"] == "hedron":
            for command in _extra_apps(name, folder, run):  # e.g. jobs-poll's advanced.py
                servers.append(_Server(command, folder, venv, env))
            for server in servers:
                outcome = drive(server.url)
                assert outcome.final_status == 286
                if outcome.final_state is not None:  # a job: it must have succeeded
                    assert outcome.final_state.upper() == "SUCCEEDED", outcome
                else:
                    assert TERMINAL_TEXT[name] in outcome.final_text.lower(), outcome
    finally:
        for server in servers:
            server.stop()
