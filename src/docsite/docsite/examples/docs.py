"""The words of a standalone example: its ``README.md`` and the quickstart a recipe page shows
(part of the example tree, ``docsite.examples.tree``). Every command in them comes from
:mod:`docsite.examples.plan`'s blocks, the same ones the manifest and the download script's
"Next:" carry; every expected line comes from the recipe's transcript."""

from __future__ import annotations

import tomllib
from pathlib import Path

from docsite.examples.plan import (
    AND,
    INSTALL_LINE,
    SERVER_VAR,
    VENV_LINE,
    WHEELS_DIR,
    Recipe,
    RunPlan,
    Transcript,
    chained,
    curl_block,
    download_line,
    file_infos,
    later,
    read_transcript,
    reads_base_url,
    run_block,
    setup_block,
)
from docsite.paths import REPO

#: Titles of the quickstart's shell blocks (the tests find the blocks by them).
SETUP_TITLE = "Download and install"
RUN_TITLE = "Run"
CURL_TITLE = "Drive it with curl"


def python_needed(root: Path = REPO) -> str:
    """The Python the resq and hedron wheels need, in words (``Python 3.11 or newer``), from
    their ``requires-python``.

    Raises:
        ValueError: a ``requires-python`` is not of the form ``>=3.N``.
    """
    lowest = []
    for dist in ("resq", "hedron"):
        path = root / "src" / dist / "pyproject.toml"
        spec = str(tomllib.loads(path.read_text(encoding="utf-8"))["project"]["requires-python"])
        version = spec.removeprefix(">=").strip()
        if not spec.startswith(">=") or not version.replace(".", "").isdigit():
            raise ValueError(f"requires-python: {path} says {spec!r}, not >=3.N")
        lowest.append(tuple(int(part) for part in version.split(".")))
    return "Python " + ".".join(map(str, max(lowest))) + " or newer"


def fence(lines: list[str], lang: str = "bash", title: str = "") -> str:
    """A fenced code block (``title`` shows above it on the site)."""
    head = f'```{lang} title="{title}"' if title else f"```{lang}"
    return "\n".join([head, *lines, "```"])


def _quote(text: str) -> str:
    return "“" + text.rstrip("…").rstrip() + ("…”" if text.endswith("…") else "”")


def _hedron_sees(recipe: Recipe, plan: RunPlan, transcript: Transcript | None) -> str:
    url = plan.server.url + (transcript.page.path if transcript and transcript.page else "/")
    if transcript is None or transcript.page is None or transcript.last is None:
        return f"Open <{url}> in a browser (stop the server with Ctrl+C)."
    then = "Submit its form: the" if transcript.submit else "The"
    title = transcript.page.title
    shows = f"the page {_quote(title)}" if title is not None else _quote(transcript.page.text)
    opened = f"Open <{url}> in a browser: it shows {shows}."
    if later(recipe):
        return (
            f"{opened} {then} status region asks the app for news until it answers HTTP 286 "
            "(htmx's stop-polling status). The run recorded below does more: "
            + "; ".join(later(recipe))
            + f"; its last answer reads {_quote(transcript.last.text)}. Stop the server with "
            "Ctrl+C."
        )
    return (
        f"{opened} {then} status region asks the app for news until it answers HTTP 286 "
        f"(htmx's stop-polling status) with {_quote(transcript.last.text)}. Stop the server "
        "with Ctrl+C."
    )


def _expected(recipe: Recipe, plan: RunPlan, transcript: Transcript | None) -> str:
    """What the run ends with: the client's lines, or what the browser shows."""
    if not plan.background:
        return _hedron_sees(recipe, plan, transcript)
    if transcript is None or not transcript.printed:
        return "The client prints its result; the block then stops the server."
    last = transcript.last
    seconds = round(float(last.time.removeprefix("t=").removesuffix("s"))) if last else 0
    when = f"After about {seconds} s, it" if seconds >= 1 else "It"
    return f"{when} prints (uvicorn logs only warnings):\n\n" + fence(
        list(transcript.printed), "text"
    )


def quickstart(recipe: Recipe, site_url: str) -> str:
    """The Markdown a recipe page shows under "Run it on your machine" (no heading)."""
    plan = recipe.plan
    transcript = read_transcript(recipe.folder)
    name = recipe.name
    setup = [download_line(name, site_url) + AND + setup_block(name)[0]]
    if plan.background:
        how = (
            "Then run it, pasting the block as one: it starts the server in the background, "
            "waits until it answers, runs the client and stops the server. If another server "
            f"already answers on port {plan.server.port}, it says so and stops."
        )
    else:
        how = "Then start the app:"
    archive = f"{site_url}examples/{name}.tar.gz"
    archive_lines = [
        chained(
            [
                f"curl -fsSLO {archive}",
                f"curl -fsSLO {archive}.sha256",
                f"sha256sum -c {name}.tar.gz.sha256",
                f"tar xzf {name}.tar.gz",
            ]
        )
    ]
    more = (
        "what the client asks the server"
        if plan.background
        else "how to drive the app with curl, CSRF token included"
    )
    return f"""The wheels need {python_needed()} (`python3 --version` says which you have).
These commands download the example from this site, <{site_url}>. The download script checks
every file against the site's sha256 manifest, and writes nothing unless all of them match.
The block stops at the first command that fails. The example installs into a virtual
environment inside its own folder, every package pinned by hash.

{fence(setup, title=SETUP_TITLE)}

{how}

{fence(run_block(plan), title=RUN_TITLE)}

{_expected(recipe, plan, transcript)}

The example's `README.md` says what each file is for, how to point it elsewhere and {more}.
Or take the archive and check it yourself (on macOS: `shasum -a 256 -c`):

{fence(archive_lines)}
"""


def _files_section(recipe: Recipe, plan: RunPlan, wheels: list[str]) -> str:
    lines = []
    for info in file_infos(recipe, plan):
        about = f": {info.about}" if info.about else ""
        lines.append(f"- `{info.name}`{about}")
        if info.command:
            lines.append(f"  Serve it instead of `{plan.server.app}` with `{info.command}`.")
    for wheel in wheels:
        lines.append(f"- `{WHEELS_DIR}/{wheel}`: the wheel of this documentation build.")
    above = "the wheels above, " if len(wheels) > 1 else "the wheel above, " if wheels else ""
    lines.append(
        f"- `requirements.txt`: every package pinned by sha256 ({above}the other packages at "
        "the versions the test suite ran with)."
    )
    lines.append("- `README.md`: this file.")
    return "\n".join(lines)


def _resq_sections(recipe: Recipe, plan: RunPlan, transcript: Transcript | None) -> str:
    out = []
    if transcript is not None and transcript.steps:
        requests = [s.line for s in transcript.steps]
        out.append(
            "The client's requests, as the test suite recorded them (`t=` is the time since "
            "the first one; each line shows the status and the answer):\n\n"
            + fence(requests, "text")
        )
    stop = (
        f"The block stops the server itself (`kill ${SERVER_VAR}`). If you stop the block "
        f"half-way, stop the server with `kill ${SERVER_VAR}` (or `kill %1` in the same shell)."
    )
    out.append("## Stop the server\n\n" + stop)
    if reads_base_url(recipe, plan):
        port = plan.server.port + 1
        out.append(
            "## Point it elsewhere\n\n"
            f"The client asks `BASE_URL` (default `{plan.server.url}`). With the server "
            f"started on another port (`--port {port}` in its command), tell the client:\n\n"
            + fence([f"BASE_URL=http://127.0.0.1:{port} python {_client_file(plan)}"])
        )
    return "\n\n".join(out)


def _client_file(plan: RunPlan) -> str:
    words = [w for c in plan.clients for w in c.split() if w.endswith(".py")]
    return words[0] if words else "client.py"


def _hedron_sections(recipe: Recipe, plan: RunPlan, transcript: Transcript | None) -> str:
    out = []
    if transcript is not None and transcript.steps:
        where = "in the browser demo" if recipe.in_browser else "in a real run"
        out.append(
            f"What the page asks and shows, as the test suite recorded it {where} "
            "(`t=` is the time since the page opened; each line shows the request, its status "
            "and the text the page then shows):\n\n"
            + fence([s.line for s in transcript.steps], "text")
        )
    csrf = ""
    if transcript is not None and transcript.submit is not None:
        csrf = (
            " A form's POST must carry the page's CSRF token: send the cookies the page set "
            "(`-b cookies.txt`) and the token from the form's hidden `csrf_token` field, as the "
            "`X-CSRF-Token` header (what htmx sends) or as a `csrf_token` form field. Without "
            "it the app answers `403`."
        )
    out.append(
        "## Drive it with curl\n\n"
        "In a second terminal (same folder), while the server runs: the commands do what "
        "htmx does in the browser."
        + csrf
        + " `BASE_URL` says where the app is.\n\n"
        + fence(curl_block(plan, transcript, recipe.form_data), title=CURL_TITLE)
        + "\n\nIt prints the status of each poll and ends with the final fragment, the one "
        "answered with 286"
        + (" (it only submits the form: the job runs to its own end)" if later(recipe) else "")
        + ". The files it writes (`cookies.txt`, `answer.html`) are scratch."
    )
    out.append(
        "## Stop the server\n\nPress Ctrl+C in the terminal where uvicorn runs. Another port: "
        f"`{plan.server.command.replace(f'--port {plan.server.port}', '--port 8001')}`"
        " (then open that port, and set `BASE_URL` to it for curl)."
    )
    return "\n\n".join(out)


def readme(recipe: Recipe, site_url: str, wheels: list[str]) -> str:
    """Return the example's ``README.md``: what it shows, the exact commands, what to expect,
    how to stop and re-point it, and what each file is for."""
    plan = recipe.plan
    transcript = read_transcript(recipe.folder)
    if plan.background:
        what_run = (
            "Paste it as one block: it starts the server in the background, waits until it "
            "answers, runs the client and stops the server. If another server already answers "
            f"on port {plan.server.port}, it says so and stops."
        )
        sections = _resq_sections(recipe, plan, transcript)
    else:
        what_run = "It serves the app in the foreground until you press Ctrl+C."
        sections = _hedron_sections(recipe, plan, transcript)
    installs = ", ".join(f"`{w.split('-')[0]}`" for w in wheels) or "the example"
    return f"""# {recipe.title}

{recipe.summary}

A standalone copy of the recipe `{recipe.name}` from the resq + hedron documentation
({site_url}recipes/{recipe.name}/): the code files are byte for byte the ones the
documentation shows and tests.

## Install

The wheels need {python_needed()} (`python3 --version` says which you have). In this
folder (a POSIX shell: Linux, macOS, WSL), a virtual environment in `.venv`:

{fence([chained([VENV_LINE, INSTALL_LINE])])}

`requirements.txt` pins every package by sha256, so pip refuses anything else. It installs
{installs} from `{WHEELS_DIR}/` (the wheel this documentation was built with, no download) and
the other packages from your package index. On Windows: `py -3 -m venv .venv` and
`.venv\\Scripts\\activate`.

## Run

{fence(run_block(plan), title=RUN_TITLE)}

{what_run}

{_expected(recipe, plan, transcript)}

{sections}

## Files

{_files_section(recipe, plan, wheels)}

Check this folder against the site with `python3 download_example.py --check {recipe.name}`
(from the folder above this one). Generated by the maintainers with `python
scripts/examples.py`; do not edit by hand.
"""
