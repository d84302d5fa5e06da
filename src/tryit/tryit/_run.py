"""A recipe's ``run`` commands, read as a plan: services, one ``uvicorn`` server, clients.

A recipe's ``run`` lists its commands the way a reader types them: one ``uvicorn`` command,
either in the background (``… &``) followed by the client command(s), or alone in the
foreground (a hedron app the reader opens in a browser); before it, services it needs, each in
the background (``redis-server … &``, ``celery … worker &``). The example tree builds the
shell blocks a reader pastes from this plan (``docsite.examples.plan``).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

DEFAULT_PORT = 8000


@dataclass(frozen=True)
class Server:
    """The recipe's ``uvicorn`` command, as the reader runs it."""

    command: str  #: without a trailing ``&``
    app: str  #: ``module:attribute``
    port: int

    @property
    def url(self) -> str:
        """The address it listens on (``http://127.0.0.1:8000``), no trailing slash."""
        return f"http://127.0.0.1:{self.port}"

    def for_module(self, module: str) -> str:
        """The same command serving ``module``'s ``app`` instead (``uvicorn advanced:app``)."""
        return self.command.replace(self.app, f"{module}:app", 1)


@dataclass(frozen=True)
class RunPlan:
    """How an example runs: its server, in the background or not, and its client commands."""

    server: Server
    background: bool  #: the server runs behind the client commands, which end the run
    clients: tuple[str, ...]
    services: tuple[str, ...] = ()  #: started first, in the background (without the ``&``)


def _server(command: str, where: str) -> Server:
    words = shlex.split(command)
    app = next((w for w in words[1:] if not w.startswith("-") and ":" in w), None)
    if app is None:
        raise ValueError(f"{where}: run command {command!r} names no module:app to serve")
    port = DEFAULT_PORT
    for i, word in enumerate(words):
        value = words[i + 1] if word == "--port" and i + 1 < len(words) else None
        if word.startswith("--port="):
            value = word.split("=", 1)[1]
        if value is not None:
            if not value.isdigit():
                raise ValueError(f"{where}: run command {command!r} has a bad --port")
            port = int(value)
        if word == "--host" or word.startswith("--host=") or word == "--reload":
            raise ValueError(
                f"{where}: run command {command!r}: leave out {word.split('=')[0]} (the example "
                "serves 127.0.0.1, and a reloader would watch the example's .venv)"
            )
    return Server(command=command, app=app, port=port)


def parse_run(name: str, run: tuple[str, ...]) -> RunPlan:
    """Read a recipe's ``run`` commands (its own ``pip install`` lines are left out).

    Two shapes work when pasted: ``uvicorn … &`` then the client commands (the generated block
    waits for the server, runs them and stops the server), or one foreground ``uvicorn …``
    (stopped with Ctrl+C). Either may follow services started in the background
    (``redis-server … &``), which the block stops at its end.

    Raises:
        ValueError: any other shape, naming the recipe and ``run``.
    """
    where = f"recipe {name!r}: run"
    commands = [c.strip() for c in run if not c.startswith(("pip install", "python -m pip"))]
    servers = [i for i, c in enumerate(commands) if shlex.split(c)[:1] == ["uvicorn"]]
    if len(servers) != 1:
        raise ValueError(f"{where} must hold exactly one uvicorn command, got {commands!r}")
    first = commands[servers[0]]
    background = first.endswith("&")
    server = _server(first.removesuffix("&").strip(), where)
    clients = tuple(commands[servers[0] + 1 :])
    services = commands[: servers[0]]
    if any(not c.endswith("&") for c in services):
        raise ValueError(
            f"{where}: the commands before uvicorn are services and must run in the background "
            f"(end with &), got {commands!r}"
        )
    if background and not clients:
        raise ValueError(f"{where}: {first!r} runs in the background, but no command follows")
    if not background and clients:
        raise ValueError(f"{where}: {first!r} never returns, so {clients[0]!r} would never run")
    if any(c.endswith("&") for c in clients):
        raise ValueError(f"{where}: only the uvicorn command may run in the background")
    services = tuple(c.removesuffix("&").strip() for c in services)
    return RunPlan(server=server, background=background, clients=clients, services=services)
