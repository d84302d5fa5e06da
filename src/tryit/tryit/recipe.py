"""The recipe model: ``recipes/<name>/recipe.toml``, read and checked here and nowhere else.

Everything that turns a recipe into something else starts from a :class:`Recipe`: its page and
widget (``docsite.pages``), its demo (this package's driver, in the browser and under pytest),
its standalone example (``docsite.examples``), its real replay (``docsite.replay``), the
benchmarks and the tests. The site's ``recipe.toml`` reference is generated from the fields'
documentation below (``docsite.pages.recipe_reference``).

Example:
    >>> from tryit.recipe import load_recipe
    >>> recipe = load_recipe("resq-sync-poll")  # doctest: +SKIP
    >>> recipe.library, recipe.demo.interval, recipe.plan.server.port  # doctest: +SKIP
    ('resq', 2.0, 8000)
"""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import ModuleType
from typing import Any

from tryit import _checks
from tryit._demo import Action, Demo, doc
from tryit._real import Real, Restart, Worker
from tryit._run import RunPlan, Server, parse_run

__all__ = [
    "Action",
    "Demo",
    "Real",
    "Recipe",
    "Restart",
    "RunPlan",
    "Server",
    "Worker",
    "load_recipe",
    "load_recipes",
    "recipe_names",
    "recipes_root",
]

LIBRARIES = ("resq", "hedron")
#: Files the example tree writes itself: a recipe may not export its own.
GENERATED_FILES = ("requirements.txt", "README.md")
#: Where a downloaded example keeps the wheels of the site's build.
WHEELS_DIR = "wheels"
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
FORM_RE = re.compile(r"^[\w.~%-]+=[\w.~%-]*(?:&[\w.~%-]+=[\w.~%-]*)*$")

_counter = itertools.count()


#: Names another folder of recipes (the browser's worker writes there the files of each recipe
#: it runs, fetched from the site: the runtime itself carries no recipe).
ROOT_ENV = "TRYIT_RECIPES"


def recipes_root() -> Path:
    """Where the recipes are: the folder ``$TRYIT_RECIPES`` names, else the repository's
    ``recipes/``."""
    named = os.environ.get(ROOT_ENV)
    if named:
        return Path(named)
    return Path(__file__).resolve().parents[3] / "recipes"


def recipe_names(root: Path | None = None) -> list[str]:
    """Names of every recipe folder holding a ``recipe.toml``, sorted."""
    base = root or recipes_root()
    return sorted(p.parent.name for p in base.glob("*/recipe.toml"))


@dataclass(frozen=True)
class Recipe:
    """A recipe folder and its ``recipe.toml``.

    The fields documented with a ``doc`` are the file's keys; :attr:`name`, :attr:`folder` and
    :attr:`sources` are what the model adds.
    """

    name: str  #: the folder's name: the page's, the example's and the demo's name
    folder: Path  #: the folder, absolute
    title: str = doc("The page's title.")
    summary: str = doc(
        "One sentence: what the recipe shows (the page's description; no double quote)."
    )
    library: str = doc("`resq` or `hedron`: whose learning path the recipe is on.")
    files: tuple[str, ...] = doc(
        "The files the page shows and the example exports, in display order (relative paths "
        "in the folder; not `requirements.txt`, `README.md` or `wheels/`, which the example "
        "tree writes)."
    )
    run: tuple[str, ...] = doc(
        "The commands a reader runs, as typed: services in the background (`redis-server … &`), "
        "then one `uvicorn module:app --port N`, either in the background (`&`) followed by the "
        "client commands, or alone in the foreground (an app the reader opens in a browser)."
    )
    requirements: tuple[str, ...] = doc(
        "What the example installs (`hedron`, `uvicorn`, `hedron[celery]`, ...): the example "
        "tree pins each from its hash lock.",
        default=(),
    )
    form_data: str = doc(
        "hedron apps with a form: the URL-encoded fields `curl -d` sends with it besides the "
        "CSRF token (`steps=3`).",
        default="",
    )
    demo: Demo = doc("How the Try-it demo runs the recipe (below).", default_factory=Demo)
    real: Real | None = doc(
        "What a real run needs that a browser tab cannot run (below): a recipe with this table "
        "has no Try-it; its page shows a real run's transcript.",
        default=None,
    )
    #: The reader's edited files (``{file name: text}``, see :meth:`edited`), loaded instead of
    #: the folder's; empty for the tested recipe.
    sources: Mapping[str, str] = field(default_factory=dict)

    @property
    def plan(self) -> RunPlan:
        """:attr:`run` read as a plan: its services, its server, its clients."""
        return parse_run(self.name, self.run)

    # What the demo needs to know.

    @property
    def in_browser(self) -> bool:
        """Whether the recipe runs in the browser (it has no ``[real]`` table)."""
        return self.real is None

    def check_in_browser(self) -> None:
        """Raise ``ValueError`` (saying why) if the recipe cannot run in the demo."""
        if self.real is not None:
            raise ValueError(f"recipe {self.name} does not run in a browser: {self.real.why}")

    @property
    def driver(self) -> str:
        """Who sends the demo's requests: ``"client"``, the recipe's ``client.py``
        (``main(client)``: every resq recipe, and a hedron app shown with a script), or
        ``"page"``, the app's own page in the demo panel, its htmx (the other hedron
        recipes)."""
        if self.library == "resq" or (self.folder / "client.py").is_file():
            return "client"
        return "page"

    @property
    def app_file(self) -> str:
        """The file holding the ASGI ``app``: ``server.py`` (resq) or ``app.py`` (hedron)."""
        return "server.py" if self.library == "resq" else "app.py"

    @property
    def editable(self) -> str:
        """The file a reader may edit in the "Try it" editor: the one that drives the demo,
        ``client.py`` (:attr:`driver` ``"client"``) or the app, ``app.py``."""
        return "client.py" if self.driver == "client" else self.app_file

    @property
    def transcript_path(self) -> Path:
        """The committed transcript (a recorded run's lines)."""
        return self.folder / "transcript.txt"

    def edited(self, sources: Mapping[str, str]) -> Recipe:
        """This recipe with the reader's edited files loaded instead of its own.

        Raises:
            ValueError: ``sources`` names a file other than :attr:`editable`, or a text
                that is not a string.
        """
        if not isinstance(sources, Mapping):
            raise ValueError(f"code must be an object {{file name: text}}, got {sources!r:.60}")
        for name, text in sources.items():
            if name != self.editable:
                raise ValueError(
                    f"code: recipe {self.name} lets the reader edit {self.editable} only, "
                    f"not {name!r:.60}"
                )
            if not isinstance(text, str):
                raise ValueError(f"code[{name!r}] must be the file's text, got {type(text)}")
        return dataclasses.replace(self, sources=dict(sources))

    def load(self, filename: str) -> ModuleType:
        """Import ``filename`` from the folder as a fresh module (new state every run); an
        edited file (:attr:`sources`) is compiled from its text, under its own name (so a
        traceback says ``File "client.py", line 12``). The one place a recipe's own files are
        loaded by their path."""
        path = self.folder / filename
        stem = f"recipe_{self.name.replace('-', '_')}_{path.stem}_{next(_counter)}"
        if filename in self.sources:
            from tryit._edits import compile_edited

            module = ModuleType(stem)
            module.__file__ = filename
            exec(compile_edited(self.sources[filename], filename), module.__dict__)
            return module
        spec = importlib.util.spec_from_file_location(stem, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


#: The keys of ``recipe.toml`` (the fields documented with a ``doc``).
KEYS = tuple(f.name for f in fields(Recipe) if "doc" in f.metadata)


def _files(value: Any, folder: Path, where: str) -> tuple[str, ...]:
    files = _checks.string_list(value, "files", where)
    if not files:
        raise ValueError(f"{where}: files must list at least one exported file")
    for name in files:
        parts = Path(name).parts
        if Path(name).is_absolute() or ".." in parts or name != Path(name).as_posix():
            raise ValueError(f"{where}: files entry {name!r} must be a relative POSIX path")
        if name in GENERATED_FILES or parts[0] == WHEELS_DIR:
            raise ValueError(f"{where}: files entry {name!r} is generated; do not export it")
        if not (folder / name).is_file():
            raise ValueError(f"{where}: files entry {name!r} does not exist")
    if len(set(files)) != len(files):
        raise ValueError(f"{where}: files lists a file twice")
    return files


def _parse(folder: Path, data: dict[str, Any]) -> Recipe:
    where = f"recipes/{folder.name}/recipe.toml"
    _checks.only(data, KEYS, "recipe.toml", where)
    texts = {key: _checks.text(data.get(key), key, where) for key in ("title", "summary")}
    if '"' in texts["summary"]:
        # the summary is the page's <meta name="description">, which the theme does not escape
        raise ValueError(f"{where}: summary must not contain a double quote (use ' or `)")
    library = data.get("library")
    if library not in LIBRARIES:
        raise ValueError(f"{where}: library must be one of {LIBRARIES}, got {library!r}")
    form_data = data.get("form_data", "")
    if not isinstance(form_data, str) or (form_data and not FORM_RE.match(form_data)):
        raise ValueError(
            f"{where}: form_data must be URL-encoded fields such as 'steps=3', got {form_data!r}"
        )
    run = _checks.string_list(data.get("run", []), "run", where)
    parse_run(folder.name, run)  # refuses a run that would not work when pasted
    return Recipe(
        name=folder.name,
        folder=folder,
        title=texts["title"],
        summary=texts["summary"],
        library=library,
        files=_files(data.get("files", []), folder, where),
        run=run,
        requirements=_checks.string_list(data.get("requirements", []), "requirements", where),
        form_data=form_data,
        demo=Demo.parse(data.get("demo", {}), where),
        real=Real.parse(data["real"], where) if "real" in data else None,
    )


def load_recipe(recipe: str | Path, root: Path | None = None) -> Recipe:
    """Read and check a recipe: by name (in ``root``, by default :func:`recipes_root`) or by
    its folder.

    Raises:
        ValueError: there is no such recipe, or its ``recipe.toml`` is wrong: the message names
            the key (and, for an unknown key, the closest valid one).
    """
    folder = recipe if isinstance(recipe, Path) else (root or recipes_root()) / recipe
    toml = folder / "recipe.toml"
    if not NAME_RE.match(folder.name):
        raise ValueError(f"recipe {folder.name!r}: a name is lowercase letters, digits and dashes")
    if not toml.is_file():
        raise ValueError(f"recipe: no recipe named {folder.name!r} (looked for {toml})")
    try:
        data = tomllib.loads(toml.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"recipes/{folder.name}/recipe.toml: not TOML: {exc}") from None
    return _parse(folder, data)


def load_recipes(root: Path | None = None) -> list[Recipe]:
    """Every recipe under ``root`` (by default :func:`recipes_root`), sorted by name."""
    base = root or recipes_root()
    return [load_recipe(name, base) for name in recipe_names(base)]
