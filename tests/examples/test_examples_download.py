"""docsite/examples/download_example.py against a published tree served on 127.0.0.1.

Every bad input ends in one line on stderr (no traceback), exit status 1, and nothing written.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import socket
import subprocess
import sys
import tarfile
import urllib.request
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from docsite.examples.plan import AND, download_line

ROOT = Path(__file__).resolve().parents[2]


def _run(downloader: ModuleType, *args: str, cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = downloader.main(list(args))
    return code, out.getvalue(), err.getvalue()


def _fails(downloader: ModuleType, *args: str, cwd: Path) -> str:
    """Run, expect the one-line error; return it."""
    code, out, err = _run(downloader, *args, cwd=cwd)
    assert code == 1, (out, err)
    assert err.startswith("download_example.py: error: "), err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


def _tree_of(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def _manifest(site_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((site_dir / "examples" / "manifest.json").read_text())
    return data


def test_downloads_verifies_and_prints_the_next_commands(
    downloader: ModuleType, site: tuple[str, Path], recipes_dir: Path, tmp_path: Path
) -> None:
    url, site_dir = site
    work = tmp_path / "work"
    work.mkdir()
    code, out, err = _run(downloader, "demo-poll", "--base-url", url, cwd=work)
    assert (code, err) == (0, "")
    folder = work / "demo-poll"
    assert (folder / "app.py").read_bytes() == (recipes_dir / "demo-poll" / "app.py").read_bytes()
    assert (folder / "helpers" / "util.py").read_bytes().endswith(b"\r\n")
    assert (folder / "wheels" / "hedron-1.2.0-py3-none-any.whl").read_bytes() == (
        b"not really a hedron wheel"
    )
    assert f"demo-poll: 6 files from {url} in demo-poll/, sha256 checked" in out  # the site
    entry = _manifest(site_dir)["examples"]["demo-poll"]
    next_lines = out.split("Next", 1)[1].splitlines()[1:]
    commands = "\n".join([*entry["setup"], *entry["run"]]).splitlines()
    assert [line.removeprefix("  ") for line in next_lines] == commands
    readme = (folder / "README.md").read_text()
    (setup,) = entry["setup"]
    assert setup.startswith("cd demo-poll" + AND)
    assert setup.removeprefix("cd demo-poll" + AND) in readme  # the same venv, same place
    assert list(work.iterdir()) == [folder]  # no staging folder left behind


def test_the_documented_download_line_works_and_fails_loudly_when_the_site_is_down(
    site: tuple[str, Path], tmp_path: Path
) -> None:
    """``curl -fsSL <site>/download_example.py -o … && python3 download_example.py NAME``."""
    url, _ = site
    up = tmp_path / "up"
    up.mkdir()
    proc = subprocess.run(
        ["bash", "-c", download_line("demo-poll", url)], cwd=up, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert (up / "demo-poll" / "app.py").is_file()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{sock.getsockname()[1]}/"  # bound, never listening
        folder = tmp_path / "down"
        folder.mkdir()
        proc = subprocess.run(
            ["bash", "-c", download_line("demo-poll", down)],
            cwd=folder,
            capture_output=True,
            text=True,
        )
    assert proc.returncode != 0
    assert "curl: (7)" in proc.stderr
    assert list(folder.iterdir()) == []


def test_the_served_script_defaults_to_the_site_it_is_served_from(
    site: tuple[str, Path], tmp_path: Path
) -> None:
    url, _ = site
    with urllib.request.urlopen(url + "download_example.py", timeout=10) as response:
        (tmp_path / "download_example.py").write_bytes(response.read())
    proc = subprocess.run(
        [sys.executable, "-S", "download_example.py", "--all"],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert (tmp_path / "demo-poll" / "app.py").is_file()
    assert (tmp_path / "demo-client" / "client.py").is_file()


def test_unknown_example_names_the_available_ones(
    downloader: ModuleType, site: tuple[str, Path], tmp_path: Path
) -> None:
    err = _fails(downloader, "nope", "--base-url", site[0], cwd=tmp_path)
    assert "unknown example 'nope'; available: demo-client, demo-poll" in err
    assert list(tmp_path.glob("nope*")) == []


def test_bad_url_is_refused_before_any_request(downloader: ModuleType, tmp_path: Path) -> None:
    err = _fails(downloader, "demo-poll", "--base-url", "ftp://example/", cwd=tmp_path)
    assert "bad URL 'ftp://example/'" in err


def test_a_url_that_is_not_the_docs_site(
    downloader: ModuleType, static_server: Any, tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    with static_server(tmp_path / "empty") as url:
        err = _fails(downloader, "demo-poll", "--base-url", url, cwd=tmp_path)
    assert "examples/manifest.json: not found" in err
    assert "the resq + hedron documentation site?" in err


def test_no_server_listening_is_a_clear_network_error(
    downloader: ModuleType, tmp_path: Path
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connections are refused
        err = _fails(
            downloader, "demo-poll", "--base-url", f"http://127.0.0.1:{port}", cwd=tmp_path
        )
    assert "connection refused" in err
    assert "pass its address with --base-url" in err  # where the address comes from
    assert list(tmp_path.iterdir()) == []


def test_unresolvable_host_says_no_network(downloader: ModuleType, tmp_path: Path) -> None:
    err = _fails(
        downloader, "demo-poll", "--base-url", "http://no-such-host.invalid/", cwd=tmp_path
    )
    assert "cannot resolve no-such-host.invalid" in err
    assert "no network" in err
    assert "--base-url" in err


def test_a_tampered_archive_writes_nothing_even_with_all(
    downloader: ModuleType, site: tuple[str, Path], tmp_path: Path
) -> None:
    """demo-client is fine, demo-poll's archive is not: neither is written."""
    url, site_dir = site
    archive = site_dir / "examples" / "demo-poll.tar.gz"
    archive.write_bytes(archive.read_bytes()[:-40] + b"\0" * 40)  # a corrupt download
    work = tmp_path / "work"
    work.mkdir()
    err = _fails(downloader, "--all", "--base-url", url, cwd=work)
    assert f"checksum mismatch for {url}examples/demo-poll.tar.gz" in err
    assert hashlib.sha256(archive.read_bytes()).hexdigest() in err
    assert list(work.iterdir()) == []


def _republish(site_dir: Path, name: str, members: dict[str, bytes]) -> None:
    """Replace an archive, and its sha256 in the manifest, as a broken site build would."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for member, data in members.items():
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    (site_dir / "examples" / f"{name}.tar.gz").write_bytes(buffer.getvalue())
    manifest = _manifest(site_dir)
    manifest["examples"][name]["archive_sha256"] = hashlib.sha256(buffer.getvalue()).hexdigest()
    (site_dir / "examples" / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("demo-poll/app.py", b"app = 'changed'\n"), "app.py does not match its sha256"),
        (("demo-poll/../evil.py", b"evil\n"), "unexpected member 'demo-poll/../evil.py'"),
        (("demo-poll/README.md", None), "README.md is missing from the archive"),
    ],
)
def test_an_archive_whose_files_do_not_match_the_manifest_writes_nothing(
    downloader: ModuleType,
    site: tuple[str, Path],
    tmp_path: Path,
    change: tuple[str, bytes | None],
    message: str,
) -> None:
    url, site_dir = site
    with tarfile.open(site_dir / "examples" / "demo-poll.tar.gz") as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar}  # type: ignore[union-attr]
    name, data = change
    if data is None:
        del members[name]
    else:
        members[name] = data
    _republish(site_dir, "demo-poll", members)
    work = tmp_path / "work"
    work.mkdir()
    err = _fails(downloader, "demo-poll", "--base-url", url, cwd=work)
    assert message in err
    assert list(work.iterdir()) == []
    assert not (tmp_path / "evil.py").exists()


def test_every_bad_destination_is_refused_before_anything_is_written(
    downloader: ModuleType, site: tuple[str, Path], tmp_path: Path
) -> None:
    url = site[0]
    work = tmp_path / "work"
    work.mkdir()
    (work / "a-file").write_text("mine\n")
    (work / "demo-poll").write_text("a file where the example goes\n")
    before = _tree_of(work)
    cases = {
        ("demo-poll",): "demo-poll exists and is a file, not a folder",
        ("demo-client", "--dest", "a-file"): "--dest a-file is a file, not a folder",
        ("demo-client", "--dest", "a-file/sub"): "--dest a-file/sub: a-file is a file",
        ("--all",): "demo-poll exists and is a file",  # nothing of demo-client either
    }
    for args, message in cases.items():
        assert message in _fails(downloader, *args, "--base-url", url, cwd=work), args
        assert _tree_of(work) == before, args
    (work / "demo-poll").unlink()
    (work / "demo-poll" / "helpers").mkdir(parents=True)
    (work / "demo-poll" / "helpers" / "util.py").mkdir()
    err = _fails(downloader, "demo-poll", "--force", "--base-url", url, cwd=work)
    assert "helpers/util.py is a folder where the example has a file" in err
    (work / "demo-poll" / "helpers" / "util.py").rmdir()
    (work / "demo-poll" / "helpers").rmdir()
    (work / "demo-poll" / "helpers").write_text("a file where a folder goes\n")
    err = _fails(downloader, "demo-poll", "--force", "--base-url", url, cwd=work)
    assert "helpers is a file where the example has a folder" in err
    assert _tree_of(work / "demo-poll") == {"helpers": b"a file where a folder goes\n"}


def test_existing_files_are_kept_unless_forced_and_then_backed_up(
    downloader: ModuleType, site: tuple[str, Path], tmp_path: Path
) -> None:
    url, _ = site
    assert _run(downloader, "demo-poll", "--base-url", url, cwd=tmp_path)[0] == 0
    folder = tmp_path / "demo-poll"
    original = (folder / "app.py").read_bytes()
    (folder / "app.py").write_text("my edits\n")
    (folder / "notes.txt").write_text("my own file\n")
    before = _tree_of(folder)
    err = _fails(downloader, "demo-poll", "--base-url", url, cwd=tmp_path)
    assert "demo-poll/ already holds app.py" in err
    assert "pass --force" in err
    assert _tree_of(folder) == before
    code, out, _ = _run(downloader, "demo-poll", "--base-url", url, "--force", cwd=tmp_path)
    assert code == 0
    assert (folder / "app.py").read_bytes() == original
    assert (folder / "app.py.orig").read_text() == "my edits\n"
    assert "kept your demo-poll/app.py as app.py.orig" in out
    assert (folder / "notes.txt").read_text() == "my own file\n"  # not the example's: untouched
    assert sorted(p.name for p in folder.glob("*.orig")) == ["app.py.orig"]  # only the change
    (folder / "app.py").write_text("second edits\n")
    assert _run(downloader, "demo-poll", "--base-url", url, "--force", cwd=tmp_path)[0] == 0
    assert (folder / "app.py.orig").read_text() == "my edits\n"  # the first backup stays
    assert (folder / "app.py.2.orig").read_text() == "second edits\n"


def test_check_compares_a_folder_with_the_manifest_and_writes_nothing(
    downloader: ModuleType, site: tuple[str, Path], tmp_path: Path
) -> None:
    url, site_dir = site
    count = len(_manifest(site_dir)["examples"]["demo-poll"]["files"])
    err = _fails(downloader, "--check", "demo-poll", "--base-url", url, cwd=tmp_path)
    assert "demo-poll is not a folder: download the example first" in err
    assert _run(downloader, "demo-poll", "--base-url", url, cwd=tmp_path)[0] == 0
    code, out, _ = _run(downloader, "--check", "demo-poll", "--base-url", url, cwd=tmp_path)
    assert code == 0
    assert f"demo-poll: all {count} files match {url}examples/manifest.json" in out
    folder = tmp_path / "demo-poll"
    (folder / "app.py").write_text("my edits\n")
    (folder / "README.md").unlink()
    before = _tree_of(folder)
    code, out, _ = _run(downloader, "--check", "demo-poll", "--base-url", url, cwd=tmp_path)
    assert code == 1
    assert "changed: demo-poll/app.py" in out
    assert "missing: demo-poll/README.md" in out
    assert f"demo-poll: 2 of {count} files differ" in out
    assert _tree_of(folder) == before


def test_list_and_missing_name(
    downloader: ModuleType, site: tuple[str, Path], tmp_path: Path
) -> None:
    code, out, _ = _run(downloader, "--list", "--base-url", site[0], cwd=tmp_path)
    assert code == 0
    assert out.split() == ["demo-client", "Demo", "client", "demo-poll", "Demo", "poll"]
    err = _fails(downloader, "--base-url", site[0], cwd=tmp_path)
    assert "name an example or pass --all; available: demo-client, demo-poll" in err


def test_published_site_layout(site: tuple[str, Path]) -> None:
    """Archive with its sha256 (manifest and ``.sha256`` file), and the --find-links page."""
    url, site_dir = site
    entry = _manifest(site_dir)["examples"]["demo-poll"]
    archive = (site_dir / "examples" / "demo-poll.tar.gz").read_bytes()
    assert hashlib.sha256(archive).hexdigest() == entry["archive_sha256"]
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        assert tar.getnames() == [f"demo-poll/{f}" for f in entry["files"]]
    with urllib.request.urlopen(url + "examples/demo-poll.tar.gz.sha256", timeout=10) as response:
        assert response.read().decode() == f"{entry['archive_sha256']}  demo-poll.tar.gz\n"
    with urllib.request.urlopen(url + "wheels/", timeout=10) as response:
        page = response.read().decode()
    digest = hashlib.sha256(b"not really a hedron wheel").hexdigest()
    assert f'href="hedron-1.2.0-py3-none-any.whl#sha256={digest}"' in page


def test_a_site_published_under_a_path(
    downloader: ModuleType, site: tuple[str, Path], static_server: Any, tmp_path: Path
) -> None:
    """The base URL may have a path (a site under /docs/); a missing slash is fine."""
    _, site_dir = site
    with static_server(site_dir.parent) as url:
        base = f"{url}{site_dir.name}"
        code, _, err = _run(downloader, "demo-poll", "--base-url", base, cwd=tmp_path)
    assert (code, err) == (0, "")
    assert (tmp_path / "demo-poll" / "wheels" / "hedron-1.2.0-py3-none-any.whl").is_file()
