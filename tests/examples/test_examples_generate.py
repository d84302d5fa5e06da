"""scripts/examples.py: the generated tree, its manifest, its validation and --check."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = "https://docs.test/site/"
VERSIONS = {"resq": "1.1.0", "hedron": "1.2.0"}
PINS = {"fastapi": "0.165.0", "uvicorn": "0.54.0"}


def _tree(examples: ModuleType, recipes_dir: Path) -> dict[str, bytes]:
    return examples.build_tree(
        examples.load_recipes(recipes_dir), site_url=SITE, versions=VERSIONS, pins=PINS
    )


def test_code_files_are_byte_identical_and_listed_in_the_manifest(
    examples: ModuleType, recipes_dir: Path
) -> None:
    tree = _tree(examples, recipes_dir)
    recipe = recipes_dir / "demo-poll"
    assert tree["demo-poll/app.py"] == (recipe / "app.py").read_bytes()
    assert tree["demo-poll/helpers/util.py"] == (recipe / "helpers" / "util.py").read_bytes()
    assert "demo-poll/page.md" not in tree  # only the exported files
    manifest = json.loads(tree["manifest.json"])
    entry = manifest["examples"]["demo-poll"]
    assert list(entry["files"]) == ["app.py", "helpers/util.py", "requirements.txt", "README.md"]
    for name, digest in entry["files"].items():
        assert hashlib.sha256(tree[f"demo-poll/{name}"]).hexdigest() == digest
    assert manifest["site_url"] == SITE
    assert manifest["wheels"] == {
        "resq": "resq-1.1.0-py3-none-any.whl",
        "hedron": "hedron-1.2.0-py3-none-any.whl",
    }
    assert entry["setup"][-1] == "pip install -r requirements.txt"
    assert entry["run"] == ["uvicorn app:app --reload"]


def test_requirements_point_at_the_sites_own_wheels_and_pin_the_rest(
    examples: ModuleType, recipes_dir: Path
) -> None:
    lines = _tree(examples, recipes_dir)["demo-poll/requirements.txt"].decode().splitlines()
    reqs = [line for line in lines if not line.startswith("#")]
    assert reqs == [
        f"hedron @ {SITE}wheels/hedron-1.2.0-py3-none-any.whl",
        "fastapi==0.165.0",
        "uvicorn==0.54.0",  # added: the run commands use uvicorn
    ]


def test_a_requirement_the_build_cannot_satisfy_is_refused(
    examples: ModuleType, recipes_dir: Path
) -> None:
    toml = recipes_dir / "demo-poll" / "recipe.toml"
    toml.write_text(toml.read_text().replace('"hedron", "fastapi"', '"hedron>=2"'))
    with pytest.raises(ValueError, match=r"demo-poll.*hedron>=2.*1\.2\.0"):
        _tree(examples, recipes_dir)


def test_readme_and_quickstart_carry_the_run_commands(
    examples: ModuleType, recipes_dir: Path
) -> None:
    tree = _tree(examples, recipes_dir)
    readme = tree["demo-poll/README.md"].decode()
    assert "# Demo poll" in readme
    assert "pip install -r requirements.txt\nuvicorn app:app --reload" in readme
    quick = tree["_quickstart/demo-poll.md"].decode()
    assert f"curl -fsSL {SITE}download_example.py | python3 - demo-poll" in quick
    assert "uvicorn app:app --reload" in quick
    assert f"curl -fsSL {SITE}examples/demo-poll/app.py -o app.py" in quick


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (('library = "hedron"', 'library = "flask"'), "library must be one of"),
        (('title = "Demo poll"\n', ""), "title must be a non-empty string"),
        (('"app.py", "helpers/util.py"', '"app.py", "nope.py"'), "'nope.py' does not exist"),
        (('"app.py", "helpers/util.py"', '"../app.py"'), "relative POSIX path"),
        (('"app.py", "helpers/util.py"', '"requirements.txt"'), "is generated"),
        (("files = [", "files = 3 #["), "files must be a list"),
    ],
)
def test_bad_recipes_are_refused_with_the_field_named(
    examples: ModuleType, recipes_dir: Path, edit: tuple[str, str], message: str
) -> None:
    toml = recipes_dir / "demo-poll" / "recipe.toml"
    (recipes_dir / "demo-poll" / "requirements.txt").write_text("x\n")
    text = toml.read_text()
    assert edit[0] in text
    toml.write_text(text.replace(edit[0], edit[1]))
    with pytest.raises(ValueError, match=message):
        examples.load_recipes(recipes_dir)


def test_write_then_check_round_trip(
    examples: ModuleType, recipes_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    tree = _tree(examples, recipes_dir)
    (out / "gone").mkdir(parents=True)
    (out / "gone" / "old.py").write_text("stale example\n")
    assert examples.check_tree(tree, out)  # missing files and an extra one
    changed = examples.write_tree(tree, out)
    assert "removed: gone/old.py" in changed
    assert not (out / "gone").exists()
    assert examples.check_tree(tree, out) == []
    assert examples.write_tree(tree, out) == []  # idempotent
    # A recipe change makes the committed tree stale, and --check says which file.
    (recipes_dir / "demo-poll" / "app.py").write_bytes(b"app = None\n")
    assert examples.check_tree(_tree(examples, recipes_dir), out) == [
        "stale: demo-poll/app.py",
        "stale: manifest.json",
    ]


def test_download_script_default_url_is_rewritten_in_place(examples: ModuleType) -> None:
    script = (ROOT / "scripts" / "download_example.py").read_text()
    new = examples.with_default_base_url(script, "https://docs.test/")
    assert 'DEFAULT_BASE_URL = "https://docs.test/"' in new
    assert new.count("\n") == script.count("\n")
    with pytest.raises(ValueError, match="script"):
        examples.with_default_base_url("print(1)\n", "https://docs.test/")


def test_committed_tree_is_fresh() -> None:
    """The committed docs/examples/ is what the recipes generate (the maintainers' check)."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "examples.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "up to date" in proc.stdout


def test_quickstart_markdown_matches_the_committed_snippet(examples: ModuleType) -> None:
    names = [r.name for r in examples.load_recipes()]
    for name in names:
        snippet = (ROOT / "docs" / "examples" / "_quickstart" / f"{name}.md").read_text()
        assert examples.quickstart_markdown(name) == snippet
    with pytest.raises(ValueError, match="name: no recipe 'nope'"):
        examples.quickstart_markdown("nope")


@pytest.mark.parametrize(
    ("line", "url"),
    [
        ("site_url: https://docs.test/a", "https://docs.test/a/"),
        ('site_url: "https://docs.test/"  # published', "https://docs.test/"),
        ('site_url: !ENV [SITE_URL, "http://127.0.0.1:8008/"]', "http://127.0.0.1:8008/"),
        ("site_name: x", "http://127.0.0.1:8008/"),
    ],
)
def test_site_url_is_read_from_mkdocs_yml_never_from_the_environment(
    examples: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str, url: str
) -> None:
    monkeypatch.setenv("SITE_URL", "https://elsewhere.test/")
    config = tmp_path / "mkdocs.yml"
    config.write_text(f"site_name: t\n{line}\n")
    assert examples.read_site_url(config) == url
    config.write_text("site_url: !ENV SITE_URL\n")
    with pytest.raises(ValueError, match="mkdocs_yml"):
        examples.read_site_url(config)
