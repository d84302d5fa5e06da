"""Paste an example's documented blocks into bash, as a reader would, and report what happened.

Run by ``test_examples_e2e.py`` inside a network namespace of its own (``unshare --net``), so
the block's fixed port (8000) is free and several examples run side by side::

    unshare --net -- python paste_harness.py SPEC.json

SPEC names the example's folder, the ``bin/`` of the virtualenv to put first on ``PATH``, and
the blocks of its page and README (see :func:`main`). The harness brings up loopback, pipes
the run block into ``bash -s`` (what pasting does, one line after the other) and:

- a client run (resq): waits for bash to finish and records what the block printed;
- an app (hedron): waits until the app listens, opens the URL the README names (as a browser
  does: the visible text of the page), pastes the README's curl block into another bash,
  tries the README's CSRF claims, serves each extra app the README names and drives it, then
  presses Ctrl+C (SIGINT to the process group, as a terminal does).

Either way it then records whether the server is gone. A ``taken`` spec first puts another
HTTP server on the port (recording the paths it is asked for), then pastes the run block and
waits for bash to finish. It prints one JSON object.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

from examples_browser_driver import drive

from tryit._seen import answer_seen

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 15.0
BLOCK_TIMEOUT_S = 150.0


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _wait(condition: Any, timeout: float) -> bool:
    """Poll ``condition`` (another process's state: no event to wait on) with a deadline."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _paste(block: str, spec: dict[str, Any], **kwargs: Any) -> subprocess.Popen[str]:
    """``bash -s`` in the example's folder, reading ``block`` as if pasted."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = f"{spec['bin']}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(Path(spec["bin"]).parent)
    with tempfile.TemporaryFile("w+") as pasted:  # bash reads it line by line, as typed
        pasted.write(block + "\n")
        pasted.seek(0)
        return subprocess.Popen(
            ["bash", "-s"],
            cwd=spec["folder"],
            env=env,
            stdin=pasted,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            **kwargs,
        )


def _finish(proc: subprocess.Popen[str], timeout: float) -> dict[str, Any]:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return {"code": None, "stdout": out, "stderr": err + "\n[harness: timed out]"}
    return {"code": proc.returncode, "stdout": out, "stderr": err}


def _stop(proc: subprocess.Popen[str]) -> dict[str, Any]:
    """Ctrl+C: SIGINT to the foreground process group; then whether everything is gone."""
    os.killpg(proc.pid, signal.SIGINT)
    result = _finish(proc, STOP_TIMEOUT_S)
    result["group_gone"] = _wait(lambda: not _group_alive(proc.pid), STOP_TIMEOUT_S)
    if result["group_gone"] is False:
        os.killpg(proc.pid, signal.SIGKILL)
    return result


def _visible_text(body: str, content_type: str) -> str:
    """What a transcript line says of a whole page (``page "TaskFlow"``)."""
    return answer_seen(body, content_type, status=200)


def _post(url: str, data: dict[str, str], jar: CookieJar, headers: dict[str, str]) -> int:
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    body = urllib.parse.urlencode(data).encode()
    try:
        with opener.open(urllib.request.Request(url, body, headers), timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        exc.close()
        return int(exc.code)


def _csrf_claims(spec: dict[str, Any]) -> dict[str, int]:
    """The README's CSRF claims, tried: no token -> 403; token as a form field -> accepted."""
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(spec["open"], timeout=10) as response:
        page = response.read().decode()
    marker = 'name="csrf_token" value="'
    token = page.split(marker, 1)[1].split('"', 1)[0] if marker in page else ""
    url = spec["submit_url"]
    fields = dict(urllib.parse.parse_qsl(spec.get("form_data", "")))
    return {
        "without_token": _post(url, fields, jar, {}),
        "token_as_field": _post(url, {**fields, "csrf_token": token}, jar, {}),
    }


def _client_run(spec: dict[str, Any]) -> dict[str, Any]:
    result = _finish(_paste(spec["run"], spec), BLOCK_TIMEOUT_S)
    result["port_closed"] = _wait(lambda: not _listening(spec["port"]), STOP_TIMEOUT_S)
    return result


def _app_run(spec: dict[str, Any]) -> dict[str, Any]:
    report: dict[str, Any] = {}
    server = _paste(spec["run"], spec)
    try:
        up = _wait(lambda: _listening(spec["port"]) or server.poll() is not None, START_TIMEOUT_S)
        report["listening"] = up and server.poll() is None
        if not report["listening"]:
            report["server"] = _finish(server, 1)
            return report
        with urllib.request.urlopen(spec["open"], timeout=10) as response:
            body = response.read().decode()
            report["page"] = {
                "status": response.status,
                "seen": _visible_text(body, response.headers.get("content-type", "")),
            }
        curl = _finish(_paste(spec["curl"], spec), BLOCK_TIMEOUT_S)
        final = Path(spec["folder"]) / "answer.html"
        curl["final_body"] = final.read_text() if final.is_file() else None
        report["curl"] = curl
        if spec.get("submit_url"):
            report["csrf"] = _csrf_claims(spec)
    finally:
        report["server"] = _stop(server)
    report["port_closed"] = _wait(lambda: not _listening(spec["port"]), STOP_TIMEOUT_S)
    report["extras"] = {}
    for command in spec.get("extras", []):
        extra = _paste(command, spec)
        try:
            _wait(lambda p=extra: _listening(spec["port"]) or p.poll() is not None, START_TIMEOUT_S)
            outcome = drive(spec["base"])
            report["extras"][command] = {
                "final_status": outcome.final_status,
                "final_state": outcome.final_state,
                "steps": outcome.steps,
            }
        except Exception as exc:  # reported: the test shows what went wrong
            report["extras"][command] = {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            report["extras"][command]["stop"] = _stop(extra)
    return report


class _Squatter(http.server.SimpleHTTPRequestHandler):
    """Another program's server on the example's port: answers 404, records each path."""

    def do_GET(self) -> None:
        self.server.paths.append(self.path)  # type: ignore[attr-defined]
        self.send_error(404)

    def log_message(self, format: str, *args: object) -> None:
        pass


def _taken_run(spec: dict[str, Any]) -> dict[str, Any]:
    handler = functools.partial(_Squatter, directory=spec["folder"])
    with http.server.ThreadingHTTPServer(("127.0.0.1", spec["port"]), handler) as squatter:
        squatter.paths = []  # type: ignore[attr-defined]
        thread = threading.Thread(target=squatter.serve_forever, args=(0.05,), daemon=True)
        thread.start()  # listening already: bound and listening before the thread starts
        try:
            result = _finish(_paste(spec["run"], spec), BLOCK_TIMEOUT_S)
        finally:
            squatter.shutdown()
            thread.join(timeout=5)
        result["squatter_paths"] = list(squatter.paths)  # type: ignore[attr-defined]
    return result


def main(argv: list[str]) -> int:
    """``SPEC.json`` keys: ``folder``, ``bin``, ``kind`` (``client``, ``app``, ``taken``), ``run``,
    ``port``; apps also ``base``, ``open``, ``curl``, ``submit_url``, ``form_data``,
    ``extras``."""
    spec = json.loads(Path(argv[1]).read_text())
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    runs = {"client": _client_run, "app": _app_run, "taken": _taken_run}
    report = runs[spec["kind"]](spec)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
