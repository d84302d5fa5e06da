"""scripts/download_example.py against a published tree served on 127.0.0.1."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = "https://docs.test/"


@pytest.fixture
def site(
    examples: ModuleType, hook: ModuleType, recipes_dir: Path, tmp_path: Path, static_server: Any
) -> Iterator[tuple[str, Path]]:
    """A site folder published by the hook from a temporary recipe, served; (url, folder)."""
    tree = examples.build_tree(
        examples.load_recipes(recipes_dir),
        site_url=PUBLISHED,
        versions={"resq": "1.1.0", "hedron": "1.2.0"},
        pins={},
    )
    examples.write_tree(tree, tmp_path / "tree")
    wheels = {}
    for dist, version in (("resq", "1.1.0"), ("hedron", "1.2.0")):
        wheels[dist] = tmp_path / f"{dist}-{version}-py3-none-any.whl"
        wheels[dist].write_bytes(f"not really a {dist} wheel".encode())
    site_dir = tmp_path / "site"
    with static_server(site_dir) as url:
        hook.publish(site_dir, site_url=url, examples_dir=tmp_path / "tree", wheels=wheels)
        yield url, site_dir


def _run(downloader: ModuleType, *args: str, cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = downloader.main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_downloads_verifies_and_prints_the_next_commands(
    downloader: ModuleType, site: tuple[str, Path], recipes_dir: Path, tmp_path: Path
) -> None:
    url, _ = site
    work = tmp_path / "work"
    work.mkdir()
    code, out, err = _run(downloader, "demo-poll", "--base-url", url, cwd=work)
    assert (code, err) == (0, "")
    folder = work / "demo-poll"
    assert (folder / "app.py").read_bytes() == (recipes_dir / "demo-poll" / "app.py").read_bytes()
    assert (folder / "helpers" / "util.py").read_bytes().endswith(b"\r\n")
    assert "sha256 checked" in out
    assert out.rstrip().endswith("pip install -r requirements.txt\n  uvicorn app:app --reload")
    # The tree names https://docs.test/; the site was built for its own URL, so the published
    # requirements.txt already installs the wheels from there (re-based by the site build).
    reqs = (folder / "requirements.txt").read_text()
    assert f"hedron @ {url}wheels/hedron-1.2.0-py3-none-any.whl" in reqs
    assert PUBLISHED not in reqs
    assert "now installs" not in out


def test_the_served_script_defaults_to_the_site_it_is_served_from(
    site: tuple[str, Path], tmp_path: Path
) -> None:
    """The ``curl -fsSL <site>/download_example.py | python3 - NAME`` form, with no --base-url."""
    url, _ = site
    with urllib.request.urlopen(url + "download_example.py", timeout=10) as response:
        script = response.read()
    proc = subprocess.run(
        [sys.executable, "-S", "-", "--all"],
        input=script,
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert (tmp_path / "demo-poll" / "app.py").is_file()


def test_unknown_example_names_the_available_ones(
    downloader: ModuleType, site: tuple[str, Path], tmp_path: Path
) -> None:
    code, _, err = _run(downloader, "nope", "--base-url", site[0], cwd=tmp_path)
    assert code == 1
    assert "unknown example 'nope'; available: demo-poll" in err
    assert not (tmp_path / "nope").exists()


def test_bad_url_is_refused_before_any_request(downloader: ModuleType, tmp_path: Path) -> None:
    code, _, err = _run(downloader, "demo-poll", "--base-url", "ftp://example/", cwd=tmp_path)
    assert code == 1
    assert "bad URL 'ftp://example/'" in err


def test_a_url_that_is_not_the_docs_site(
    downloader: ModuleType, static_server: Any, tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    with static_server(tmp_path / "empty") as url:
        code, _, err = _run(downloader, "demo-poll", "--base-url", url, cwd=tmp_path)
    assert code == 1
    assert "examples/manifest.json: not found" in err
    assert "the resq + hedron documentation site?" in err


def test_no_server_listening_is_a_clear_network_error(
    downloader: ModuleType, tmp_path: Path
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connections are refused
        code, _, err = _run(
            downloader, "demo-poll", "--base-url", f"http://127.0.0.1:{port}", cwd=tmp_path
        )
    assert code == 1
    assert "connection refused" in err


def test_unresolvable_host_says_no_network(downloader: ModuleType, tmp_path: Path) -> None:
    code, _, err = _run(
        downloader, "demo-poll", "--base-url", "http://no-such-host.invalid/", cwd=tmp_path
    )
    assert code == 1
    assert "cannot resolve no-such-host.invalid" in err
    assert "no network" in err


def test_checksum_mismatch_writes_nothing(
    downloader: ModuleType, site: tuple[str, Path], tmp_path: Path
) -> None:
    url, site_dir = site
    (site_dir / "examples" / "demo-poll" / "helpers" / "util.py").write_bytes(b"tampered\n")
    work = tmp_path / "work"
    work.mkdir()
    code, _, err = _run(downloader, "demo-poll", "--base-url", url, cwd=work)
    assert code == 1
    assert "checksum mismatch for " + url + "examples/demo-poll/helpers/util.py" in err
    assert hashlib.sha256(b"tampered\n").hexdigest() in err
    assert list(work.iterdir()) == []


def test_refuses_to_overwrite_unless_forced(
    downloader: ModuleType, site: tuple[str, Path], tmp_path: Path
) -> None:
    url, _ = site
    mine = tmp_path / "demo-poll" / "app.py"
    mine.parent.mkdir()
    mine.write_text("my edits\n")
    code, _, err = _run(downloader, "demo-poll", "--base-url", url, cwd=tmp_path)
    assert code == 1
    assert "refusing to overwrite" in err
    assert str(Path("demo-poll") / "app.py") in err
    assert mine.read_text() == "my edits\n"
    assert not (tmp_path / "demo-poll" / "README.md").exists()  # nothing else written either
    code, _, _ = _run(downloader, "demo-poll", "--base-url", url, "--force", cwd=tmp_path)
    assert code == 0
    assert mine.read_text() != "my edits\n"


def test_list_and_missing_name(
    downloader: ModuleType, site: tuple[str, Path], tmp_path: Path
) -> None:
    code, out, _ = _run(downloader, "--list", "--base-url", site[0], cwd=tmp_path)
    assert code == 0
    assert out.split() == ["demo-poll", "Demo", "poll"]
    code, _, err = _run(downloader, "--base-url", site[0], cwd=tmp_path)
    assert code == 1
    assert "name an example or pass --all; available: demo-poll" in err


def test_published_site_layout(site: tuple[str, Path], tmp_path: Path) -> None:
    """Archive, manifest and the --find-links page (links with sha256) are served."""
    import tarfile

    url, site_dir = site
    manifest = json.loads((site_dir / "examples" / "manifest.json").read_text())
    with tarfile.open(site_dir / "examples" / "demo-poll.tar.gz") as tar:
        names = tar.getnames()
        app = tar.extractfile("demo-poll/app.py")
        assert app is not None
        assert (
            hashlib.sha256(app.read()).hexdigest()
            == manifest["examples"]["demo-poll"]["files"]["app.py"]
        )
    assert names == [f"demo-poll/{f}" for f in manifest["examples"]["demo-poll"]["files"]]
    with urllib.request.urlopen(url + "wheels/", timeout=10) as response:
        page = response.read().decode()
    digest = hashlib.sha256(b"not really a hedron wheel").hexdigest()
    assert f'href="hedron-1.2.0-py3-none-any.whl#sha256={digest}"' in page


def test_a_site_published_under_a_path(
    downloader: ModuleType, site: tuple[str, Path], static_server: Any, tmp_path: Path
) -> None:
    """The base URL may have a path (a site under /docs/); a missing slash is fine.

    Served from another address than the one it was built for (a mirror), the example's
    requirements.txt is pointed at the wheels of the address it was downloaded from.
    """
    _, site_dir = site
    with static_server(site_dir.parent) as url:
        base = f"{url}{site_dir.name}"
        code, out, err = _run(downloader, "demo-poll", "--base-url", base, cwd=tmp_path)
    assert (code, err) == (0, "")
    reqs = (tmp_path / "demo-poll" / "requirements.txt").read_text()
    assert f"{base}/wheels/hedron-1.2.0-py3-none-any.whl" in reqs
    assert f"requirements.txt now installs the wheels from {base}/wheels/" in out
