"""The ``docsite/examples`` plugin, in a real ``mkdocs build``: the example tree is published
raw."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.slow  # builds the wheels and the site


def test_mkdocs_build_publishes_examples_archives_wheels_and_script(
    examples: ModuleType, build: Callable[..., dict[str, bytes]], recipes_dir: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    (docs).mkdir()
    (docs / "index.md").write_text("# Home\n")
    # Made for the default URL; this build is for https://docs.test/.
    tree = build(recipes_dir, "http://127.0.0.1:8008/", examples.local_versions())
    examples.write_tree(tree, docs / "examples")
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_name: hook test\n"
        "site_url: https://docs.test/\n"
        "strict: true\n"
        f"docs_dir: {docs}\n"
        f"site_dir: {tmp_path / 'site'}\n"
        "plugins:\n"
        "  - docsite/examples\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    site = tmp_path / "site"
    served = site / "examples"
    # Code files byte for byte; README.md stays Markdown (no page rendered from it).
    for name in ("app.py", "helpers/util.py"):
        assert (served / "demo-poll" / name).read_bytes() == tree[f"demo-poll/{name}"]
    assert not (served / "demo-poll" / "index.html").exists()
    assert not (served / "_quickstart").exists()
    # Generated files re-based onto the URL of this build.
    readme = (served / "demo-poll" / "README.md").read_text()
    assert readme == tree["demo-poll/README.md"].decode().replace(
        "http://127.0.0.1:8008/", "https://docs.test/"
    )
    # The wheel of this build inside the example, pinned by its sha256 in requirements.txt.
    manifest = json.loads(tree["manifest.json"])
    (wheel_name,) = manifest["examples"]["demo-poll"]["wheels"]
    wheel = served / "demo-poll" / "wheels" / wheel_name
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    reqs = (served / "demo-poll" / "requirements.txt").read_text()
    assert reqs == tree["demo-poll/requirements.txt"].decode().replace(
        f"./wheels/{wheel_name}\n", f"./wheels/{wheel_name} \\\n    --hash=sha256:{digest}\n"
    )
    # The served manifest matches every served file, the archive and its .sha256 file.
    served_manifest = json.loads((served / "manifest.json").read_text())
    assert served_manifest["site_url"] == "https://docs.test/"
    entry = served_manifest["examples"]["demo-poll"]
    assert f"wheels/{wheel_name}" in entry["files"]
    for name, file_digest in entry["files"].items():
        assert hashlib.sha256((served / "demo-poll" / name).read_bytes()).hexdigest() == file_digest
    archive = (served / "demo-poll.tar.gz").read_bytes()
    assert hashlib.sha256(archive).hexdigest() == entry["archive_sha256"]
    sha_file = (served / "demo-poll.tar.gz.sha256").read_text()
    assert sha_file == f"{entry['archive_sha256']}  demo-poll.tar.gz\n"
    with tarfile.open(served / "demo-poll.tar.gz") as tar:
        assert tar.getnames() == [f"demo-poll/{f}" for f in entry["files"]]
        member = tar.extractfile(f"demo-poll/wheels/{wheel_name}")
        assert member is not None
        assert member.read() == wheel.read_bytes()
    # The wheels page: this build's wheels, importable names inside, linked with their sha256.
    index = (site / "wheels" / "index.html").read_text()
    for dist, filename in manifest["wheels"].items():
        wheel = site / "wheels" / filename
        with zipfile.ZipFile(wheel) as zf:
            assert any(n.startswith(f"{dist}/__init__.py") for n in zf.namelist())
        assert f"{filename}#sha256={hashlib.sha256(wheel.read_bytes()).hexdigest()}" in index
    script = (site / "download_example.py").read_text()
    assert 'DEFAULT_BASE_URL = "https://docs.test/"' in script


def test_archives_are_the_same_bytes_for_the_same_files(hook: ModuleType) -> None:
    """Published twice, an archive keeps its sha256 (no build time in the gzip header)."""
    files = {"app.py": b"app = 1\n"}
    assert hook._archive("x", files, 1.0) == hook._archive("x", files, 1.0)


def test_a_wheel_line_missing_from_requirements_stops_the_build(hook: ModuleType) -> None:
    with pytest.raises(RuntimeError, match=r"names \./wheels/w\.whl 0 times"):
        hook.with_wheel_hashes(b"fastapi==1\n", {"w.whl": b"x"})
