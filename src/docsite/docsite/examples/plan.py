"""How a recipe's standalone example runs, and what it shows: the shell blocks a reader pastes
(part of the example tree, ``docsite.examples.tree``).

The recipe model (``tryit.recipe``) reads ``recipe.toml``, its ``run`` commands as a plan
(:attr:`tryit.recipe.Recipe.plan`). The shell blocks the page, the README, the manifest and
the download script's "Next:" show are derived from that plan here, once: :func:`setup_block`,
:func:`run_block`, :func:`curl_block`. What a run must end with comes from the recipe's
``transcript.txt`` (:class:`Transcript`).
"""

from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from tryit.recipe import GENERATED_FILES, LIBRARIES, WHEELS_DIR, Recipe, RunPlan

__all__ = ["GENERATED_FILES", "LIBRARIES", "WHEELS_DIR", "Recipe", "RunPlan"]


def later(recipe: Recipe) -> tuple[str, ...]:
    """The recorded run's scripted events after its first click, in words: the ``[demo]``
    actions after the first, a ``[real]`` restart. The transcript's last answer comes after
    them."""
    words = [f"at {a.at:g} s it clicks `{a.click}`" for a in recipe.demo.actions[1:]]
    restart = recipe.real.restart if recipe.real is not None else None
    if restart is not None:
        words.append(
            f"at {restart.stop:g} s it stops the server with Ctrl+C and at "
            f"{restart.start:g} s starts it again"
        )
    return tuple(words)


VENV_LINE = "python3 -m venv .venv && . .venv/bin/activate"
INSTALL_LINE = "pip install --require-hashes -r requirements.txt"
SERVER_VAR = "SERVER"
#: How the commands of a pasted block are joined: one per line, each run only when the one
#: before it succeeded, so the block stops at its first failure.
AND = " \\\n  && "


def chained(commands: list[str]) -> str:
    """``commands`` as one command line, one per line: pasted, it stops at the first failure."""
    return AND.join(commands)


def download_commands(name: str, site_url: str) -> list[str]:
    """Fetch the download script from the site, then download the example from that same site
    (``--base-url``: the command names the site it uses). curl's ``-f`` fails on an HTTP
    error instead of saving the error page."""
    return [
        f"curl -fsSL {site_url}download_example.py -o download_example.py",
        f"python3 download_example.py --base-url {site_url} {name}",
    ]


def download_line(name: str, site_url: str) -> str:
    """The download, as one chained command (a failed curl stops it before python)."""
    return chained(download_commands(name, site_url))


def setup_block(name: str) -> list[str]:
    """After the download, one chained command: into the example's folder, a venv there, the
    hash-checked install. (A failed ``cd`` never leaves a venv in the reader's folder.)"""
    return [chained([f"cd {name}", VENV_LINE, INSTALL_LINE])]


def service_var(index: int) -> str:
    """The shell variable holding the pid of the plan's service ``index`` (0-based)."""
    return f"SERVICE{index + 1}"


def port_taken(port: int) -> str:
    """What a run block says when another server already answers on its port."""
    return f"Another server answers on port {port}: stop it first."


def run_block(plan: RunPlan) -> list[str]:
    """The run commands, pasted as one block into bash (see :attr:`tryit.recipe.Recipe.plan`).

    A server in the foreground says itself when its port is taken (uvicorn: "address already
    in use"). A server in the background would not: the client would talk to whatever answers
    on the port, so the block first checks that nothing does.
    """
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
    url = f"{plan.server.url}/"
    wait = f"curl -s -o /dev/null --retry 30 --retry-connrefused --retry-delay 1 {url}"
    what = "the services and the server" if services else "the server"
    return [
        f"# Start {what} in the background, wait until it answers, run the client, stop "
        + ("them." if services else "it."),
        f"# First, make sure no other server answers on port {plan.server.port}.",
        f"if curl -s -o /dev/null {url}; then",
        f'  echo "{port_taken(plan.server.port)}" >&2',
        "else",
        *[f"  {line}" for line in services],
        f"  {plan.server.command} & {SERVER_VAR}=$!",
        "  " + " \\\n    && ".join([wait, *plan.clients]),
        "  " + " ".join([f"kill ${SERVER_VAR}", stop]).strip(),
        "fi",
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

    @property
    def title(self) -> str | None:
        """A whole page's title (``page "TaskFlow"``), else ``None``."""
        match = _PAGE_RE.match(self.seen)
        return match.group(1) if match else None

    @property
    def region(self) -> str:
        """The id of the region htmx swapped the answer into (``""``: none named)."""
        match = _REGION_RE.match(self.seen)
        return match.group(1) if match else ""

    @property
    def text(self) -> str:
        """What the answer reads, without the region it went into (``#status: Done.``)."""
        match = _REGION_RE.match(self.seen)
        return match.group(2) if match else self.seen


_PAGE_RE = re.compile(r'^page "(.*)"$')
_REGION_RE = re.compile(r"^#(\S+?)(?: not swapped)?: (.*)$")
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
