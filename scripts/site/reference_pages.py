"""Generated API reference pages: one per package, one mkdocstrings block per public module.

Public modules are found on disk (``src/<dist>/<package>/``, names without a leading ``_``),
so a module a library helper adds appears in the reference without editing the docs.
"""

from __future__ import annotations

from pathlib import Path

PACKAGES = {
    "resq": ("src/resq/resq", "The polling HTTP client."),
    "hedron": ("src/hedron/hedron", "The FastAPI host."),
    "hedron_core": ("src/hedron/hedron_core", "The host-neutral core."),
}


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


def pages(root: Path) -> dict[str, str]:
    """``{"reference/<package>.md": markdown}`` for every package that exists."""
    out: dict[str, str] = {}
    for package, (folder, summary) in PACKAGES.items():
        if not (root / folder / "__init__.py").exists():
            continue
        body = [f"# {package}", "", summary, ""]
        for module in public_modules(package, root / folder):
            body += [f"::: {module}", ""]
        out[f"reference/{package}.md"] = "\n".join(body)
    return out
