"""The run's one site host (``docsite.testing.shared_site``): a pytest process waits for its
build, then sees its address, its folder and what it served; a failed build is told to every
process with what it printed. A stand-in build writes one page (the real one is what every
site test of ``scripts/test`` uses). And its static server keeps quiet about clients that
hang up."""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from docsite.testing.shared_site import SharedSite, SiteNotBuilt, shared
from docsite.testing.shared_site import host as run_host
from docsite.testing.static_server import StaticServer


class Host:
    """A host in a thread, whose build goes on when :meth:`finish_build` is called."""

    def __init__(self, folder: Path, build: Callable[[Path, str], None]) -> None:
        self.building = threading.Event()
        self.go_on = threading.Event()
        self.stop = threading.Event()

        def paused_build(target: Path, url: str) -> None:
            self.go_on.wait(30)
            build(target, url)

        self.thread = threading.Thread(
            target=run_host,
            args=(folder,),
            kwargs={
                "build": paused_build,
                "announce": lambda line: self.building.set(),
                "until": lambda: self.stop.wait(30),
            },
        )

    def finish_build(self) -> None:
        self.go_on.set()


@pytest.fixture
def start_host(tmp_path: Path) -> Iterator[Callable[[Callable[[Path, str], None]], Host]]:
    hosts: list[Host] = []

    def start(build: Callable[[Path, str], None]) -> Host:
        host = Host(tmp_path / "shared", build)
        hosts.append(host)
        host.thread.start()
        assert host.building.wait(10)
        return host

    yield start
    for host in hosts:
        host.go_on.set()
        host.stop.set()
        host.thread.join(10)


def _page(target: Path, url: str) -> None:
    target.mkdir(parents=True, exist_ok=True)
    (target / "index.html").write_text(f"built for {url}", encoding="utf-8")


def _waiting_reader(folder: Path) -> tuple[threading.Thread, list[object]]:
    got: list[object] = []

    def read() -> None:
        try:
            got.append(shared(folder))
        except SiteNotBuilt as failure:
            got.append(failure)

    reader = threading.Thread(target=read)
    reader.start()
    return reader, got


def test_without_a_host_there_is_no_shared_site(tmp_path: Path) -> None:
    assert shared(tmp_path / "shared") is None


def test_a_process_waits_for_the_build_then_gets_the_site(
    tmp_path: Path, start_host: Callable[[Callable[[Path, str], None]], Host]
) -> None:
    host = start_host(_page)
    reader, got = _waiting_reader(tmp_path / "shared")
    reader.join(0.5)
    assert reader.is_alive()  # the build is not done: it waits
    assert got == []
    host.finish_build()
    reader.join(30)
    [site] = got
    assert isinstance(site, SharedSite)
    assert site.root == tmp_path / "shared" / "site"
    with urllib.request.urlopen(site.url, timeout=10) as response:
        assert response.read().decode() == f"built for {site.url}"
    # the server writes its log line once it has sent the page: no event tells the client
    deadline = time.monotonic() + 10
    while not site.log and time.monotonic() < deadline:
        time.sleep(0.01)
    assert site.log == [("/", len(f"built for {site.url}"))]


def _broken(target: Path, url: str) -> None:
    raise SiteNotBuilt("Error: the nav names a page that does not exist")


def _timed_out(target: Path, url: str) -> None:
    raise subprocess.TimeoutExpired(["mkdocs", "build"], 900)


@pytest.mark.parametrize(
    ("build", "told"),
    [(_broken, "names a page that does not exist"), (_timed_out, "timed out after 900")],
)
def test_a_failed_build_is_told_to_every_process_with_its_output(
    tmp_path: Path,
    start_host: Callable[[Callable[[Path, str], None]], Host],
    build: Callable[[Path, str], None],
    told: str,
) -> None:
    host = start_host(build)
    readers = [_waiting_reader(tmp_path / "shared") for _ in range(2)]
    host.finish_build()
    for reader, got in readers:
        reader.join(30)
        [failure] = got
        assert isinstance(failure, SiteNotBuilt)
        assert told in str(failure)


def test_a_client_that_hangs_up_early_prints_nothing(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The run's host writes to the terminal of ``scripts/test``: a page closed in the middle
    of a download is no error worth a traceback there."""
    (tmp_path / "big.bin").write_bytes(b"x" * 20_000_000)
    with StaticServer(tmp_path) as server:
        address = ("127.0.0.1", int(server.url.rsplit(":", 1)[1].strip("/")))
        for _ in range(3):
            with socket.create_connection(address, timeout=10) as client:
                client.sendall(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
                assert client.recv(100).startswith(b"HTTP/1.0 200")
                client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        # the server has seen each hang-up once a later request is answered
        with urllib.request.urlopen(server.url + "big.bin", timeout=10) as response:
            assert len(response.read()) == 20_000_000
    assert capfd.readouterr().err == ""


def test_a_host_that_ended_before_its_build_did_is_told(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / ".lock").touch()  # a host took the lock, and is gone
    with pytest.raises(SiteNotBuilt, match="ended before its build did"):
        shared(folder)


# A host whose stand-in build runs a child that tells its pid through a fifo, then sleeps.
STOPPED_MID_BUILD = """
import subprocess, sys
from pathlib import Path
from docsite.testing import shared_site

def build(target, url):
    child = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"
    subprocess.run([sys.executable, "-c", child, sys.argv[2]], capture_output=True, check=True)

if sys.argv[3] == "stops":
    shared_site.stop_on_sigterm()
shared_site.host(Path(sys.argv[1]), build=build)
"""


@pytest.mark.parametrize("handler", ["stops", "default"])
def test_a_host_stopped_mid_build_ends_its_build(tmp_path: Path, handler: str) -> None:
    """``scripts/test`` stops its host with SIGTERM when the run ends, perhaps before the
    site is built: the build ends with the host (with Python's default handler it would go on
    writing into the folder the script removes)."""
    fifo = tmp_path / "build.pid"
    os.mkfifo(fifo)
    script = [sys.executable, "-c", STOPPED_MID_BUILD, str(tmp_path / "shared"), str(fifo)]
    with subprocess.Popen([*script, handler], stdin=subprocess.PIPE) as host:
        try:
            child = int(fifo.read_text())  # once the build's child has started
            host.terminate()
            host.wait(timeout=30)
            alive = _alive(child)
        finally:
            host.kill()
        if alive:
            os.kill(child, signal.SIGKILL)
    assert alive is (handler == "default")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
