"""Docstrings as the site shows them: no Sphinx role markup, table cells that render."""

from __future__ import annotations

import hedron_core
from docsite.griffe.examples import plain_roles
from docsite.pages import components as component_pages


def test_sphinx_roles_become_code_spans() -> None:
    assert plain_roles("see :data:`hedron_core.htmx.STOP_POLLING_STATUS`.") == (
        "see `hedron_core.htmx.STOP_POLLING_STATUS`."
    )
    assert plain_roles(":class:`~resq.http.Poller` and :meth:`Poller.step`") == (
        "`Poller` and `Poller.step`"
    )
    assert plain_roles("no roles: `code` stays") == "no roles: `code` stays"


def test_component_pages_show_no_role_markup_and_unescaped_types() -> None:
    pages = component_pages.pages()
    poll = pages["hedron/components/poll.md"]
    assert ":data:`" not in poll
    assert "&#124;" not in poll.split("## Props")[1].split("| `content` |")[1].split("|")[1]
    for text in pages.values():
        assert ":class:`" not in text
        assert ":data:`" not in text
    assert len(pages) >= len(hedron_core.registry())
