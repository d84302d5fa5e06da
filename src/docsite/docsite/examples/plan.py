"""What a recipe folder says about its standalone example: ``recipe.toml``, how it runs, what
it shows (part of ``scripts/examples.py``, which re-exports :class:`Recipe` and the loaders).

A recipe's ``run`` lists its commands the way a reader would type them: one ``uvicorn``
command, either in the background (``… &``) followed by the client command(s), or alone in the
foreground (a hedron app the reader opens in a browser); before it, services it needs, each in
the background (``redis-server … &``, ``celery … worker &``). :func:`run_plan` reads them, and the
shell blocks the page, the README, the manifest and the download script's "Next:" show are
derived from that plan here, once: :func:`setup_block`, :func:`run_block`, :func:`curl_block`.
What a run must end with comes from the recipe's ``transcript.txt`` (:class:`Transcript`).
"""

from __future__ import annotations

import ast
import re
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

LIBRARIES = ("resq", "hedron")
GENERATED_FILES = ("requirements.txt", "README.md")
#: Where downloaded examples keep the wheels of this build (``requirements.txt`` names them).
WHEELS_DIR = "wheels"
DEFAULT_PORT = 8000
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_FORM_RE = re.compile(r"^[\w.~%-]+=[\w.~%-]*(?:&[\w.~%-]+=[\w.~%-]*)*$")


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
        run: the reader's commands, e.g. ``("uvicorn server:app --port 8000 &",
            "python client.py")`` (see :func:`run_plan`).
        requirements: what the example needs installed (``"hedron"``, ``"uvicorn"``, ...).
        form_data: hedron apps with a form: the fields ``curl -d`` sends with it besides the
            CSRF token (``"steps=3"``); empty when the form has none.
        in_browser: the recipe runs in the browser demo (it has no ``[real]`` table, which
            says what a real run needs besides it: the transcript is a real run's).
        later: what the recorded run does after opening the page and submitting its form
            (the ``[demo]`` actions after the first, a ``[real]`` restart), in words; the
            transcript's last answer comes after them.
    """

    name: str
    folder: Path
    title: str
    summary: str
    library: str
    files: tuple[str, ...]
    run: tuple[str, ...]
    requirements: tuple[str, ...]
    form_data: str = ""
    in_browser: bool = True
    later: tuple[str, ...] = ()


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
        ValueError: a field is missing or malformed, an exported file does not exist, or the
            ``run`` commands do not have a shape :func:`run_plan` knows.

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
    if '"' in texts["summary"]:
        # the summary is the page's <meta name="description">, which the theme does not escape
        raise ValueError(f"{where}: summary must not contain a double quote (use ' or `)")
    if texts["library"] not in LIBRARIES:
        raise ValueError(f"{where}: library must be one of {LIBRARIES}, got {texts['library']!r}")
    files = _string_list(data, "files", where)
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
    form_data = data.get("form_data", "")
    if not isinstance(form_data, str) or (form_data and not _FORM_RE.match(form_data)):
        raise ValueError(
            f"{where}: form_data must be URL-encoded fields such as 'steps=3', got {form_data!r}"
        )
    recipe = Recipe(
        name=folder.name,
        folder=folder,
        title=texts["title"],
        summary=texts["summary"],
        library=texts["library"],
        files=files,
        run=_string_list(data, "run", where),
        requirements=_string_list(data, "requirements", where),
        form_data=form_data,
        in_browser="real" not in data,
        later=_later(data),
    )
    run_plan(recipe)  # refuses a run it cannot turn into a block that works when pasted
    return recipe


def _later(data: Mapping[str, object]) -> tuple[str, ...]:
    """The recorded run's scripted events after its first click, in words (``recipe.toml``
    itself is checked by the demo driver, ``src/tryit``)."""
    demo, real = data.get("demo"), data.get("real")
    later = []
    actions = demo.get("actions", []) if isinstance(demo, dict) else []
    for action in actions[1:] if isinstance(actions, list) else []:
        if isinstance(action, dict):
            later.append(f"at {action.get('at', 0):g} s it clicks `{action.get('click')}`")
    restart = real.get("restart") if isinstance(real, dict) else None
    if isinstance(restart, dict):
        later.append(
            f"at {restart.get('stop'):g} s it stops the server with Ctrl+C and at "
            f"{restart.get('start'):g} s starts it again"
        )
    return tuple(later)


def load_recipes(recipes_dir: Path) -> list[Recipe]:
    """Return every recipe under ``recipes_dir`` (folders holding a ``recipe.toml``), by name."""
    if not recipes_dir.is_dir():
        return []
    folders = sorted(p.parent for p in recipes_dir.glob("*/recipe.toml"))
    return [load_recipe(folder) for folder in folders]


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


def run_plan(recipe: Recipe) -> RunPlan:
    """Read the recipe's ``run`` commands (its own ``pip install`` lines are left out).

    Two shapes work when pasted: ``uvicorn … &`` then the client commands (the generated block
    waits for the server, runs them and stops the server), or one foreground ``uvicorn …``
    (stopped with Ctrl+C). Either may follow services started in the background
    (``redis-server … &``), which the block stops at its end.

    Raises:
        ValueError: any other shape, naming the recipe and ``run``.
    """
    where = f"recipe {recipe.name!r}: run"
    commands = [c.strip() for c in recipe.run if not c.startswith(("pip install", "python -m pip"))]
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


VENV_LINE = "python3 -m venv .venv && . .venv/bin/activate"
INSTALL_LINE = "pip install --require-hashes -r requirements.txt"
SERVER_VAR = "SERVER"


def download_line(name: str, site_url: str) -> str:
    """The download command that fails loudly: curl's error stops the line before python."""
    return (
        f"curl -fsSL {site_url}download_example.py -o download_example.py \\\n"
        f"  && python3 download_example.py {name}"
    )


def setup_block(name: str) -> list[str]:
    """After the download: the venv inside the example's folder, and the hash-checked install."""
    return [f"cd {name}", VENV_LINE, INSTALL_LINE]


def service_var(index: int) -> str:
    """The shell variable holding the pid of the plan's service ``index`` (0-based)."""
    return f"SERVICE{index + 1}"


def run_block(plan: RunPlan) -> list[str]:
    """The run commands, pasted as one block into bash (see :func:`run_plan`)."""
    services = [f"{c} & {service_var(i)}=$!" for i, c in enumerate(plan.services)]
    stop = " ".join(f"${service_var(i)}" for i in range(len(plan.services)))
    if not plan.background:
        if not services:
            return [plan.server.command]
        return [
            "# Start the services in the background, then the app: Ctrl+C stops the app, and",
            "# the services with it.",
            *services,
            f"{plan.server.command}; kill {stop}",
        ]
    wait = f"curl -s -o /dev/null --retry 30 --retry-connrefused --retry-delay 1 {plan.server.url}/"
    what = "the services and the server" if services else "the server"
    return [
        f"# Start {what} in the background, wait until it answers, run the client, stop "
        + ("them." if services else "it."),
        *services,
        f"{plan.server.command} & {SERVER_VAR}=$!",
        " \\\n  && ".join([wait, *plan.clients]),
        " ".join([f"kill ${SERVER_VAR}", stop]).strip(),
    ]


@dataclass(frozen=True)
class Step:
    """One request of a transcript: ``t=2s GET /path -> 200 OK | what the reader sees``."""

    time: str
    method: str
    path: str
    status: int
    line: str  #: the whole line
    seen: str  #: what the reader sees (``…`` ends a shortened text)


_STEP_RE = re.compile(r"^(t=\S+) ([A-Z]+) (\S+) -> (\d{3})[^|]*\| ?(.*)$")


@dataclass(frozen=True)
class Transcript:
    """A recipe's ``transcript.txt``: its requests and what its code printed (``> …``)."""

    steps: tuple[Step, ...]
    printed: tuple[str, ...]

    @property
    def page(self) -> Step | None:
        """The first request (a hedron app: the page the reader opens)."""
        return self.steps[0] if self.steps else None

    @property
    def submit(self) -> Step | None:
        """The first POST (a hedron app: its form submitted), if any."""
        return next((s for s in self.steps if s.method == "POST"), None)

    @property
    def last(self) -> Step | None:
        """The last request (a hedron app: the answer that stops polling)."""
        return self.steps[-1] if self.steps else None


def read_transcript(folder: Path) -> Transcript | None:
    """Parse ``folder/transcript.txt``; ``None`` when the recipe has none recorded yet."""
    path = folder / "transcript.txt"
    if not path.is_file():
        return None
    steps, printed = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("> "):
            printed.append(line[2:])
        elif match := _STEP_RE.match(line):
            time, method, where, status, seen = match.groups()
            steps.append(Step(time, method, where, int(status), line, seen))
    return Transcript(tuple(steps), tuple(printed))


def curl_block(plan: RunPlan, transcript: Transcript | None, form_data: str = "") -> list[str]:
    """A hedron app driven by curl as a browser with htmx would: open the page (its cookies
    and CSRF token), submit the form when the app has one, then poll until HTTP 286.

    The form's path comes from the transcript's first POST; the status URL from the answer.
    """
    page = transcript.page.path if transcript and transcript.page else "/"
    submit = transcript.submit if transcript else None
    lines = [
        f"BASE_URL={plan.server.url}",
        "# 1. Open the page: it sets the session and CSRF cookies and carries the token.",
        f'curl -s -c cookies.txt "$BASE_URL{page}" -o answer.html',
    ]
    if submit is not None:
        data = shlex.quote(form_data) if form_data else "''"
        lines += [
            'TOKEN=$(grep -o \'name="csrf_token" value="[^"]*"\' answer.html | cut -d\'"\' -f4)',
            f"# 2. Submit the form ({submit.method} {submit.path}) with that token (else: 403).",
            'curl -s -b cookies.txt -c cookies.txt -H "X-CSRF-Token: $TOKEN"'
            f' -d {data} "$BASE_URL{submit.path}" -o answer.html',
        ]
    lines += [
        f"# {3 if submit else 2}. Poll the status URL the answer names until it says HTTP 286.",
        "STATUS=$(grep -o 'hx-get=\"[^\"]*\"' answer.html | head -n 1 | cut -d'\"' -f2)",
        "for attempt in $(seq 30); do",
        "  CODE=$(curl -s -b cookies.txt -o answer.html -w '%{http_code}' \"$BASE_URL$STATUS\")",
        '  echo "GET $STATUS -> $CODE"',
        '  [ "$CODE" = 286 ] && break',
        "  sleep 1",
        "done",
        "cat answer.html; echo",
    ]
    return lines


@dataclass(frozen=True)
class FileInfo:
    """An exported file as the README describes it."""

    name: str
    about: str  #: first line of its docstring, or ``""``
    command: str  #: a hedron module the run does not serve: the command serving it instead


def _docstring_line(path: Path) -> str:
    if path.suffix != ".py":
        return ""
    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    except SyntaxError:
        return ""
    return doc.strip().splitlines()[0] if doc else ""


def file_infos(recipe: Recipe, plan: RunPlan) -> list[FileInfo]:
    """Each exported file: what it is for (its docstring) and, for an app the run does not
    start (``advanced.py``), the command that serves it instead."""
    started = plan.server.app.split(":")[0]
    infos = []
    for name in recipe.files:
        path = recipe.folder / name
        module = name.removesuffix(".py")
        command = ""
        serves_app = name.endswith(".py") and "/" not in name and module != started
        text = path.read_text(encoding="utf-8") if serves_app else ""
        if not plan.background and re.search(r"^app\s*[:=]", text, flags=re.MULTILINE):
            command = plan.server.for_module(module)
        infos.append(FileInfo(name=name, about=_docstring_line(path), command=command))
    return infos


def reads_base_url(recipe: Recipe, plan: RunPlan) -> bool:
    """Whether the client commands' files read ``BASE_URL`` from the environment."""
    scripts = [w for c in plan.clients for w in shlex.split(c) if w.endswith(".py")]
    return any(
        "BASE_URL" in (recipe.folder / s).read_text(encoding="utf-8")
        for s in scripts
        if (recipe.folder / s).is_file()
    )
