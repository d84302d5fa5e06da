"""Finding recipes (``recipes/<name>/recipe.toml``) and loading their modules fresh."""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import ModuleType
from typing import Any

from tryit._real import Real

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
class Action:
    """One scripted action of a hedron demo: a click on ``click`` (a CSS selector) at ``at``
    seconds after htmx started (virtual seconds in the demo, real ones in a real run)."""

    click: str
    at: float = 0.0

    @classmethod
    def parse(cls, value: Any, where: str) -> Action:
        """Check and read one ``actions`` entry (``{click = "...", at = 3}``)."""
        if not isinstance(value, dict):
            raise ValueError(f"{where}: [demo] actions entries must be tables, got {value!r}")
        unknown = sorted(set(value) - {"click", "at"})
        if unknown:
            raise ValueError(f"{where}: [demo] actions entry has unknown keys {unknown}")
        click, at = value.get("click"), value.get("at", 0)
        if not isinstance(click, str) or not click.strip():
            raise ValueError(f"{where}: [demo] actions click must be a non-empty CSS selector")
        if isinstance(at, bool) or not isinstance(at, int | float) or not 0 <= at < 1e6:
            raise ValueError(f"{where}: [demo] actions at must be a number of seconds >= 0")
        return cls(click=click, at=float(at))

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"click": self.click, "at": self.at}


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
        click: hedron: a CSS selector the reader clicks once htmx has started (the same as
            ``actions = [{click = "..."}]``).
        actions: hedron: the reader's clicks, each at its time (:class:`Action`), in order.
        adapter: resq: ``"requests"`` (default) or ``"httpx"``.
        timeout: resq: the client's network timeout in seconds (default 5).
    """

    interval: float = 1.0
    window: float = 30.0
    runner: str | None = None
    page: str = "/"
    click: str | None = None
    actions: tuple[Action, ...] = ()
    adapter: str = "requests"
    timeout: float = 5.0

    @classmethod
    def parse(cls, table: dict[str, Any], where: str) -> Demo:
        """Check and read a ``[demo]`` table (every key is named in its error)."""
        unknown = sorted(set(table) - {f.name for f in fields(cls)})
        if unknown:
            raise ValueError(f"{where}: [demo] has unknown keys {unknown}")
        raw = table.pop("actions", None)
        if raw is not None and "click" in table:
            raise ValueError(f"{where}: [demo] has both click and actions (click is one action)")
        if raw is not None and (not isinstance(raw, list) or not raw):
            raise ValueError(f"{where}: [demo] actions must be a non-empty list of tables")
        actions = tuple(Action.parse(a, where) for a in raw or ())
        demo = cls(**table, actions=actions)
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
        late = [a.at for a in demo.actions if a.at >= demo.window]
        if late:
            raise ValueError(f"{where}: [demo] actions at {late[0]:g} s lies beyond the window")
        return demo

    @property
    def scripted(self) -> tuple[Action, ...]:
        """Every scripted action: ``actions``, or ``click`` as one action at 0 s."""
        if self.click is not None:
            return (Action(self.click),)
        return self.actions

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form (what the page's demo panel is told)."""
        return {
            "interval": self.interval,
            "window": self.window,
            "page": self.page,
            "actions": [a.as_dict() for a in self.scripted],
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
        real: Its ``[real]`` table: what a real run needs that a browser cannot run (then
            the recipe has no "Try it").
        sources: The reader's edited files (``{file name: text}``, see :meth:`edited`),
            loaded instead of the folder's; empty for the tested recipe.
    """

    name: str
    folder: Path
    library: str
    title: str = ""
    demo: Demo = field(default_factory=Demo)
    real: Real | None = None
    sources: Mapping[str, str] = field(default_factory=dict)

    @property
    def editable(self) -> str:
        """The file a reader may edit in the "Try it" editor: the one that drives the demo,
        ``client.py`` (:attr:`driver` ``"client"``) or the app, ``app.py``."""
        return "client.py" if self.driver == "client" else self.app_file

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

    def load(self, filename: str) -> ModuleType:
        """Import ``filename`` from the folder as a fresh module (new state every run); an
        edited file (:attr:`sources`) is compiled from its text, under its own name (so a
        traceback says ``File "client.py", line 12``)."""
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

    @property
    def transcript_path(self) -> Path:
        """The committed transcript."""
        return self.folder / "transcript.txt"


def load_recipe(name: str, root: Path | None = None) -> Recipe:
    """Read ``<root>/<name>/recipe.toml``.

    Raises:
        ValueError: no recipe of that name, its ``library`` is unknown, or its ``[demo]``
            or ``[real]`` table is wrong (the message names the key).
    """
    folder = (root or recipes_root()) / name
    toml = folder / "recipe.toml"
    if not toml.is_file():
        raise ValueError(f"recipe: no recipe named {name!r} (looked for {toml})")
    data = tomllib.loads(toml.read_text(encoding="utf-8"))
    library = data.get("library")
    if library not in ("resq", "hedron"):
        raise ValueError(f"recipe {name!r}: library must be 'resq' or 'hedron', got {library!r}")
    where = f"recipes/{name}/recipe.toml"
    demo = Demo.parse(dict(data.get("demo", {})), where)
    real = Real.parse(data["real"], where) if "real" in data else None
    title = str(data.get("title", name))
    return Recipe(name=name, folder=folder, library=library, title=title, demo=demo, real=real)
