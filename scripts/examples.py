"""Regenerate the standalone example tree ``docs/examples/`` from ``recipes/``.

Maintainers' command (run it after changing a recipe, a version, or the site URL)::

    python scripts/examples.py           # rewrite docs/examples/ from recipes/
    python scripts/examples.py --check   # exit 1 and list what is stale (the test suite runs this)

For every ``recipes/<name>/recipe.toml`` the tree gets ``docs/examples/<name>/`` holding the
recipe's exported ``files`` byte for byte, a ``requirements.txt`` pinned to this build (``resq``
and ``hedron`` as direct references to the wheels published on the site's own ``/wheels/``
page, other packages at the versions the test suite ran with) and a ``README.md`` with the run
commands; ``docs/examples/manifest.json`` records every file's sha256 (the download script
verifies it); ``docs/examples/_quickstart/<name>.md`` is the quickstart snippet a recipe page
includes (also available as :func:`quickstart_markdown`). The site build
(``scripts/site/examples_hook.py``) serves the tree raw, with archives, the wheels page and the
download script.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

REPO_ROOT = Path(__file__).resolve().parent.parent
RECIPES_DIR = REPO_ROOT / "recipes"
EXAMPLES_DIR = REPO_ROOT / "docs" / "examples"
MKDOCS_YML = REPO_ROOT / "mkdocs.yml"
DEV_REQUIREMENTS = REPO_ROOT / "scripts" / "requirements" / "dev.txt"
DOWNLOAD_SCRIPT = REPO_ROOT / "scripts" / "download_example.py"
MANIFEST = "manifest.json"
QUICKSTART_DIR = "_quickstart"
#: Used when ``mkdocs.yml`` sets no ``site_url``: the address ``scripts/serve`` serves on.
FALLBACK_SITE_URL = "http://127.0.0.1:8008/"
LOCAL_DISTRIBUTIONS = ("resq", "hedron")
LIBRARIES = ("resq", "hedron")
GENERATED_FILES = ("requirements.txt", "README.md")
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True)
class Recipe:
    """The parts of ``recipes/<name>/recipe.toml`` the example tree needs.

    Attributes:
        name: folder name, also the example's name (``jobs-poll``).
        folder: the recipe folder.
        title: page title.
        summary: one-sentence summary.
        library: ``"resq"`` or ``"hedron"``.
        files: exported code files, in display order (paths relative to ``folder``).
        run: quickstart commands, e.g. ``("uvicorn app:app --reload",)``.
        requirements: what the example needs installed (``"hedron"``, ``"uvicorn"``, ...).
    """

    name: str
    folder: Path
    title: str
    summary: str
    library: str
    files: tuple[str, ...]
    run: tuple[str, ...]
    requirements: tuple[str, ...]


def _string_list(data: Mapping[str, object], key: str, where: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"{where}: {key} must be a list of non-empty strings, got {value!r}")
    return tuple(value)


def load_recipe(folder: Path) -> Recipe:
    """Read and validate ``folder/recipe.toml``.

    Args:
        folder: a recipe folder (its name becomes the example name).

    Returns:
        The validated recipe.

    Raises:
        ValueError: a field is missing or malformed, or an exported file does not exist.

    Example:
        >>> load_recipe(Path("recipes/jobs-poll")).library  # doctest: +SKIP
        'hedron'
    """
    where = f"recipe {folder.name!r} ({folder / 'recipe.toml'})"
    if not _NAME_RE.match(folder.name):
        raise ValueError(f"{where}: folder name must be lowercase letters, digits and dashes")
    data = tomllib.loads((folder / "recipe.toml").read_text(encoding="utf-8"))
    texts: dict[str, str] = {}
    for key in ("title", "summary", "library"):
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{where}: {key} must be a non-empty string, got {value!r}")
        texts[key] = value.strip()
    if texts["library"] not in LIBRARIES:
        raise ValueError(f"{where}: library must be one of {LIBRARIES}, got {texts['library']!r}")
    files = _string_list(data, "files", where)
    if not files:
        raise ValueError(f"{where}: files must list at least one exported file")
    for name in files:
        parts = Path(name).parts
        if Path(name).is_absolute() or ".." in parts or name != Path(name).as_posix():
            raise ValueError(f"{where}: files entry {name!r} must be a relative POSIX path")
        if name in GENERATED_FILES:
            raise ValueError(f"{where}: files entry {name!r} is generated; do not export it")
        if not (folder / name).is_file():
            raise ValueError(f"{where}: files entry {name!r} does not exist")
    if len(set(files)) != len(files):
        raise ValueError(f"{where}: files lists a file twice")
    return Recipe(
        name=folder.name,
        folder=folder,
        title=texts["title"],
        summary=texts["summary"],
        library=texts["library"],
        files=files,
        run=_string_list(data, "run", where),
        requirements=_string_list(data, "requirements", where),
    )


def load_recipes(recipes_dir: Path = RECIPES_DIR) -> list[Recipe]:
    """Return every recipe under ``recipes_dir`` (folders holding a ``recipe.toml``), by name."""
    if not recipes_dir.is_dir():
        return []
    folders = sorted(p.parent for p in recipes_dir.glob("*/recipe.toml"))
    return [load_recipe(folder) for folder in folders]


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


def requirements_txt(
    recipe: Recipe, site_url: str, versions: Mapping[str, str], pins: Mapping[str, str]
) -> str:
    """Return the example's ``requirements.txt``, pinned to this build.

    ``resq``/``hedron`` become direct references to the wheels on ``<site_url>wheels/``;
    an unpinned third-party requirement gets the version the test suite ran with.

    Raises:
        ValueError: a requirement cannot be parsed, or asks for a local distribution at a
            version this build does not make.
    """
    wanted = list(recipe.requirements) or [recipe.library]
    uses_uvicorn = any(cmd.split()[:1] == ["uvicorn"] for cmd in recipe.run)
    if uses_uvicorn and "uvicorn" not in {_req_name(r, recipe) for r in wanted}:
        wanted.append("uvicorn")
    lines = [
        f"# {recipe.title} — generated by scripts/examples.py from recipes/{recipe.name}/.",
        "# resq and hedron: the exact wheels this documentation site was built with.",
    ]
    for text in wanted:
        req = _parse_req(text, recipe)
        name = canonicalize_name(req.name)
        extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
        if name in versions:
            version = versions[name]
            if req.specifier and not req.specifier.contains(version, prereleases=True):
                raise ValueError(
                    f"recipe {recipe.name!r}: requirements entry {text!r} does not allow "
                    f"{name} {version}, the version this build makes"
                )
            lines.append(wheel_requirement(name, version, site_url, extras))
        elif not req.specifier and name in pins:
            lines.append(f"{name}{extras}=={pins[name]}")
        else:
            lines.append(str(req))
    return "\n".join(lines) + "\n"


def _parse_req(text: str, recipe: Recipe) -> Requirement:
    try:
        return Requirement(text)
    except InvalidRequirement as exc:
        raise ValueError(f"recipe {recipe.name!r}: requirements entry {text!r}: {exc}") from exc


def _req_name(text: str, recipe: Recipe) -> str:
    return canonicalize_name(_parse_req(text, recipe).name)


SETUP_COMMANDS = (
    "python3 -m venv .venv",
    ". .venv/bin/activate",
    "pip install -r requirements.txt",
)


def run_commands(recipe: Recipe) -> list[str]:
    """Return the recipe's run commands (its own install commands left out: setup does that)."""
    return [cmd for cmd in recipe.run if not cmd.startswith(("pip install", "python -m pip"))]


def install_commands(recipe: Recipe) -> list[str]:
    """Return the shell commands that set up and run the downloaded example (POSIX shell)."""
    return [*SETUP_COMMANDS, *run_commands(recipe)]


def readme(recipe: Recipe, site_url: str) -> str:
    """Return the example's ``README.md`` (what it is, how to run it, where it comes from)."""
    files = "\n".join(f"- `{name}`" for name in recipe.files)
    commands = "\n".join(install_commands(recipe))
    run = run_commands(recipe)
    background = any(cmd.rstrip().endswith("&") for cmd in run)
    note = (
        "\nRun each long-running command in its own terminal (same folder, venv activated).\n"
        if len(run) > 1 and not background
        else ""
    )
    return f"""# {recipe.title}

{recipe.summary}

A standalone copy of the recipe `{recipe.name}` from the resq + hedron documentation
({site_url}recipes/{recipe.name}/). The code files are byte-identical to the recipe the
documentation shows and tests; `requirements.txt` installs the exact `resq`/`hedron` wheels
the site was built with, from the site's own wheels page.

## Run

```bash
{commands}
```
{note}
On Windows use `py -3 -m venv .venv` and `.venv\\Scripts\\activate`.

## Files

{files}
- `requirements.txt` (generated: pinned to the documentation build)
- `README.md` (generated: this file)

Regenerated by the maintainers with `python scripts/examples.py`; do not edit by hand.
"""


def quickstart_markdown(name: str, site_url: str | None = None) -> str:
    """Return the Markdown quickstart a recipe page shows (download, install, run).

    Args:
        name: the example name (``jobs-poll``).
        site_url: base URL of the site (default: :func:`read_site_url`).

    Returns:
        Markdown (no heading: the page adds its own): a sentence, one shell block, and a
        line with the single-file and archive alternatives.

    Raises:
        ValueError: ``name`` is not a recipe.

    Example:
        >>> print(quickstart_markdown("jobs-poll"))  # doctest: +SKIP
    """
    folder = RECIPES_DIR / name
    if not (folder / "recipe.toml").is_file():
        raise ValueError(f"name: no recipe {name!r} under {RECIPES_DIR}")
    return _quickstart(load_recipe(folder), site_url or read_site_url())


def _quickstart(recipe: Recipe, site_url: str) -> str:
    run = run_commands(recipe)
    lines = [
        "python3 -m venv .venv && . .venv/bin/activate  # Windows: .venv\\Scripts\\activate",
        f"curl -fsSL {site_url}download_example.py | python3 - {recipe.name}",
        f"cd {recipe.name}",
        "pip install -r requirements.txt",
        *run,
    ]
    first = recipe.files[0]
    block = "\n".join(lines)
    return f"""The download script checks every file against the site's manifest;
`requirements.txt` installs the exact `{recipe.library}` build these pages were made with.

```bash
{block}
```

One file at a time works too: `curl -fsSL {site_url}examples/{recipe.name}/{first} -o {first}`,
then `pip install -r {site_url}examples/{recipe.name}/requirements.txt`. Or take the archive:
[{recipe.name}.tar.gz]({site_url}examples/{recipe.name}.tar.gz).
"""


def sha256(data: bytes) -> str:
    """Return the hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def build_tree(
    recipes: Sequence[Recipe],
    *,
    site_url: str,
    versions: Mapping[str, str],
    pins: Mapping[str, str],
) -> dict[str, bytes]:
    """Return the whole generated tree as ``{path relative to docs/examples: bytes}``.

    Args:
        recipes: the recipes to export.
        site_url: published site URL, ending with ``/``.
        versions: local distribution versions (see :func:`local_versions`).
        pins: tested third-party versions (see :func:`suite_pins`).
    """
    tree: dict[str, bytes] = {}
    examples: dict[str, object] = {}
    for recipe in recipes:
        files: dict[str, bytes] = {
            name: (recipe.folder / name).read_bytes() for name in recipe.files
        }
        files["requirements.txt"] = requirements_txt(recipe, site_url, versions, pins).encode()
        files["README.md"] = readme(recipe, site_url).encode()
        for name, data in files.items():
            tree[f"{recipe.name}/{name}"] = data
        tree[f"{QUICKSTART_DIR}/{recipe.name}.md"] = _quickstart(recipe, site_url).encode()
        examples[recipe.name] = {
            "title": recipe.title,
            "summary": recipe.summary,
            "library": recipe.library,
            "setup": list(SETUP_COMMANDS),
            "run": run_commands(recipe),
            "archive": f"{recipe.name}.tar.gz",
            "files": {name: sha256(data) for name, data in files.items()},
        }
    manifest = {
        "format": 1,
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


def current_tree(recipes_dir: Path = RECIPES_DIR) -> dict[str, bytes]:
    """Return the tree the repository's recipes, versions and site URL generate right now."""
    return build_tree(
        load_recipes(recipes_dir),
        site_url=read_site_url(),
        versions=local_versions(),
        pins=suite_pins(),
    )


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
    parser.add_argument("--recipes", type=Path, default=RECIPES_DIR, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=EXAMPLES_DIR, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
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
