"""Regenerate the standalone example tree ``docs/examples/`` from ``recipes/``.

Maintainers' commands (docs/maintainers/index.md, "When a check reports drift", says when)::

    python scripts/examples.py           # rewrite docs/examples/ from recipes/
    python scripts/examples.py --check   # exit 1 and list what is stale (the test suite runs this)
    python scripts/examples.py --lock    # re-resolve the hash lock (network), then rewrite

For every ``recipes/<name>/recipe.toml`` the tree gets ``docs/examples/<name>/`` holding the
recipe's exported ``files`` byte for byte, a ``requirements.txt`` pinning every package by
sha256 (``resq``/``hedron`` as the wheels the site ships inside the example, under
``wheels/``; the other packages from the hash lock ``scripts/requirements/examples.txt``) and
a ``README.md`` (what it shows, the exact commands, what to expect); ``manifest.json`` records
every file's sha256 and the example's commands. The quickstart a recipe page shows is made at
build time for the site's address (:func:`quickstart_markdown`). The site build
(``docsite/examples/publish.py``) serves the tree raw and adds what only a build knows: the
wheels, their sha256 in ``requirements.txt``, the archives and their sha256.

The parts: :mod:`~docsite.examples.plan` (how an example runs, its transcript),
:mod:`~docsite.examples.docs` (README and quickstart), :mod:`~docsite.examples.lock` (the hash
lock); the recipes themselves come from the recipe model (``tryit.recipe``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from docsite.examples import docs as examples_docs
from docsite.examples import lock as examples_lock
from docsite.examples.plan import (
    GENERATED_FILES,
    LIBRARIES,
    WHEELS_DIR,
    Recipe,
    curl_block,
    read_transcript,
    run_block,
    setup_block,
)
from docsite.paths import DOCS, MKDOCS_YML, RECIPES, REPO, REQUIREMENTS
from tryit.recipe import load_recipe, recipe_names
from tryit.recipe import load_recipes as _load_recipes

REPO_ROOT = REPO
RECIPES_DIR = RECIPES
EXAMPLES_DIR = DOCS / "examples"
DEV_REQUIREMENTS = REQUIREMENTS / "dev.txt"
LOCK_FILE = REQUIREMENTS / "examples.txt"
DOWNLOAD_SCRIPT = Path(__file__).resolve().parent / "download_example.py"
MANIFEST = "manifest.json"
MANIFEST_FORMAT = 2
#: Used when ``mkdocs.yml`` sets no ``site_url``: the address ``scripts/serve`` serves on.
FALLBACK_SITE_URL = "http://127.0.0.1:8008/"
LOCAL_DISTRIBUTIONS = ("resq", "hedron")

__all__ = [
    "GENERATED_FILES",
    "LIBRARIES",
    "Recipe",
    "build_tree",
    "check_tree",
    "load_recipe",
    "load_recipes",
    "quickstart_markdown",
    "write_tree",
]


def load_recipes(recipes_dir: Path = RECIPES_DIR) -> list[Recipe]:
    """Return every recipe under ``recipes_dir`` (folders holding a ``recipe.toml``), by name."""
    return _load_recipes(recipes_dir)


_SITE_URL_RE = re.compile(
    r"""^site_url:[ \t]*(?:!ENV[ \t]*\[[ \t]*\w+[ \t]*,[ \t]*)?['"]?([^'"\s#\]]+)""",
    flags=re.MULTILINE,
)


def read_site_url(mkdocs_yml: Path = MKDOCS_YML) -> str:
    """Return the site URL the committed tree is generated for, ending with ``/``.

    That is ``site_url`` in ``mkdocs.yml``; for ``!ENV [SITE_URL, "default"]`` the default
    (never the environment, so the committed tree does not depend on it: a build for another
    URL re-bases the published copies). Falls back to :data:`FALLBACK_SITE_URL`.

    Raises:
        ValueError: ``site_url`` is set in a form this function cannot read.
    """
    text = mkdocs_yml.read_text(encoding="utf-8") if mkdocs_yml.exists() else ""
    if not re.search(r"^site_url:", text, flags=re.MULTILINE):
        return FALLBACK_SITE_URL
    match = _SITE_URL_RE.search(text)
    if match is None or not match.group(1).startswith(("http://", "https://")):
        raise ValueError(f"mkdocs_yml: cannot read site_url from {mkdocs_yml}")
    url = match.group(1)
    return url if url.endswith("/") else url + "/"


def local_versions(root: Path = REPO_ROOT) -> dict[str, str]:
    """Return the version of each local distribution, read from its ``pyproject.toml``."""
    versions = {}
    for dist in LOCAL_DISTRIBUTIONS:
        data = tomllib.loads((root / "src" / dist / "pyproject.toml").read_text(encoding="utf-8"))
        versions[dist] = str(data["project"]["version"])
    return versions


def wheel_filename(dist: str, version: str) -> str:
    """Return the file name hatchling gives a pure wheel (``hedron-1.2.0-py3-none-any.whl``)."""
    return f"{dist.replace('-', '_')}-{version}-py3-none-any.whl"


def wheel_requirement(dist: str, version: str, site_url: str, extras: str = "") -> str:
    """Return the direct reference to ``dist``'s wheel on the site's ``/wheels/`` page.

    Example:
        >>> wheel_requirement("resq", "1.0.0", "https://docs.example/")
        'resq @ https://docs.example/wheels/resq-1.0.0-py3-none-any.whl'
    """
    return f"{dist}{extras} @ {site_url}wheels/{wheel_filename(dist, version)}"


def suite_pins(dev_requirements: Path = DEV_REQUIREMENTS) -> dict[str, str]:
    """Return ``{canonical name: version}`` from the pinned development requirements."""
    pins: dict[str, str] = {}
    for line in dev_requirements.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            pins[canonicalize_name(name.split("[", 1)[0])] = version.strip()
    return pins


def local_dependencies(root: Path = REPO_ROOT) -> dict[str, tuple[str, ...]]:
    """Return each local distribution's requirements (``project.dependencies``), and those of
    each of its extras under ``"dist[extra]"`` (``project.optional-dependencies``)."""
    deps = {}
    for dist in LOCAL_DISTRIBUTIONS:
        data = tomllib.loads((root / "src" / dist / "pyproject.toml").read_text(encoding="utf-8"))
        deps[dist] = tuple(str(d) for d in data["project"].get("dependencies", []))
        for extra, more in data["project"].get("optional-dependencies", {}).items():
            deps[f"{dist}[{extra}]"] = tuple(str(d) for d in more)
    return deps


def _parse_req(text: str, recipe: Recipe) -> Requirement:
    try:
        return Requirement(text)
    except InvalidRequirement as exc:
        raise ValueError(f"recipe {recipe.name!r}: requirements entry {text!r}: {exc}") from exc


def _wanted(recipe: Recipe) -> list[Requirement]:
    """The recipe's requirements (its library when it lists none), uvicorn included."""
    wanted = [_parse_req(t, recipe) for t in recipe.requirements or (recipe.library,)]
    if "uvicorn" not in {canonicalize_name(r.name) for r in wanted}:
        wanted.append(Requirement("uvicorn"))  # every run starts uvicorn
    return wanted


def example_inputs(
    recipe: Recipe, local_deps: Mapping[str, Sequence[str]]
) -> tuple[list[str], list[str]]:
    """Return ``(local distributions, third-party requirements)`` the example installs.

    The third-party part is the recipe's own requirements plus those of the local
    distributions it installs: what the lock must cover.
    """
    local, third = [], []
    for req in _wanted(recipe):
        name = canonicalize_name(req.name)
        if name in local_deps:
            local.append(name)
            third += local_deps[name]
            for extra in sorted(req.extras):
                if f"{name}[{extra}]" not in local_deps:
                    raise ValueError(f"recipe {recipe.name!r}: {name} has no extra {extra!r}")
                third += local_deps[f"{name}[{extra}]"]
        else:
            third.append(str(req))
    return local, third


def lock_inputs(recipes: Sequence[Recipe], local_deps: Mapping[str, Sequence[str]]) -> list[str]:
    """Every example's third-party requirements, once each: what the lock is compiled from."""
    return sorted({r for recipe in recipes for r in example_inputs(recipe, local_deps)[1]})


def requirements_txt(
    recipe: Recipe,
    versions: Mapping[str, str],
    lock: examples_lock.Lock,
    local_deps: Mapping[str, Sequence[str]],
) -> str:
    """Return the example's ``requirements.txt``: every package pinned by sha256.

    ``resq``/``hedron`` are the wheels under ``wheels/`` (the site build adds their
    ``--hash``, known once it has built them); the rest is the example's share of the lock.

    Raises:
        ValueError: a requirement cannot be parsed, asks for a version this build does not
            make or the lock does not hold, or is missing from the lock.
    """
    local, third = example_inputs(recipe, local_deps)
    for req in _wanted(recipe):
        name = canonicalize_name(req.name)
        version = versions.get(name) or getattr(lock.packages.get(name), "version", None)
        if version and req.specifier and not req.specifier.contains(version, prereleases=True):
            raise ValueError(
                f"recipe {recipe.name!r}: requirements entry {str(req)!r} does not allow "
                f"{name} {version}, the version this build "
                + ("makes" if name in versions else f"locks (run `{examples_lock.LOCK_COMMAND}`)")
            )
    roots = [canonicalize_name(Requirement(r).name) for r in third]
    try:
        packages = examples_lock.closure(lock, roots)
    except ValueError as exc:
        raise ValueError(f"recipe {recipe.name!r}: {exc}") from None
    shipped = " and ".join(local) or "nothing"
    lines = [
        f"# {recipe.title}: generated by scripts/examples.py from recipes/{recipe.name}/.",
        "# Every package is pinned by sha256; in this folder run",
        "#   pip install --require-hashes -r requirements.txt",
        f"# {shipped}: the wheels of this documentation build, in {WHEELS_DIR}/ beside this file;",
        "# the other packages: the versions the test suite ran with, from your package index.",
    ]
    lines += [f"./{WHEELS_DIR}/{wheel_filename(d, versions[d])}" for d in local]
    for package in packages:
        lines += package.lines()
    return "\n".join(lines) + "\n"


def _wheels(
    recipe: Recipe, versions: Mapping[str, str], local_deps: Mapping[str, Sequence[str]]
) -> list[str]:
    return [wheel_filename(d, versions[d]) for d in example_inputs(recipe, local_deps)[0]]


def quickstart_markdown(name: str, site_url: str | None = None) -> str:
    """Return the Markdown quickstart a recipe page shows (download, install, run, expect).

    Args:
        name: the example name (``jobs-poll``).
        site_url: base URL of the site (default: :func:`read_site_url`).

    Returns:
        Markdown (no heading: the page adds its own): the download-and-install block, the run
        block, what it prints or shows, and the archive with its sha256.

    Raises:
        ValueError: ``name`` is not a recipe.

    Example:
        >>> print(quickstart_markdown("jobs-poll"))  # doctest: +SKIP
    """
    if name not in recipe_names(RECIPES_DIR):
        raise ValueError(f"name: no recipe {name!r} under {RECIPES_DIR}")
    return examples_docs.quickstart(load_recipe(name, RECIPES_DIR), site_url or read_site_url())


def sha256(data: bytes) -> str:
    """Return the hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def _entry(recipe: Recipe, wheels: list[str], files: Mapping[str, bytes]) -> dict[str, object]:
    plan = recipe.plan
    transcript = read_transcript(recipe.folder)
    entry: dict[str, object] = {
        "title": recipe.title,
        "summary": recipe.summary,
        "library": recipe.library,
        "setup": setup_block(recipe.name),
        "run": run_block(plan),
    }
    if plan.background:
        entry["expect"] = list(transcript.printed) if transcript else []
    else:
        page = transcript.page.path if transcript and transcript.page else "/"
        entry["open"] = plan.server.url + page
        entry["curl"] = curl_block(plan, transcript, recipe.form_data)
    entry["wheels"] = wheels
    entry["archive"] = f"{recipe.name}.tar.gz"
    entry["files"] = {name: sha256(data) for name, data in files.items()}
    return entry


def build_tree(
    recipes: Sequence[Recipe],
    *,
    site_url: str,
    versions: Mapping[str, str],
    lock: examples_lock.Lock,
    local_deps: Mapping[str, Sequence[str]],
) -> dict[str, bytes]:
    """Return the whole generated tree as ``{path relative to docs/examples: bytes}``.

    Args:
        recipes: the recipes to export.
        site_url: published site URL, ending with ``/``.
        versions: local distribution versions (see :func:`local_versions`).
        lock: the hash lock (see :func:`read_lock`).
        local_deps: the local distributions' requirements (see :func:`local_dependencies`).
    """
    tree: dict[str, bytes] = {}
    examples: dict[str, object] = {}
    for recipe in recipes:
        wheels = _wheels(recipe, versions, local_deps)
        files: dict[str, bytes] = {
            name: (recipe.folder / name).read_bytes() for name in recipe.files
        }
        reqs = requirements_txt(recipe, versions, lock, local_deps)
        files["requirements.txt"] = reqs.encode()
        files["README.md"] = examples_docs.readme(recipe, site_url, wheels).encode()
        for name, data in files.items():
            tree[f"{recipe.name}/{name}"] = data
        examples[recipe.name] = _entry(recipe, wheels, files)
    manifest = {
        "format": MANIFEST_FORMAT,
        "generator": "scripts/examples.py",
        "site_url": site_url,
        "wheels": {d: wheel_filename(d, versions[d]) for d in LOCAL_DISTRIBUTIONS},
        "examples": examples,
    }
    tree[MANIFEST] = manifest_bytes(manifest)
    return tree


def manifest_bytes(manifest: Mapping[str, object]) -> bytes:
    """Return ``manifest.json``'s bytes (the one serialisation, also used by the site hook)."""
    return (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()


def read_lock(path: Path | None = None) -> examples_lock.Lock:
    """Read the hash lock (default: :data:`LOCK_FILE`).

    Raises:
        ValueError: it is missing or malformed.
    """
    path = path or LOCK_FILE
    if not path.is_file():
        raise ValueError(f"lock: {path} is missing: run `{examples_lock.LOCK_COMMAND}`")
    return examples_lock.parse_lock(path.read_text(encoding="utf-8"), str(path))


def lock_problems(recipes: Sequence[Recipe], lock: examples_lock.Lock) -> list[str]:
    """Why the lock does not fit the recipes and the suite's pins any more (none: fresh)."""
    inputs = lock_inputs(recipes, local_dependencies())
    return examples_lock.stale_reasons(lock, inputs, suite_pins())


def current_tree(recipes_dir: Path = RECIPES_DIR) -> dict[str, bytes]:
    """Return the tree the repository's recipes, versions and site URL generate right now.

    Raises:
        ValueError: a recipe is malformed, or the lock is missing or stale.
    """
    recipes = load_recipes(recipes_dir)
    lock = read_lock()
    problems = lock_problems(recipes, lock)
    if problems:
        shown = (
            LOCK_FILE.relative_to(REPO_ROOT) if LOCK_FILE.is_relative_to(REPO_ROOT) else LOCK_FILE
        )
        raise ValueError(
            f"lock: {shown} is stale ({'; '.join(problems)}): run `{examples_lock.LOCK_COMMAND}`"
        )
    return build_tree(
        recipes,
        site_url=read_site_url(),
        versions=local_versions(),
        lock=lock,
        local_deps=local_dependencies(),
    )


def write_lock(recipes_dir: Path = RECIPES_DIR) -> str:
    """Re-resolve the hash lock for the recipes (network, uv) and write it; return its path.

    Raises:
        ValueError: uv is missing or cannot resolve.
    """
    inputs = lock_inputs(load_recipes(recipes_dir), local_dependencies())
    lock = examples_lock.compile_lock(inputs, DEV_REQUIREMENTS, REPO_ROOT)
    LOCK_FILE.write_text(examples_lock.render_lock(lock), encoding="utf-8")
    return str(LOCK_FILE.relative_to(REPO_ROOT))


_DEFAULT_URL_RE = re.compile(r'^DEFAULT_BASE_URL = "[^"]*"$', flags=re.MULTILINE)


def with_default_base_url(script: str, url: str) -> str:
    """Return the download script's text with its ``DEFAULT_BASE_URL`` set to ``url``.

    Raises:
        ValueError: ``script`` has no ``DEFAULT_BASE_URL = "..."`` line, or ``url`` has a quote.
    """
    if '"' in url or "\\" in url:
        raise ValueError(f"url: {url!r} cannot be written into the download script")
    text, count = _DEFAULT_URL_RE.subn(f'DEFAULT_BASE_URL = "{url}"', script, count=1)
    if count != 1:
        raise ValueError("script: no DEFAULT_BASE_URL line found in the download script")
    return text


def _existing(out: Path) -> dict[str, Path]:
    if not out.is_dir():
        return {}
    return {p.relative_to(out).as_posix(): p for p in sorted(out.rglob("*")) if p.is_file()}


def check_tree(tree: Mapping[str, bytes], out: Path = EXAMPLES_DIR) -> list[str]:
    """Return one line per difference between ``tree`` and the files in ``out`` (none: fresh)."""
    existing = _existing(out)
    problems = [f"missing: {name}" for name in tree if name not in existing]
    problems += [
        f"stale: {name}"
        for name, data in tree.items()
        if name in existing and existing[name].read_bytes() != data
    ]
    problems += [f"extra: {name}" for name in existing if name not in tree]
    return problems


def write_tree(tree: Mapping[str, bytes], out: Path = EXAMPLES_DIR) -> list[str]:
    """Make ``out`` hold exactly ``tree``; return the paths written or removed."""
    changed = []
    for name, path in _existing(out).items():
        if name not in tree:
            path.unlink()
            changed.append(f"removed: {name}")
    for name, data in tree.items():
        path = out / name
        if path.is_file() and path.read_bytes() == data:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        changed.append(f"wrote: {name}")
    for folder in sorted((p for p in out.rglob("*") if p.is_dir()), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(prog="scripts/examples.py", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if docs/examples/ is stale")
    parser.add_argument(
        "--lock", action="store_true", help="re-resolve the hash lock (network), then rewrite"
    )
    parser.add_argument("--recipes", type=Path, default=RECIPES_DIR, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=EXAMPLES_DIR, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.check and args.lock:
        parser.error("--check and --lock do not go together")
    try:
        if args.lock:
            print(f"wrote: {write_lock(args.recipes)}")
        tree = current_tree(args.recipes)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    script = DOWNLOAD_SCRIPT.read_text(encoding="utf-8")
    wanted_script = with_default_base_url(script, read_site_url())
    if args.check:
        problems = check_tree(tree, args.out)
        if script != wanted_script:
            problems.append(f"stale: {DOWNLOAD_SCRIPT.relative_to(REPO_ROOT)} (DEFAULT_BASE_URL)")
        for line in problems:
            print(line)
        if problems:
            print("the example tree is stale: run `python scripts/examples.py`", file=sys.stderr)
            return 1
        print(f"docs/examples/ is up to date ({len(tree)} files)")
        return 0
    for line in write_tree(tree, args.out):
        print(line)
    if script != wanted_script:
        DOWNLOAD_SCRIPT.write_text(wanted_script, encoding="utf-8")
        print(f"wrote: {DOWNLOAD_SCRIPT.relative_to(REPO_ROOT)} (DEFAULT_BASE_URL)")
    print(f"{args.out}: {len(tree)} files, generated from {args.recipes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
