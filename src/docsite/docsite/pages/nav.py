"""The nav: sections completed from the pages that exist, generated sections put in place."""

from __future__ import annotations

from typing import Any


def _entry_path(entry: Any) -> str | None:
    if isinstance(entry, str):
        return entry
    if isinstance(entry, dict) and len(entry) == 1:
        value = next(iter(entry.values()))
        return value if isinstance(value, str) else None
    return None


def expand_nav(
    nav: list[Any], available: set[str], sections: dict[str, list[Any]] | None = None
) -> list[Any]:
    """Complete the nav: drop listed pages that do not exist, append unlisted ones.

    A section whose value is a folder (``"recipes/"``) becomes every available page in that
    folder (its ``index.md`` first), or, when ``sections`` gives that folder a structure (the
    generated sections: learning paths, component groups, reference modules), that
    structure, with the folder's pages it does not list appended. A section listing pages of
    one folder gets the folder's other pages appended in file-name order.
    """
    sections = sections or {}
    out: list[Any] = []
    for entry in nav:
        if isinstance(entry, dict) and len(entry) == 1:
            ((title, value),) = entry.items()
            if isinstance(value, str) and value.endswith("/"):
                pages = _folder_pages(value, available)
                if value in sections:
                    structured = _keep(sections[value], available)
                    listed = _paths(structured)
                    pages = structured + [p for p in pages if p not in listed]
                if pages:
                    out.append({title: pages})
                continue
            if isinstance(value, list):
                children = expand_nav(value, available, sections)
                folders = {
                    p.rsplit("/", 1)[0]
                    for c in value
                    if (p := _entry_path(c)) and "/" in p and p.endswith(".md")
                }
                listed = {_entry_path(c) for c in children}
                if len(folders) == 1:
                    folder = next(iter(folders)) + "/"
                    children += [
                        p
                        for p in _folder_pages(folder, available)
                        if p not in listed and p.count("/") == folder.count("/")
                    ]
                if children:
                    out.append({title: children})
                continue
        path = _entry_path(entry)
        if path is None or path in available or "://" in path:
            out.append(entry)
    return out


def _keep(nav: list[Any], available: set[str]) -> list[Any]:
    """``nav`` without the pages that do not exist, and without sections left empty."""
    out: list[Any] = []
    for entry in nav:
        if isinstance(entry, dict) and len(entry) == 1:
            ((title, value),) = entry.items()
            if isinstance(value, list):
                children = _keep(value, available)
                if children:
                    out.append({title: children})
                continue
        if _entry_path(entry) in available:
            out.append(entry)
    return out


def _paths(nav: list[Any]) -> set[str]:
    """Every page path in ``nav``, at any depth."""
    found: set[str] = set()
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) and len(entry) == 1 else entry
        if isinstance(value, list):
            found |= _paths(value)
        elif isinstance(value, str):
            found.add(value)
    return found


def _folder_pages(folder: str, available: set[str]) -> list[str]:
    pages = sorted(p for p in available if p.startswith(folder) and p.endswith(".md"))
    index = folder + "index.md"
    return [index, *(p for p in pages if p != index)] if index in pages else pages
