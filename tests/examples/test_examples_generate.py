"""scripts/examples.py: the generated tree, its manifest, README, quickstart, hash lock, --check."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from examples_data import LOCAL_DEPS, LOCK_TEXT

from docsite.examples import docs as examples_docs
from docsite.examples.plan import later
from docsite.pages import recipes as site_pages
from tryit.recipe import load_recipe, recipe_names

ROOT = Path(__file__).resolve().parents[2]
SITE = "https://docs.test/site/"
Build = Callable[..., dict[str, bytes]]


def _fences(markdown: str) -> dict[str, list[str]]:
    found = re.findall(r'^```bash title="([^"]+)"\n(.*?)\n```$', markdown, flags=re.M | re.S)
    return {title: text.splitlines() for title, text in found}


def test_code_files_are_byte_identical_and_listed_in_the_manifest(
    build: Build, recipes_dir: Path
) -> None:
    tree = build(recipes_dir, SITE)
    recipe = recipes_dir / "demo-poll"
    assert tree["demo-poll/app.py"] == (recipe / "app.py").read_bytes()
    assert tree["demo-poll/helpers/util.py"] == (recipe / "helpers" / "util.py").read_bytes()
    assert "demo-poll/page.md" not in tree  # only the exported files
    assert "demo-poll/transcript.txt" not in tree
    manifest = json.loads(tree["manifest.json"])
    assert manifest["format"] == 2
    entry = manifest["examples"]["demo-poll"]
    assert list(entry["files"]) == [
        "app.py",
        "helpers/util.py",
        "extra.py",
        "requirements.txt",
        "README.md",
    ]
    for name, digest in entry["files"].items():
        assert hashlib.sha256(tree[f"demo-poll/{name}"]).hexdigest() == digest
    assert manifest["site_url"] == SITE
    assert manifest["wheels"] == {
        "resq": "resq-1.1.0-py3-none-any.whl",
        "hedron": "hedron-1.2.0-py3-none-any.whl",
    }
    assert entry["wheels"] == ["hedron-1.2.0-py3-none-any.whl"]  # what it installs, only
    assert entry["setup"] == [
        "cd demo-poll \\\n"
        "  && python3 -m venv .venv && . .venv/bin/activate \\\n"
        "  && pip install --require-hashes -r requirements.txt"
    ]
    assert entry["run"] == ["uvicorn app:app --port 8000"]
    assert entry["open"] == "http://127.0.0.1:8000/"
    client = manifest["examples"]["demo-client"]
    assert client["expect"] == ["200 done"]  # the transcript's "> " lines
    assert client["wheels"] == ["resq-1.1.0-py3-none-any.whl"]


def test_requirements_pin_every_package_by_hash_and_only_what_the_example_needs(
    build: Build, recipes_dir: Path
) -> None:
    text = build(recipes_dir, SITE)["demo-poll/requirements.txt"].decode()
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert lines[0] == "./wheels/hedron-1.2.0-py3-none-any.whl"  # its --hash: the site build
    names = [line.split("==")[0] for line in lines[1:] if "==" in line]
    # hedron's fastapi and its starlette, uvicorn and its click; not requests, urllib3, unused
    assert names == ["click", "fastapi", "starlette", "uvicorn"]
    assert "    --hash=sha256:" + "s" * 63 + "1 \\" in lines  # starlette's hashes, all of them
    assert "://" not in text  # nothing is fetched from the site
    client = build(recipes_dir, SITE)["demo-client/requirements.txt"].decode()
    assert "urllib3==2.0.0 ; python_version >= '3.11' \\" in client.splitlines()  # marker kept
    assert "fastapi" not in client  # resq does not need it


def test_a_requirement_the_build_cannot_satisfy_is_refused(build: Build, recipes_dir: Path) -> None:
    toml = recipes_dir / "demo-poll" / "recipe.toml"
    toml.write_text(toml.read_text().replace('"hedron", "fastapi"', '"hedron>=2"'))
    with pytest.raises(ValueError, match=r"demo-poll.*hedron>=2.*1\.2\.0"):
        build(recipes_dir, SITE)
    toml.write_text(toml.read_text().replace('"hedron>=2"', '"hedron", "fastapi>=1"'))
    with pytest.raises(ValueError, match=r"fastapi>=1.*0\.100\.0.*--lock"):
        build(recipes_dir, SITE)
    toml.write_text(toml.read_text().replace('"fastapi>=1"', '"redis"'))
    with pytest.raises(ValueError, match=r"demo-poll.*redis not in the lock.*--lock"):
        build(recipes_dir, SITE)


def test_lock_round_trip_closure_and_staleness(examples: ModuleType) -> None:
    lock_mod = examples.examples_lock
    lock = lock_mod.parse_lock(LOCK_TEXT)
    again = lock_mod.parse_lock(lock_mod.render_lock(lock))
    assert again == lock
    assert [p.name for p in lock_mod.closure(lock, ["requests"])] == ["requests", "urllib3"]
    inputs = list(lock.inputs)
    assert lock_mod.stale_reasons(lock, inputs, {"fastapi": "0.100.0"}) == []
    assert lock_mod.stale_reasons(lock, inputs, {"fastapi": "0.101.0"}) == [
        "fastapi is locked at 0.100.0, the suite pins 0.101.0"
    ]
    assert lock_mod.stale_reasons(lock, [*inputs, "redis"], {})[0].startswith("compiled from")
    with pytest.raises(ValueError, match="must be pinned"):
        lock_mod.parse_lock("fastapi>=1 \\\n    --hash=sha256:00\n")


def test_the_lock_inputs_are_every_examples_third_party_needs(
    examples: ModuleType, recipes_dir: Path
) -> None:
    recipes = examples.load_recipes(recipes_dir)
    assert examples.lock_inputs(recipes, LOCAL_DEPS) == [
        "fastapi",
        "fastapi>=0.1",
        "requests>=2",
        "uvicorn",
    ]


def test_readme_says_what_to_run_open_expect_and_what_each_file_is_for(
    build: Build, recipes_dir: Path
) -> None:
    tree = build(recipes_dir, SITE)
    readme = tree["demo-poll/README.md"].decode()
    assert readme.startswith("# Demo poll\n\nA recipe made up by the tests.")
    install = "python3 -m venv .venv && . .venv/bin/activate \\\n  && pip install --require-hashes"
    assert install in readme  # the one venv place; no install without it
    assert "The wheels need Python 3.11 or newer" in readme
    assert _fences(readme)["Run"] == ["uvicorn app:app --port 8000"]
    assert "Open <http://127.0.0.1:8000/>" in readme
    assert "it shows the page “Demo page”" in readme
    assert "“Done.”" in readme
    assert "Ctrl+C" in readme
    assert "- `extra.py`: The same app, spelled out differently." in readme
    assert "`uvicorn extra:app --port 8000`" in readme  # how to serve the extra app
    assert "- `app.py`: A tiny app for the example-tree tests." in readme
    curl = _fences(readme)["Drive it with curl"]
    assert curl[0] == "BASE_URL=http://127.0.0.1:8000"
    assert any('-H "X-CSRF-Token: $TOKEN" -d steps=2 "$BASE_URL/tasks/demo"' in c for c in curl)
    assert "csrf_token" in readme
    assert "403" in readme
    client = tree["demo-client/README.md"].decode()
    run = _fences(client)["Run"]
    assert run[2:] == [
        "if curl -s -o /dev/null http://127.0.0.1:8000/; then",
        '  echo "Another server answers on port 8000: stop it first." >&2',
        "else",
        "  uvicorn server:app --port 8000 --log-level warning & SERVER=$!",
        "  curl -s -o /dev/null --retry 30 --retry-connrefused --retry-delay 1"
        " http://127.0.0.1:8000/ \\",
        "    && python client.py",
        "  kill $SERVER",
        "fi",
    ]
    assert "```text\n200 done\n```" in client  # the expected client output
    assert "BASE_URL=http://127.0.0.1:8001 python client.py" in client
    assert "kill $SERVER" in client.split("## Stop the server", 1)[1]


def test_quickstart_shows_the_manifests_commands_and_the_archive_check(
    build: Build, recipes_dir: Path
) -> None:
    tree = build(recipes_dir, SITE)
    manifest = json.loads(tree["manifest.json"])
    assert not [path for path in tree if path.startswith("_")]  # made at build time only
    for name in ("demo-poll", "demo-client"):
        entry = manifest["examples"][name]
        recipe = load_recipe(name, recipes_dir)
        quick = examples_docs.quickstart(recipe, SITE)
        fences = _fences(quick)
        # one chained command: the site it uses, named twice; then the manifest's setup
        download = (
            f"curl -fsSL {SITE}download_example.py -o download_example.py \\\n"
            f"  && python3 download_example.py --base-url {SITE} {name} \\\n"
            "  && "
        )
        assert "\n".join(fences["Download and install"]) == download + entry["setup"][0]
        run = "\n".join(entry["run"]).splitlines()
        assert fences["Run"] == run
        readme = tree[f"{name}/README.md"].decode()
        assert _fences(readme)["Run"] == run  # page, README and manifest agree
        assert f"sha256sum -c {name}.tar.gz.sha256 \\\n  && tar xzf {name}.tar.gz" in quick
        assert "| python3 -" not in quick  # a pipe would hide a failed download
        assert f"download the example from this site, <{SITE}>" in quick
        assert "The wheels need Python 3.11 or newer" in quick


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (('library = "hedron"', 'library = "flask"'), "library must be one of"),
        (('title = "Demo poll"\n', ""), "title must be a non-empty string"),
        (
            ("made up by the tests.", 'made up by the \\"tests\\".'),
            "must not contain a double quote",
        ),
        (('"app.py", "helpers/util.py"', '"app.py", "nope.py"'), "'nope.py' does not exist"),
        (('"app.py", "helpers/util.py"', '"../app.py"'), "relative POSIX path"),
        (('"app.py", "helpers/util.py"', '"requirements.txt"'), "is generated"),
        (("files = [", "files = 3 #["), "files must be a list"),
        (('form_data = "steps=2"', 'form_data = "a b"'), "form_data must be URL-encoded"),
        (("--port 8000", "--port 8000 --reload"), "leave out --reload"),
        (("--port 8000", "--port 8000 --host 0.0.0.0"), "leave out --host"),
        (("--port 8000", "--port eighty"), "bad --port"),
        (('run = ["uvicorn app:app --port 8000"]', "run = []"), "exactly one uvicorn"),
        (('"uvicorn app:app --port 8000"', '"uvicorn app:app &"'), "no command follows"),
        (
            ('"uvicorn app:app --port 8000"', '"uvicorn app:app", "python x.py"'),
            "would never run",
        ),
        (
            ('"uvicorn app:app --port 8000"', '"python x.py", "uvicorn app:app"'),
            "before uvicorn are services and must run in the background",
        ),
        (('"uvicorn app:app --port 8000"', '"uvicorn --port 8000"'), "names no module:app"),
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
    examples: ModuleType, build: Build, recipes_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    tree = build(recipes_dir, SITE)
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
    assert examples.check_tree(build(recipes_dir, SITE), out) == [
        "stale: demo-poll/app.py",
        "stale: demo-poll/README.md",  # its docstring is gone from the file list
        "stale: manifest.json",
    ]


def test_download_script_default_url_is_rewritten_in_place(examples: ModuleType) -> None:
    script = Path(examples.DOWNLOAD_SCRIPT).read_text()
    new = examples.with_default_base_url(script, "https://docs.test/")
    assert 'DEFAULT_BASE_URL = "https://docs.test/"' in new
    assert new.count("\n") == script.count("\n")
    with pytest.raises(ValueError, match="script"):
        examples.with_default_base_url("print(1)\n", "https://docs.test/")


def test_committed_tree_and_lock_are_fresh(examples: ModuleType) -> None:
    """The committed docs/examples/ is what the recipes generate, and the hash lock fits the
    recipes and the suite's pins (the maintainers' check)."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "examples.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "up to date" in proc.stdout
    assert examples.lock_problems(examples.load_recipes(), examples.read_lock()) == []


@pytest.fixture(scope="module")
def current_tree(examples: ModuleType) -> dict[str, bytes]:
    return dict(examples.current_tree())


@pytest.mark.parametrize("name", recipe_names())
def test_the_committed_example_of_each_recipe_is_fresh(
    examples: ModuleType, current_tree: dict[str, bytes], name: str
) -> None:
    """One recipe's part of that check (``scripts/test --recipe NAME`` runs it)."""
    mine = {path: data for path, data in current_tree.items() if path.startswith(f"{name}/")}
    assert f"{name}/README.md" in mine
    stale = examples.check_tree(mine, examples.EXAMPLES_DIR)
    stale = [line for line in stale if not line.startswith("extra: ")]
    assert stale == [], f"docs/examples/ is stale for {name}: run `scripts/recipe sync {name}`"


def test_a_stale_lock_stops_the_generator_with_what_to_run(
    examples: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock_mod = examples.examples_lock
    prefix = lock_mod.INPUT_PREFIX
    stale = tmp_path / "examples.txt"
    text = lock_mod.render_lock(examples.read_lock())
    stale.write_text(text.replace(prefix, prefix + "redis | ", 1))  # another recipe set
    monkeypatch.setattr(examples, "LOCK_FILE", stale)
    with pytest.raises(ValueError, match=r"examples\.txt is stale \(compiled from.*--lock"):
        examples.current_tree()
    assert examples.main(["--check"]) == 2


def test_quickstart_markdown_is_made_for_the_address_it_is_given(examples: ModuleType) -> None:
    for recipe in examples.load_recipes():
        quick = examples.quickstart_markdown(recipe.name, SITE)
        assert quick == examples_docs.quickstart(recipe, SITE)
        assert "127.0.0.1:8008" not in quick
    with pytest.raises(ValueError, match="name: no recipe 'nope'"):
        examples.quickstart_markdown("nope")


def test_every_recipe_gets_its_quickstart_without_code_of_its_own(examples: ModuleType) -> None:
    """Each recipe of the repository: a run block of a known shape and expected output."""
    manifest = json.loads((ROOT / "docs" / "examples" / "manifest.json").read_text())
    for recipe in examples.load_recipes():
        entry = manifest["examples"][recipe.name]
        assert entry["expect"] if "expect" in entry else entry["open"], recipe.name
        assert entry["wheels"], recipe.name


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


def test_a_recipe_page_shows_the_quickstart_or_else_the_same_run_block() -> None:
    """Under "Run it on your machine": the exported example's quickstart; a recipe not yet
    exported shows the same pasteable run block (never the bare ``run`` commands)."""
    info = load_recipe("resq-sync-poll")
    page = site_pages.recipe_page(info, "QUICKSTART")
    assert page.split("## Run it on your machine\n", 1)[1].strip() == "QUICKSTART"
    fallback = site_pages.recipe_page(info)  # no quickstart: not exported
    tail = fallback.split("## Run it on your machine\n", 1)[1]
    assert "uvicorn server:app --port 8000 --log-level warning & SERVER=$!" in tail
    assert "kill $SERVER" in tail


def test_services_start_first_in_the_background_and_the_block_stops_them(
    examples: ModuleType, recipes_dir: Path
) -> None:
    """``run`` may start services (redis-server, a worker) before uvicorn: the block keeps
    their pids and stops them after the client, or after Ctrl+C has stopped the app."""
    toml = recipes_dir / "demo-poll" / "recipe.toml"
    text = toml.read_text()
    app = '"uvicorn app:app --port 8000"'
    assert app in text
    toml.write_text(text.replace(app, f'"redis-server --port 6379 &", "rq worker &", {app}'))
    (recipe,) = [r for r in examples.load_recipes(recipes_dir) if r.name == "demo-poll"]
    plan = recipe.plan
    assert plan.services == ("redis-server --port 6379", "rq worker")
    assert examples.run_block(plan)[2:] == [  # in the foreground, uvicorn says a port is taken
        "redis-server --port 6379 & SERVICE1=$!",
        "rq worker & SERVICE2=$!",
        "uvicorn app:app --port 8000; kill $SERVICE1 $SERVICE2",
    ]
    client = dataclasses.replace(recipe, run=("redis-server &", "uvicorn s:app &", "python c.py"))
    block = examples.run_block(client.plan)
    assert block[2].startswith("if curl -s -o /dev/null http://127.0.0.1:8000/; then")
    assert block[5] == "  redis-server & SERVICE1=$!"
    assert block[-2:] == ["  kill $SERVER $SERVICE1", "fi"]


def test_an_extra_of_a_local_distribution_brings_its_requirements(
    examples: ModuleType, recipes_dir: Path
) -> None:
    (recipe,) = [r for r in examples.load_recipes(recipes_dir) if r.name == "demo-poll"]
    deps = {**LOCAL_DEPS, "hedron[celery]": ("celery>=5",)}
    celery = dataclasses.replace(recipe, requirements=("hedron[celery]",))
    assert examples.example_inputs(celery, deps) == (
        ["hedron"],
        ["fastapi>=0.1", "celery>=5", "uvicorn"],
    )
    with pytest.raises(ValueError, match="hedron has no extra 'rq'"):
        examples.example_inputs(dataclasses.replace(recipe, requirements=("hedron[rq]",)), deps)


def test_what_the_recorded_run_does_after_the_submit_is_said_in_the_readme(
    examples: ModuleType, recipes_dir: Path
) -> None:
    """A second scripted click, or a restart, changes the run's last answer: the README says
    what the recorded run did, and that curl only submits the form."""
    toml = recipes_dir / "demo-poll" / "recipe.toml"
    toml.write_text(
        toml.read_text()
        + '\n[demo]\nactions = [{ click = "form button" }, { click = ".cancel", at = 3 }]\n'
        + "\n[real]\nwhy = 'x'\nrestart = { stop = 3.5, start = 5 }\n"
    )
    (recipe,) = [r for r in examples.load_recipes(recipes_dir) if r.name == "demo-poll"]
    assert later(recipe) == (
        "at 3 s it clicks `.cancel`",
        "at 3.5 s it stops the server with Ctrl+C and at 5 s starts it again",
    )
    assert not recipe.in_browser
    readme = examples.examples_docs.readme(recipe, SITE, [])
    assert "The run recorded below does more: at 3 s it clicks `.cancel`; at 3.5 s" in readme
    assert "it only submits the form" in readme
    assert "as the test suite recorded it in a real run" in readme
