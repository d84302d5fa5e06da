"""The generated API reference: one entry per public object, one page per module or group.

Public modules are found on disk (``src/<dist>/<package>/``, names without a leading ``_``),
their public objects in their ``__all__`` (read statically with griffe). An object that
several modules export (``hedron.Poll``, ``hedron_core.Poll``,
``hedron_core.components.Poll``) is documented once, at its **home**: the public module
that holds the private module defining it (``hedron_core.components``), or else the first
module exporting it. The other modules list it under "Also exported here", linked to that
entry. A module documenting more than :data:`GROUP_OVER` objects gets one page per private
module its objects come from (its groups), so that no page is a wall.

:func:`identifiers` gives every name a guide may mention (``poll``, ``resq.http.poll``,
``Poller.step``) with the identifier of its entry, for ``guide_links``.

What griffe reads is kept (:func:`modules`) until the libraries' sources change:
:func:`refresh`, once per build, forgets it then. A ``mkdocs serve`` rebuild for a recipe or
a page edit does not read the libraries again.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docsite.griffe.examples import plain_roles
from docsite.paths import REPO

PACKAGES = {
    "resq": ("src/resq/resq", "The polling HTTP client."),
    "hedron": ("src/hedron/hedron", "The FastAPI host."),
    "hedron_core": ("src/hedron/hedron_core", "The host-neutral core."),
}
#: The library each package belongs to (guides of a library link to its objects).
LIBRARY = {"resq": "resq", "hedron": "hedron", "hedron_core": "hedron"}
#: A module documenting more objects than this is split into one page per group.
GROUP_OVER = 8
#: Nav titles of groups whose module name says too little (others: the name, capitalised).
GROUP_TITLES = {
    "resq.http._poller": "Polling",
    "resq.http._policy": "Attempts",
    "resq.http._responses": "Responses",
    "resq.http._errors": "Errors",
    "hedron_core.jobs._types": "Values",
    "hedron_core.jobs._machine": "State machine",
    "hedron_core.jobs._protocol": "Backend protocol",
    "hedron_core.jobs._memory": "In-memory backend",
    "hedron_core.jobs._sqlite": "SQLite backend",
    "hedron_core.jobs._context": "Task context",
    "hedron_core.jobs._local": "Choosing a runner",
    "hedron_core.jobs._stepping": "Stepping runner",
    "hedron_core.jobs._threads": "Thread-pool runner",
    "hedron_core.jobs._view": "Status views",
    "hedron_core.components._forms": "Actions",
    "hedron_core.components._inputs": "Form controls",
    "hedron_core.components._live": "Live",
    "hedron.jobs._binding": "Backend binding",
    "hedron.jobs._enqueue": "Submitting",
    "hedron.jobs._responses": "Status answers",
    "hedron.jobs._sse": "Server-Sent Events",
    "hedron.jobs._taskflow": "TaskFlow",
}


@dataclass(frozen=True)
class Entry:
    """A public object, documented at ``identifier`` (``hedron_core.components.Poll``)."""

    name: str
    identifier: str
    group: str  # the private module defining it ("_live"), "" for the module itself
    members: tuple[str, ...] = ()  # a class's public attributes and methods


@dataclass
class ModuleDoc:
    """What the reference shows of one public module."""

    path: str
    summary: str = ""
    own: list[Entry] = field(default_factory=list)
    reexports: list[Entry] = field(default_factory=list)
    submodules: list[str] = field(default_factory=list)
    group_titles: dict[str, str] = field(default_factory=dict)
    group_modules: dict[str, str] = field(default_factory=dict)  # "_live" -> its module path

    @property
    def folder(self) -> str:
        return "reference/" + self.path.replace(".", "/")

    @property
    def grouped(self) -> bool:
        return len(self.own) > GROUP_OVER and len({e.group for e in self.own}) > 1

    @property
    def page(self) -> str:
        nested = self.grouped or self.submodules
        return f"{self.folder}/index.md" if nested else f"{self.folder}.md"

    def groups(self) -> dict[str, list[Entry]]:
        """Own entries by group ("" first, then by private module name), in ``__all__`` order."""
        out: dict[str, list[Entry]] = {}
        for entry in self.own:
            out.setdefault(entry.group if self.grouped else "", []).append(entry)
        return dict(sorted(out.items()))

    def group_page(self, group: str) -> str:
        return self.page if not group else f"{self.folder}/{group.lstrip('_')}.md"


def public_modules(package: str, folder: Path) -> list[str]:
    """Dotted names of ``package`` and its public submodules, parents first."""
    names = [package]
    for path in sorted(folder.rglob("*.py")):
        rel = path.relative_to(folder).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts and not any(p.startswith("_") for p in parts):
            names.append(".".join([package, *parts]))
    return names


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0].strip() if (text or "").strip() else ""


def _target(member: Any) -> Any:
    if getattr(member, "is_alias", False):
        try:
            return member.final_target
        except Exception:  # an alias to another distribution: documented where it is
            return member
    return member


def _home(target_path: str) -> str:
    """The public module holding ``a.b._c.Name``'s definition: ``a.b``."""
    parts = target_path.split(".")[:-1]
    public = []
    for part in parts:
        if part.startswith("_"):
            break
        public.append(part)
    return ".".join(public)


def _group(target_path: str) -> str:
    """The private module defining ``a.b._c.Name`` (``a.b._c``), or "" for a public one."""
    parts = target_path.split(".")[:-1]
    for i, part in enumerate(parts):
        if part.startswith("_"):
            return ".".join(parts[: i + 1])
    return ""


#: What :func:`refresh` last saw of each root's library sources.
_SEEN: dict[Path, str] = {}


def sources_digest(root: Path = REPO) -> str:
    """A digest of every Python source of the documented packages under ``root``."""
    digest = hashlib.sha256()
    for folder, _ in PACKAGES.values():
        base = root / folder
        for path in sorted(base.rglob("*.py*")):
            if path.suffix in (".py", ".pyi") and path.is_file():
                digest.update(path.relative_to(root).as_posix().encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def refresh(root: Path = REPO) -> bool:
    """Forget :func:`modules` when the sources under ``root`` changed since the last call (or
    on the first call); return whether it did."""
    digest = sources_digest(root)
    if _SEEN.get(root) == digest:
        return False
    _SEEN[root] = digest
    modules.cache_clear()
    return True


@functools.cache
def modules(root: Path = REPO) -> tuple[ModuleDoc, ...]:
    """Every public module of every package that exists, with its entries, in page order."""
    import griffe

    present = [p for p, (f, _) in PACKAGES.items() if (root / f / "__init__.py").exists()]
    if not present:
        return ()
    search = sorted({str(root / Path(PACKAGES[p][0]).parent) for p in present})
    loader = griffe.GriffeLoader(search_paths=search)
    for package in present:
        loader.load(package)
    loader.resolve_aliases(implicit=False, external=False)
    collection = loader.modules_collection

    docs: list[ModuleDoc] = []
    exported: dict[str, list[tuple[str, str]]] = {}  # target path -> [(module, name)]
    for package in present:
        names = public_modules(package, root / PACKAGES[package][0])
        for path in names:
            module = collection.get_member(path)
            doc = ModuleDoc(path, summary=_first_line(module.docstring and module.docstring.value))
            doc.submodules = [n for n in names if n.rsplit(".", 1)[0] == path and n != path]
            docs.append(doc)
            for name in _exports(module):
                target = _target(module.members[name])
                exported.setdefault(target.path, []).append((path, name))

    by_path = {d.path: d for d in docs}
    for target_path, places in exported.items():
        home = _home(target_path)
        chosen = next(((m, n) for m, n in places if m == home), None)
        if chosen is None:  # defined privately under a module that does not export it
            inside = [(m, n) for m, n in places if target_path.startswith(m + ".")]
            chosen = max(inside, key=lambda p: len(p[0])) if inside else places[0]
        module_path, name = chosen
        identifier = f"{module_path}.{name}"
        private = _group(target_path)
        group = private.rsplit(".", 1)[-1] if private else ""
        if private:
            by_path[module_path].group_modules[group] = private
        target = collection.get_member(target_path)
        members = (
            tuple(n for n in getattr(target, "members", {}) if not n.startswith("_"))
            if getattr(target, "is_class", False)
            else ()
        )
        by_path[module_path].own.append(Entry(name, identifier, group, members))
        for other, other_name in places:
            if (other, other_name) != chosen:
                by_path[other].reexports.append(Entry(other_name, identifier, ""))
    for doc in docs:  # keep each module's __all__ order
        order = {n: i for i, n in enumerate(_exports(collection.get_member(doc.path)))}
        doc.own.sort(key=lambda e: order[e.name])
        doc.reexports.sort(key=lambda e: order[e.name])
        for group, private_path in doc.group_modules.items():
            private = collection.get_member(private_path)
            doc.group_titles[group] = _first_line(private.docstring and private.docstring.value)
    return tuple(docs)


def _exports(module: Any) -> list[str]:
    names = module.exports
    if names is None:  # no __all__: the public objects defined in the module
        names = [n for n, m in module.members.items() if not n.startswith("_") and not m.is_alias]
    return [n for n in names if not n.startswith("__") and n in module.members]


def _object_block(identifier: str) -> list[str]:
    return [f"::: {identifier}", "    options:", "      heading_level: 2", ""]


def _module_head(doc: ModuleDoc, title: str) -> list[str]:
    out = [f"# {title} {{ #{doc.path} }}", ""]
    out += [f"::: {doc.path}", "    options:", "      show_root_heading: false"]
    out += ["      members: false", ""]
    return out


def _link(entry: Entry) -> str:
    return f"[`{entry.identifier}`][{entry.identifier}]"


def _module_page(doc: ModuleDoc) -> str:
    out = _module_head(doc, doc.path)
    groups = doc.groups()
    if doc.submodules:
        out += ["## Modules", ""]
        out += [f"- [`{s}`][{s}]" for s in doc.submodules]
        out.append("")
    if doc.grouped:
        out += ["## Contents", "", "| Object | Page |", "| --- | --- |"]
        for group, entries in groups.items():
            if group:
                for entry in entries:
                    out.append(f"| {_link(entry)} | {_group_title(doc, group)} |")
        out.append("")
    for entry in groups.get("", []):
        out += _object_block(entry.identifier)
    if doc.reexports:
        out += ["## Also exported here", "", f"`{doc.path}` also exports these, documented at"]
        out += ["their home module:", "", "| Name | Entry |", "| --- | --- |"]
        out += [f"| `{e.name}` | {_link(e)} |" for e in doc.reexports]
        out.append("")
    return "\n".join(out)


def _group_title(doc: ModuleDoc, group: str) -> str:
    default = group.lstrip("_").replace("_", " ").capitalize()
    return GROUP_TITLES.get(f"{doc.path}.{group}", default)


def _group_page(doc: ModuleDoc, group: str, entries: list[Entry]) -> str:
    title = f"{doc.path}: {_group_title(doc, group)}"
    out = [f"# {title}", ""]
    summary = plain_roles(doc.group_titles.get(group, ""))
    if summary:
        out += [summary, ""]
    out += [f"Part of [`{doc.path}`][{doc.path}].", ""]
    for entry in entries:
        out += _object_block(entry.identifier)
    return "\n".join(out)


def pages(root: Path = REPO) -> dict[str, str]:
    """``{"reference/...md": markdown}``: the index, one page per module and per group."""
    out: dict[str, str] = {}
    for doc in modules(root):
        out[doc.page] = _module_page(doc)
        for group, entries in doc.groups().items():
            if group:
                out[doc.group_page(group)] = _group_page(doc, group, entries)
    return out


def nav(root: Path = REPO) -> list[Any]:
    """The API reference's nav section: the index, then each package's modules and groups."""
    docs = {d.path: d for d in modules(root)}

    def section(doc: ModuleDoc) -> Any:
        if not (doc.grouped or doc.submodules):
            return {doc.path: doc.page}
        children: list[Any] = [doc.page]
        children += [{_group_title(doc, g): doc.group_page(g)} for g in doc.groups() if g]
        children += [section(docs[s]) for s in doc.submodules]
        return {doc.path: children}

    return ["reference/index.md", *(section(docs[p]) for p in PACKAGES if p in docs)]


def identifiers(root: Path = REPO) -> dict[str, dict[str, str]]:
    """``{library: {name a guide may write: identifier}}``.

    Per library: every submodule (``resq.http``), every export under each module that exports
    it (``hedron.jobs.TaskFlow``) and, when unambiguous within the library, its bare name
    (``TaskFlow``).
    """
    out: dict[str, dict[str, str]] = {}
    bare: dict[str, dict[str, set[str]]] = {}
    for doc in modules(root):
        library = LIBRARY[doc.path.split(".")[0]]
        names = out.setdefault(library, {})
        if "." in doc.path:  # a bare package name in prose is the library, not a link
            names[doc.path] = doc.path
        for entry in [*doc.own, *doc.reexports]:
            names[f"{doc.path}.{entry.name}"] = entry.identifier
            bare.setdefault(library, {}).setdefault(entry.name, set()).add(entry.identifier)
        for entry in doc.own:
            for member in entry.members:
                qualified = f"{entry.name}.{member}"
                bare.setdefault(library, {}).setdefault(qualified, set()).add(
                    f"{entry.identifier}.{member}"
                )
    for library, found in bare.items():
        for name, targets in found.items():
            if len(targets) == 1:
                out[library].setdefault(name, next(iter(targets)))
    return out
