"""Start two reports, then follow the second one's events as they come."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import httpx


def events(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, object]]]:
    """Server-Sent Events from a response's lines: ``(event, data)`` at each blank line."""
    event, data = "message", ""
    for line in lines:
        if line.startswith("event:"):
            event = line[len("event:") :].strip()
        elif line.startswith("data:"):
            data += line[len("data:") :].strip()
        elif not line and (data or event != "message"):
            yield event, json.loads(data or "{}")
            event, data = "message", ""


def describe(data: dict[str, object]) -> list[object]:
    """A status event in a few words: its state, then its progress or result."""
    if not data:  # "end" carries no data
        return []
    progress = data.get("progress")
    if data.get("terminal"):
        return [data["state"], data.get("result")]
    if isinstance(progress, dict):
        return [data["state"], f"{progress['k']}/{progress['n']}", progress["message"]]
    return [data["state"]]


def main(base_url: str) -> None:
    with httpx.Client(base_url=base_url, timeout=30) as client:
        client.post("/reports")  # takes the one worker
        second = client.post("/reports").json()  # waits for it: queued
        with client.stream("GET", second["events"]) as stream:
            for event, data in events(stream.iter_lines()):
                print(event, *describe(data))


if __name__ == "__main__":
    main(os.environ.get("BASE_URL", "http://127.0.0.1:8000"))
