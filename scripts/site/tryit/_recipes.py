"""Finding recipes (``recipes/<name>/recipe.toml``) and loading their modules fresh."""

from __future__ import annotations

import importlib.util
import itertools
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import ModuleType
from typing import Any

_counter = itertools.count()


def recipes_root() -> Path:
    """Where the recipes are: inside the wheel (browser) or the repository's ``recipes/``."""
    bundled = Path(__file__).resolve().parent / "_recipes"
    if bundled.is_dir():
        return bundled
    return Path(__file__).resolve().parents[3] / "recipes"


def recipe_names(root: Path | None = None) -> list[str]:
    """Names of every recipe folder holding a ``recipe.toml``, sorted."""
    base = root or recipes_root()
    return sorted(p.parent.name for p in base.glob("*/recipe.toml"))


@dataclass(frozen=True)
class Demo:
    """A recipe's ``[demo]`` table: how the demo (and its real replay) runs it.

    Attributes:
        interval: Seconds between the recipe's polls; every transcript time is shown as its
            poll slot, a multiple of it, so a real run's latency does not show (default 1).
        window: Seconds after which a hedron demo stops if the page still polls (default 30).
        runner: Name of the module attribute holding the app's local job runner (a
            ``SteppingRunner`` in the demo, worker threads in a real run), if it has one.
        page: hedron: the page to open (default ``"/"``).
        click: hedron: a CSS selector the reader clicks once the page has loaded.
        adapter: resq: ``"requests"`` (default) or ``"httpx"``.
        timeout: resq: the client's network timeout in seconds (default 5).
    """

    interval: float = 1.0
    window: float = 30.0
    runner: str | None = None
    page: str = "/"
    click: str | None = None
    adapter: str = "requests"
    timeout: float = 5.0

    @classmethod
    def parse(cls, table: dict[str, Any], where: str) -> Demo:
        """Check and read a ``[demo]`` table (every key is named in its error)."""
        unknown = sorted(set(table) - {f.name for f in fields(cls)})
        if unknown:
            raise ValueError(f"{where}: [demo] has unknown keys {unknown}")
        demo = cls(**table)
        for name in ("interval", "window", "timeout"):
            value = getattr(demo, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ValueError(f"{where}: [demo] {name} must be a number of seconds > 0")
        for name in ("runner", "page", "click"):
            value = getattr(demo, name)
            if value is not None and (not isinstance(value, str) or not value):
                raise ValueError(f"{where}: [demo] {name} must be a non-empty string")
        if not demo.page.startswith("/"):
            raise ValueError(f"{where}: [demo] page must be a path starting with '/'")
        if demo.adapter not in ("requests", "httpx"):
            raise ValueError(f"{where}: [demo] adapter must be 'requests' or 'httpx'")
        return demo

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form (what the page's demo panel is told)."""
        return {
            "interval": self.interval,
            "window": self.window,
            "page": self.page,
            "click": self.click,
        }


@dataclass(frozen=True)
class Recipe:
    """A recipe folder and its ``recipe.toml``.

    Attributes:
        name: Folder name.
        folder: Absolute path of the folder.
        library: ``"resq"`` or ``"hedron"``.
        title: Its title.
        demo: Its ``[demo]`` table.
    """

    name: str
    folder: Path
    library: str
    title: str = ""
    demo: Demo = field(default_factory=Demo)

    @property
    def app_file(self) -> str:
        """The file holding the ASGI ``app``: ``server.py`` (resq) or ``app.py`` (hedron)."""
        return "server.py" if self.library == "resq" else "app.py"

    def load(self, filename: str) -> ModuleType:
        """Import ``filename`` from the folder as a fresh module (new state every run)."""
        path = self.folder / filename
        stem = f"recipe_{self.name.replace('-', '_')}_{path.stem}_{next(_counter)}"
        spec = importlib.util.spec_from_file_location(stem, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    @property
    def transcript_path(self) -> Path:
        """The committed transcript."""
        return self.folder / "transcript.txt"


def load_recipe(name: str, root: Path | None = None) -> Recipe:
    """Read ``<root>/<name>/recipe.toml``.

    Raises:
        ValueError: no recipe of that name, its ``library`` is unknown, or its ``[demo]``
            table is wrong (the message names the key).
    """
    folder = (root or recipes_root()) / name
    toml = folder / "recipe.toml"
    if not toml.is_file():
        raise ValueError(f"recipe: no recipe named {name!r} (looked for {toml})")
    data = tomllib.loads(toml.read_text(encoding="utf-8"))
    library = data.get("library")
    if library not in ("resq", "hedron"):
        raise ValueError(f"recipe {name!r}: library must be 'resq' or 'hedron', got {library!r}")
    demo = Demo.parse(dict(data.get("demo", {})), f"recipes/{name}/recipe.toml")
    title = str(data.get("title", name))
    return Recipe(name=name, folder=folder, library=library, title=title, demo=demo)
