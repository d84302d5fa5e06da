"""The MkDocs hook, in a real ``mkdocs build``: the example tree is published raw."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def test_mkdocs_build_publishes_examples_archives_wheels_and_script(
    examples: ModuleType, recipes_dir: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    (docs).mkdir()
    (docs / "index.md").write_text("# Home\n")
    tree = examples.build_tree(
        examples.load_recipes(recipes_dir),
        site_url="http://127.0.0.1:8008/",  # the default; this build is for https://docs.test/
        versions=examples.local_versions(),
        pins={},
    )
    examples.write_tree(tree, docs / "examples")
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_name: hook test\n"
        "site_url: https://docs.test/\n"
        "strict: true\n"
        f"docs_dir: {docs}\n"
        f"site_dir: {tmp_path / 'site'}\n"
        "hooks:\n"
        f"  - {ROOT / 'scripts' / 'site' / 'examples_hook.py'}\n"
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
    # Generated files re-based onto the URL of this build; the served manifest matches them.
    for name in ("README.md", "requirements.txt"):
        text = (served / "demo-poll" / name).read_text()
        assert text == tree[f"demo-poll/{name}"].decode().replace(
            "http://127.0.0.1:8008/", "https://docs.test/"
        )
    served_manifest = json.loads((served / "manifest.json").read_text())
    assert served_manifest["site_url"] == "https://docs.test/"
    for name, digest in served_manifest["examples"]["demo-poll"]["files"].items():
        assert hashlib.sha256((served / "demo-poll" / name).read_bytes()).hexdigest() == digest
    with tarfile.open(served / "demo-poll.tar.gz") as tar:
        assert "demo-poll/helpers/util.py" in tar.getnames()
    # The wheels of this build, importable names inside, linked with their sha256.
    manifest = json.loads(tree["manifest.json"])
    index = (site / "wheels" / "index.html").read_text()
    for dist, filename in manifest["wheels"].items():
        wheel = site / "wheels" / filename
        with zipfile.ZipFile(wheel) as zf:
            assert any(n.startswith(f"{dist}/__init__.py") for n in zf.namelist())
        assert f"{filename}#sha256={hashlib.sha256(wheel.read_bytes()).hexdigest()}" in index
    script = (site / "download_example.py").read_text()
    assert 'DEFAULT_BASE_URL = "https://docs.test/"' in script
