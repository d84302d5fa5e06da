"""The poll-component recipe runs to its terminal state (count-based, in-process)."""

from __future__ import annotations

import re
from types import ModuleType

import httpx
import pytest
from hedron_support import SECRET

from tryit.recipe import load_recipe


def load(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.setenv("HEDRON_SESSION_SECRET", SECRET)
    return load_recipe("poll-component").load("app.py")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_recipe_polls_until_286(monkeypatch: pytest.MonkeyPatch, anyio_backend: str) -> None:
    app = load(monkeypatch).app
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        page = await client.get("/")
        assert page.status_code == 200
        path = re.search(r'hx-get="(/runs/\d+/status)"', page.text)
        assert path is not None
        assert 'hx-trigger="every 1000ms"' in page.text
        answers = []
        for _ in range(3):
            r = await client.get(path.group(1), headers={"HX-Request": "true"})
            answers.append((r.status_code, re.sub(r"<[^>]+>", " ", r.text).split()))
        assert answers == [
            (200, ["Working…", "check", "1", "of", "3", "Progress", "1/3"]),
            (200, ["Working…", "check", "2", "of", "3", "Progress", "2/3"]),
            (286, ["Done", "after", "3", "checks"]),
        ]
        again = await client.get(path.group(1))
        assert again.status_code == 286
        assert "No run" in again.text
