"""Publishing without a browser: ``scripts/build``'s checks of its input, the GitHub Pages
workflow that runs it, the Publishing page, and the commands hand-written pages show for the
site's address (``tests/site/test_publish.py`` builds and visits the published site)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from docsite.examples import docs as examples_docs
from docsite.pages import install as install_block
from docsite.paths import REPO

WORKFLOW = REPO / ".github" / "workflows" / "docs.yml"
BUILD = REPO / "scripts" / "build"


def _build(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "SITE_URL"}
    return subprocess.run(
        [str(BUILD), *args],
        cwd=cwd,
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        ((), {}, "DIR: name one folder"),
        (("out", "more"), {}, "DIR: name one folder"),
        (("out",), {"SITE_URL": "example.org/docs/"}, "SITE_URL must be an http:// or https://"),
        (("out",), {"SITE_URL": "https://example.org/?page=1"}, "SITE_URL must be"),
        ((str(REPO),), {"SITE_URL": "https://example.org/"}, "DIR must not hold the repository"),
        (("..",), {"SITE_URL": "https://example.org/"}, "DIR must not hold the repository"),
    ],
)
def test_bad_input_is_refused_before_anything_is_built(
    tmp_path: Path, args: tuple[str, ...], env: dict[str, str], message: str
) -> None:
    cwd = REPO / "docs" if args == ("..",) else tmp_path
    result = _build(*args, cwd=cwd, **env)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith(f"scripts/build: {message}"), result.stderr
    assert result.stdout == ""
    assert not (tmp_path / "out" / "index.html").exists()


def _steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = job["steps"]
    return steps


def test_the_pages_workflow_runs_scripts_build_for_the_pages_address() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers["push"]["branches"] == ["main"]
    assert workflow["permissions"]["pages"] == "write"
    build = workflow["jobs"]["build"]
    (step,) = [s for s in _steps(build) if "scripts/build" in s.get("run", "")]
    command = step["run"].split()
    assert command[0] == "scripts/build"
    assert step["env"]["SITE_URL"] == "${{ steps.pages.outputs.base_url }}/"
    (upload,) = [s for s in _steps(build) if "upload-pages-artifact" in s.get("uses", "")]
    assert upload["with"]["path"] == command[1]  # what the build wrote is what is published
    assert any("deploy-pages" in s.get("uses", "") for s in _steps(workflow["jobs"]["deploy"]))
    assert "chromium" not in WORKFLOW.read_text(encoding="utf-8").lower()  # no browser


def test_the_publishing_page_is_in_the_nav_and_shows_the_workflow_itself() -> None:
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    assert "      - Publishing: maintainers/publishing.md\n" in config
    page = (REPO / "docs" / "maintainers" / "publishing.md").read_text(encoding="utf-8")
    assert '--8<-- ".github/workflows/docs.yml"' in page  # included, never copied
    assert "SITE_URL=https://example.org/docs/ scripts/build public/" in page
    assert "127.0.0.1:8008" not in page


def test_a_quickstart_marker_names_the_page_of_an_unknown_example() -> None:
    markdown = "Intro\n\n<!-- quickstart: jobs-poll -->\n\nOutro\n"
    shown = install_block.embed_quickstart(markdown, "https://example.org/docs/", "a.md")
    assert "python3 download_example.py --base-url https://example.org/docs/ jobs-poll" in shown
    assert "<!-- quickstart" not in shown
    with pytest.raises(ValueError, match=r"^a\.md: <!-- quickstart: nope -->: no example 'nope'"):
        install_block.embed_quickstart("<!-- quickstart: nope -->\n", "https://x.test/", "a.md")


def test_the_install_block_names_its_site_and_stops_at_its_first_failure() -> None:
    lines = install_block.commands("https://example.org/docs/")
    chained = "\n".join(line for line in lines if not line.startswith("#"))
    assert chained.startswith("python3 -m venv .venv && . .venv/bin/activate \\\n  && pip install")
    assert chained.count("\n") == chained.count(" \\\n  && ")  # one command, joined by &&
    assert chained.count("https://example.org/docs/wheels/") == 2


def test_the_home_page_states_the_python_the_wheels_need() -> None:
    assert examples_docs.python_needed() == "Python 3.11 or newer"
    assert f"{examples_docs.python_needed()}." in (REPO / "docs" / "index.md").read_text()


def test_python_needed_reads_each_librarys_requires_python(tmp_path: Path) -> None:
    for dist, spec in (("resq", ">=3.11"), ("hedron", ">=3.12")):
        (tmp_path / "src" / dist).mkdir(parents=True)
        (tmp_path / "src" / dist / "pyproject.toml").write_text(
            f'[project]\nrequires-python = "{spec}"\n'
        )
    assert examples_docs.python_needed(tmp_path) == "Python 3.12 or newer"
    (tmp_path / "src" / "hedron" / "pyproject.toml").write_text(
        '[project]\nrequires-python = "~=3.11"\n'
    )
    with pytest.raises(ValueError, match=r"requires-python: .* says '~=3\.11'"):
        examples_docs.python_needed(tmp_path)
