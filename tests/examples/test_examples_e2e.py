"""End to end, for every example of the committed tree: its recipe page's quickstart, pasted.

The site's example part is published as the site build does (the hook's ``publish``: the raw
tree, this build's wheels inside each example, archives, the download script) and served on
127.0.0.1. Then the blocks a recipe page shows (``quickstart_markdown``, what the site build
puts on the page) are pasted into bash, on a machine with no package index: pip sees only a
local wheelhouse of the third-party wheels (``pip download --require-hashes`` of the hash
lock), so resq and hedron can only come from the example's own ``wheels/``.

- **Download and install**, for the first example verbatim: the download line, ``cd``, the
  venv inside the folder, ``pip install --require-hashes``, chained with ``&&``. That venv
  is then shared: for the
  other examples the block is pasted with its venv line replaced by activating it (one venv
  for all, to keep the suite's time in check).
- **Run**, every example side by side, each in a network namespace of its own so that the
  documented port 8000 is free (``paste_harness.py``): a client block must end with the
  client's lines of the recipe's transcript and leave no server behind; an app block must
  serve the URL the README names, showing the transcript's page; the README's curl block must
  end on HTTP 286 with the transcript's last text; the README's CSRF claims must hold; each
  extra app the README names must run to its end; Ctrl+C must stop the server.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from docsite.examples import docs as examples_docs
from docsite.examples.plan import file_infos, later, read_transcript
from tests._support.selection import wanted_recipes
from tryit._seen import answer_seen
from tryit.recipe import load_recipe

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
TREE = ROOT / "docs" / "examples"
MANIFEST = json.loads((TREE / "manifest.json").read_text())
EXAMPLES = sorted(MANIFEST["examples"])
LOCK = ROOT / "scripts" / "requirements" / "examples.txt"
WHEELHOUSE = ROOT / ".cache" / "examples" / "wheelhouse"
LOCAL_DISTRIBUTIONS = ("resq", "hedron")
HARNESS_TIMEOUT_S = 300.0
PIP_DOWNLOAD = [
    sys.executable,
    "-m",
    "pip",
    "download",
    "-q",
    "--require-hashes",
    "--only-binary=:all:",
]

# The module's fixtures install 23 examples one after the other, then run them all: on a busy
# machine (a fresh clone's run with two CPU hogs beside it) that took over the suite's 300 s
# per test, which bounds a test's setup too.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def blocks(markdown: str) -> dict[str, str]:
    """The titled shell blocks of a page or README (``title`` -> the block's text)."""
    found = re.findall(r'^```bash title="([^"]+)"\n(.*?)\n```$', markdown, flags=re.M | re.S)
    return dict(found)


def _offline_env(wheelhouse: Path) -> dict[str, str]:
    """A machine with no package index and no pip configuration, only ``wheelhouse``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheelhouse))
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _bash(block: str, cwd: Path, env: dict[str, str], timeout: float = 600) -> str:
    proc = subprocess.run(
        ["bash", "-s"],
        input=block + "\n",
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, f"pasted:\n{block}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def site_url(hook: ModuleType, static_server: Any, tmp_path_factory: Any) -> Iterator[str]:
    site_dir = tmp_path_factory.mktemp("site")
    with static_server(site_dir) as url:
        hook.publish(site_dir, site_url=url, examples_dir=TREE)
        yield url


@pytest.fixture(scope="module")
def served_manifest(site_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{site_url}examples/manifest.json", timeout=10) as response:
        manifest: dict[str, Any] = json.loads(response.read())
    return manifest


@pytest.fixture(scope="module")
def pages(examples: ModuleType, site_url: str) -> dict[str, str]:
    """Each recipe page's quickstart, for the site being served (what the site build shows)."""
    return {name: examples.quickstart_markdown(name, site_url) for name in EXAMPLES}


@pytest.fixture(scope="module")
def wheelhouse() -> Path:
    """This platform's files of every locked third-party package, checked by hash, fetched
    once per lock through the machine's pip configuration (never resq or hedron)."""
    key = hashlib.sha256(LOCK.read_bytes() + sys.version.encode()).hexdigest()[:16]
    folder = WHEELHOUSE / key
    if not (folder / ".complete").exists():
        staging = WHEELHOUSE / f"{key}.{os.getpid()}.tmp"
        shutil.rmtree(staging, ignore_errors=True)
        proc = subprocess.run(
            [*PIP_DOWNLOAD, "-d", str(staging), "-r", str(LOCK)],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert not [p for d in LOCAL_DISTRIBUTIONS for p in staging.glob(f"{d}-*")]
        (staging / ".complete").touch()
        with contextlib.suppress(OSError):  # a concurrent run may have finished first
            staging.rename(folder)
        shutil.rmtree(staging, ignore_errors=True)
    return folder


@pytest.fixture(scope="module")
def chosen(request: pytest.FixtureRequest) -> list[str]:
    """The examples this run is about: every one, or those ``--recipe`` names."""
    wanted = set(wanted_recipes(request.config))
    return [name for name in EXAMPLES if name in wanted] or EXAMPLES[:1]


@pytest.fixture(scope="module")
def reader(
    pages: dict[str, str], wheelhouse: Path, tmp_path_factory: Any, chosen: list[str]
) -> tuple[Path, Path]:
    """Each example downloaded and installed from its page's block; ``(folder, venv bin)``."""
    work = tmp_path_factory.mktemp("reader")
    env = _offline_env(wheelhouse)
    first, *others = chosen
    _bash(blocks(pages[first])[examples_docs.SETUP_TITLE], work, env)
    venv = work / first / ".venv"
    for name in others:
        block = blocks(pages[name])[examples_docs.SETUP_TITLE]
        assert block.count(f"&& {examples_docs.VENV_LINE} \\\n") == 1
        shared = block.replace(examples_docs.VENV_LINE, f". {venv}/bin/activate")
        _bash(shared, work, env)
    return work, venv / "bin"


def test_the_setup_block_installs_this_builds_wheels_from_the_example(
    reader: tuple[Path, Path], served_manifest: dict[str, Any], chosen: list[str]
) -> None:
    """resq and hedron came from the example's wheels/ (no index had them), pinned by hash."""
    work, bin_dir = reader
    site_packages = next((bin_dir.parent / "lib").glob("python3*/site-packages"))
    for dist, wheel in served_manifest["wheels"].items():
        (info,) = site_packages.glob(f"{dist}-*.dist-info")
        origin = json.loads((info / "direct_url.json").read_text())["url"]
        assert origin.startswith("file://"), origin
        assert origin.endswith(f"/wheels/{wheel}"), origin
    for name in chosen:
        reqs = (work / name / "requirements.txt").read_text()
        assert "://" not in reqs  # nothing to fetch from the site: it may be down
        for wheel in served_manifest["examples"][name]["wheels"]:
            digest = hashlib.sha256((work / name / "wheels" / wheel).read_bytes()).hexdigest()
            assert f"./wheels/{wheel} \\\n    --hash=sha256:{digest}\n" in reqs


def test_a_tampered_wheel_is_refused_by_the_hash_check(
    reader: tuple[Path, Path], served_manifest: dict[str, Any], wheelhouse: Path, chosen: list[str]
) -> None:
    work, bin_dir = reader
    name = chosen[0]
    copy = work / f"{name}-tampered"
    shutil.copytree(work / name, copy, ignore=shutil.ignore_patterns(".venv"))
    (wheel,) = served_manifest["examples"][name]["wheels"][:1]
    with (copy / "wheels" / wheel).open("ab") as handle:
        handle.write(b"\0")
    proc = subprocess.run(
        [
            str(bin_dir / "pip"),
            "install",
            "--dry-run",
            "--require-hashes",
            "-r",
            "requirements.txt",
        ],
        cwd=copy,
        env=_offline_env(wheelhouse),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode != 0
    assert "DO NOT MATCH THE HASHES" in proc.stdout + proc.stderr


def _spec(
    name: str, page: str, folder: Path, bin_dir: Path, entry: dict[str, Any]
) -> dict[str, Any]:
    recipe = load_recipe(name)
    plan = recipe.plan
    spec: dict[str, Any] = {
        "folder": str(folder),
        "bin": str(bin_dir),
        "run": blocks(page)[examples_docs.RUN_TITLE],
        "port": plan.server.port,
    }
    if plan.background:
        return {**spec, "kind": "client"}
    readme = (folder / "README.md").read_text()
    transcript = read_transcript(recipe.folder)
    submit = transcript.submit if transcript else None
    extras = [info.command for info in file_infos(recipe, plan) if info.command]
    return {
        **spec,
        "kind": "app",
        "base": plan.server.url + "/",
        "open": entry["open"],
        "curl": blocks(readme)[examples_docs.CURL_TITLE],
        "submit_url": plan.server.url + submit.path if submit else "",
        "form_data": recipe.form_data,
        "extras": extras,
    }


@pytest.fixture(scope="module")
def runs(
    reader: tuple[Path, Path],
    pages: dict[str, str],
    served_manifest: dict[str, Any],
    tmp_path_factory: Any,
    chosen: list[str],
) -> dict[str, dict[str, Any]]:
    """Each example's run block pasted side by side, each in its own network namespace."""
    probe = subprocess.run(["unshare", "--net", "true"], capture_output=True, check=False)
    assert probe.returncode == 0, (
        "these tests need `unshare --net` (root): " + probe.stderr.decode()
    )
    work, bin_dir = reader
    specs_dir = tmp_path_factory.mktemp("specs")

    # Each spec first, in this thread: building one parses the example's files with ``ast``,
    # which CPython 3.11.7 does not do safely in several threads at once (its AST constructor's
    # recursion count is shared: a fresh clone's run raised "SystemError: AST constructor
    # recursion depth mismatch").
    specs = {
        name: _spec(name, pages[name], work / name, bin_dir, served_manifest["examples"][name])
        for name in chosen
    }

    def one(name: str) -> dict[str, Any]:
        spec = specs[name]
        path = specs_dir / f"{name}.json"
        path.write_text(json.dumps(spec))
        cmd = ["unshare", "--net", "--", sys.executable, str(HERE / "paste_harness.py"), str(path)]
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=HARNESS_TIMEOUT_S, check=False
        )
        assert proc.returncode == 0, f"{name}: harness failed:\n{proc.stdout}\n{proc.stderr}"
        report: dict[str, Any] = json.loads(proc.stdout)
        return {**report, "spec": spec}

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(chosen)) as pool:
        return dict(zip(chosen, pool.map(one, chosen), strict=True))


def _recipe_transcript(name: str) -> Any:
    transcript = read_transcript(ROOT / "recipes" / name)
    assert transcript is not None, f"{name}: record its transcript first"
    return transcript


CLIENTS = [n for n in EXAMPLES if "expect" in MANIFEST["examples"][n]]
APPS = [n for n in EXAMPLES if "open" in MANIFEST["examples"][n]]


@pytest.mark.parametrize("name", CLIENTS)
def test_a_client_block_ends_with_the_transcripts_output_and_stops_its_server(
    name: str, runs: dict[str, dict[str, Any]], reader: tuple[Path, Path]
) -> None:
    report = runs[name]
    assert report["code"] == 0, report
    expected = list(_recipe_transcript(name).printed)
    assert expected, f"{name}: the transcript records nothing the client prints"
    assert report["stdout"].splitlines()[-len(expected) :] == expected, report
    assert report["port_closed"], f"{name}: the server still listens after the block"
    readme = (reader[0] / name / "README.md").read_text()
    assert "\n".join(expected) in readme  # the README says what the block prints


@pytest.mark.parametrize("name", APPS)
def test_an_app_block_serves_what_the_readme_says_and_curl_drives_it(
    name: str, runs: dict[str, dict[str, Any]], reader: tuple[Path, Path]
) -> None:
    report, transcript = runs[name], _recipe_transcript(name)
    spec = report["spec"]
    assert report["listening"], report
    readme = (reader[0] / name / "README.md").read_text()
    assert f"<{spec['open']}>" in readme  # the URL to open
    assert report["page"]["status"] == 200
    assert report["page"]["seen"] == transcript.page.seen  # what appears there
    curl = report["curl"]
    assert curl["code"] == 0, curl
    codes = re.findall(r"^GET \S+ -> (\d+)$", curl["stdout"], flags=re.M)
    assert codes[-1:] == ["286"], curl
    assert set(codes[:-1]) <= {"200"}, curl
    recipe = load_recipe(name)
    if not later(recipe):  # else the recorded run does more than submit (a Cancel, a restart)
        last = transcript.last
        final = curl["final_body"]
        assert final is not None, curl
        assert answer_seen(final, "text/html", status=last.status, region=last.region) == (
            last.seen
        ), curl
    if spec["submit_url"]:  # what the README says about the CSRF token
        assert report["csrf"] == {"without_token": 403, "token_as_field": 200}
    for command, outcome in report["extras"].items():
        assert command in readme
        assert outcome.get("final_status") == 286, outcome
        assert str(outcome.get("final_state")).lower() in ("succeeded", "none"), outcome
        assert outcome["stop"]["group_gone"], outcome
    assert report["server"]["group_gone"], "Ctrl+C left a process running"
    assert report["port_closed"]


def test_every_example_is_published_byte_for_byte(
    site_url: str, served_manifest: dict[str, Any]
) -> None:
    """Each served file matches the served manifest; code files are the recipe's bytes; the
    archive matches its sha256 (in the manifest and in its ``.sha256`` file)."""
    for name in EXAMPLES:
        entry = served_manifest["examples"][name]
        for filename, digest in entry["files"].items():
            url = f"{site_url}examples/{name}/{filename}"
            with urllib.request.urlopen(url, timeout=10) as response:
                served = response.read()
            assert hashlib.sha256(served).hexdigest() == digest
            if filename not in ("requirements.txt", "README.md") and "/" not in filename:
                assert served == (ROOT / "recipes" / name / filename).read_bytes()
        base = f"{site_url}examples/{entry['archive']}"
        with urllib.request.urlopen(base, timeout=10) as response:
            assert hashlib.sha256(response.read()).hexdigest() == entry["archive_sha256"]
        with urllib.request.urlopen(base + ".sha256", timeout=10) as response:
            assert response.read().decode() == f"{entry['archive_sha256']}  {entry['archive']}\n"


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
