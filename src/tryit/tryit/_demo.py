"""A recipe's ``[demo]`` table: how its "Try it" demo (and the real replay) runs it."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from tryit import _checks


def doc(text: str, **kwargs: Any) -> Any:
    """A dataclass field documented for the ``recipe.toml`` reference (``metadata["doc"]``)."""
    return field(metadata={"doc": text}, **kwargs)


@dataclass(frozen=True)
class Action:
    """One of the reader's clicks in a hedron demo, at its time."""

    click: str = doc("A CSS selector of the page's element to click.")
    at: float = doc(
        "Seconds after htmx started (virtual seconds in the demo, real ones in a real run).",
        default=0.0,
    )

    @classmethod
    def parse(cls, value: Any, where: str) -> Action:
        """Check and read one ``actions`` entry (``{click = "...", at = 3}``)."""
        if not isinstance(value, dict):
            raise ValueError(f"{where}: [demo] actions entries must be tables, got {value!r}")
        _checks.only(value, {f.name for f in fields(cls)}, "[demo] actions entry", where)
        click = value.get("click")
        if not isinstance(click, str) or not click.strip():
            raise ValueError(f"{where}: [demo] actions click must be a non-empty CSS selector")
        at = _checks.seconds(value.get("at", 0), "[demo] actions at", where)
        return cls(click=click, at=at)

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"click": self.click, "at": self.at}


ADAPTERS = ("requests", "httpx")


@dataclass(frozen=True)
class Demo:
    """The ``[demo]`` table."""

    interval: float = doc(
        "Seconds between the recipe's polls (its client's `delay`, its page's poll interval). "
        "A transcript shows each request's time as its poll slot, a multiple of it, so a real "
        "run's latency does not show (an edited run's times are shown as they are). It must "
        "agree with the code: `scripts/recipe check` compares it with the code's interval.",
        default=1.0,
    )
    window: float = doc(
        "hedron: seconds after which the demo stops if the page still polls.", default=30.0
    )
    runner: str | None = doc(
        "The name of the module attribute holding the app's local job runner, if it has one "
        "(a `SteppingRunner` on the demo's virtual time, worker threads in a real run).",
        default=None,
    )
    page: str = doc("hedron: the page the demo opens, a path starting with `/`.", default="/")
    click: str | None = doc(
        "hedron: a CSS selector the reader clicks once htmx has started (one action at 0 s).",
        default=None,
    )
    actions: tuple[Action, ...] = doc(
        "hedron: the reader's clicks, each `{click = SELECTOR, at = SECONDS}`, in order "
        "(instead of `click`).",
        default=(),
    )
    adapter: str = doc("resq: the client's adapter, `requests` or `httpx`.", default="requests")
    timeout: float = doc("resq: the client's network timeout in seconds.", default=5.0)

    @classmethod
    def parse(cls, table: Any, where: str) -> Demo:
        """Check and read a ``[demo]`` table (every error names its key)."""
        if not isinstance(table, dict):
            raise ValueError(f"{where}: [demo] must be a table")
        table = dict(table)
        _checks.only(table, {f.name for f in fields(cls)}, "[demo]", where)
        raw = table.pop("actions", None)
        if raw is not None and "click" in table:
            raise ValueError(f"{where}: [demo] has both click and actions (click is one action)")
        if raw is not None and (not isinstance(raw, list) or not raw):
            raise ValueError(f"{where}: [demo] actions must be a non-empty list of tables")
        actions = tuple(Action.parse(a, where) for a in raw or ())
        for name in ("interval", "window", "timeout"):
            if name in table:
                table[name] = _checks.seconds(table[name], f"[demo] {name}", where, positive=True)
        for name in ("runner", "page", "click"):
            if name in table:
                table[name] = _checks.text(table[name], f"[demo] {name}", where)
        demo = cls(**table, actions=actions)
        if not demo.page.startswith("/"):
            raise ValueError(f"{where}: [demo] page must be a path starting with '/'")
        if demo.adapter not in ADAPTERS:
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
