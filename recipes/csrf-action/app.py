"""CSRF-protected actions of your own: an @app.action, and a plain route with csrf_protect."""

from __future__ import annotations

import os
import secrets

from fastapi import Depends, Request
from fastapi import Form as FormField
from starlette.responses import JSONResponse

from hedron import Alert, Button, Component, Field, Form, Hedron, Input, Page, Stack, Text
from hedron.csrf import csrf_protect, csrf_token

app = Hedron(
    title="CSRF-protected actions",
    session_secret=os.environ.get("HEDRON_SESSION_SECRET") or secrets.token_urlsafe(48),
)
notes: list[str] = []


@app.page("/")
def home() -> Page:
    """The page carries the token: htmx sends it with every request, the form as a field."""
    form = Form(
        Field("Note", Input("text", required=True)),
        Button("Add the note", type="submit"),
        action="/notes",
    )
    return Page(Text(f"Notes so far: {len(notes)}."), form, title="Notes")


@app.action("/notes")
def add_note(text: str = FormField()) -> Component:
    """An unsafe hedron route: hedron checks the CSRF token before this runs (else 403)."""
    notes.append(text)
    return Stack(Alert(f"Saved: {text}", tone="success"), Text(f"Notes so far: {len(notes)}."))


@app.post("/api/notes", dependencies=[Depends(csrf_protect)])
def add_note_json(body: dict[str, str]) -> JSONResponse:
    """A plain FastAPI route: checked only because it asks for csrf_protect."""
    notes.append(body["text"])
    return JSONResponse({"notes": len(notes)}, status_code=201)


@app.get("/csrf-token")
def token(request: Request) -> dict[str, str | None]:
    """The token of this client's CSRF cookie, for a script (a page already carries it)."""
    return {"csrf_token": csrf_token(request)}
