"""The hash lock of the examples' third-party packages (part of ``scripts/examples.py``).

``scripts/requirements/examples.txt`` pins every package any downloadable example installs,
at the versions the test suite runs with (``scripts/requirements/dev.txt``), with the sha256
of every file the package index holds for that version (all platforms, Python 3.11 and up),
and says which package needs which (``# via``). Each example's ``requirements.txt`` takes its
share of it (:func:`closure`), so ``pip install --require-hashes -r requirements.txt`` works
on any machine.

Writing it needs the network: ``python scripts/examples.py --lock`` resolves with ``uv pip
compile --universal --generate-hashes`` (uv is in the development requirements). Reading it
does not: the tree is generated offline.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

HEADER = """\
# Every third-party package the downloadable examples install, pinned with the sha256 of each
# of its files on the package index (all platforms), for `pip install --require-hashes`.
# Written by `python scripts/examples.py --lock` (needs the network); each example's
# requirements.txt takes its share of it. Do not edit by hand.
"""
INPUT_PREFIX = "# input: "
PYTHON_FLOOR = "3.11"


@dataclass(frozen=True)
class Locked:
    """One pinned package of the lock."""

    name: str  #: canonical name
    requirement: str  #: ``fastapi==0.165.0`` or with its marker (``… ; sys_platform == 'win32'``)
    version: str
    hashes: tuple[str, ...]  #: ``sha256:…``
    needed_by: frozenset[str]  #: canonical names of the locked packages that need it

    def lines(self) -> list[str]:
        """The package as ``requirements.txt`` lines (requirement, then one hash a line)."""
        out = [self.requirement + (" \\" if self.hashes else "")]
        for i, digest in enumerate(self.hashes):
            out.append(f"    --hash={digest}" + (" \\" if i < len(self.hashes) - 1 else ""))
        return out


@dataclass(frozen=True)
class Lock:
    """The parsed lock: what it was compiled from, and its packages by canonical name."""

    inputs: tuple[str, ...]
    packages: Mapping[str, Locked]


def _logical_lines(text: str) -> list[str]:
    """Join ``\\`` continuations; comments stay lines of their own."""
    out: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#"):
            if pending:
                out.append(pending)
                pending = ""
            out.append(line)
            continue
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        pending += line
        if pending.strip():
            out.append(pending.strip())
        pending = ""
    if pending.strip():
        out.append(pending.strip())
    return out


def parse_lock(text: str, where: str = "lock") -> Lock:
    """Parse a lock written by :func:`render_lock` (or ``uv pip compile --annotation-style
    line`` output, whose ``# via`` comments follow each package).

    Raises:
        ValueError: a line is not a pinned requirement with hashes.
    """
    inputs: tuple[str, ...] = ()
    entries: list[tuple[str, str, str, list[str]]] = []
    via: dict[str, set[str]] = {}
    for line in _logical_lines(text):
        if line.startswith(INPUT_PREFIX):
            inputs = tuple(p.strip() for p in line[len(INPUT_PREFIX) :].split(" | ") if p.strip())
        elif line.startswith("# via"):
            if not entries:
                raise ValueError(f"{where}: '# via' before any package")
            parents = (p.strip() for p in line[len("# via") :].split(","))
            names = {canonicalize_name(p) for p in parents if p and not p.startswith("-")}
            via.setdefault(entries[-1][0], set()).update(names)
        elif not line.startswith("#"):
            requirement, *options = line.split(" --hash=")
            try:
                req = Requirement(requirement)
            except InvalidRequirement as exc:
                raise ValueError(f"{where}: {requirement!r}: {exc}") from exc
            pins = [s.version for s in req.specifier if s.operator == "=="]
            if len(pins) != 1 or not options:
                raise ValueError(f"{where}: {requirement!r} must be pinned (==) with hashes")
            name = canonicalize_name(req.name)
            entries.append((name, requirement.strip(), pins[0], [o.strip() for o in options]))
    packages = {
        name: Locked(name, requirement, version, tuple(hashes), frozenset(via.get(name, ())))
        for name, requirement, version, hashes in entries
    }
    return Lock(inputs=inputs, packages=packages)


def render_lock(lock: Lock) -> str:
    """The lock file's text (:data:`HEADER`, the inputs, each package with ``# via``)."""
    out = [HEADER.rstrip("\n"), INPUT_PREFIX + " | ".join(lock.inputs)]
    for name in sorted(lock.packages):
        entry = lock.packages[name]
        out += entry.lines()
        if entry.needed_by:
            out.append(f"    # via {', '.join(sorted(entry.needed_by))}")
    return "\n".join(out) + "\n"


def closure(lock: Lock, roots: Iterable[str]) -> list[Locked]:
    """The locked packages ``roots`` need (themselves and everything they pull in), by name.

    Raises:
        ValueError: a root is not in the lock (regenerate it with ``--lock``).
    """
    wanted = {canonicalize_name(r) for r in roots}
    missing = sorted(wanted - set(lock.packages))
    if missing:
        raise ValueError(f"lock: {', '.join(missing)} not in the lock: run `{LOCK_COMMAND}`")
    changed = True
    while changed:
        changed = False
        for name, entry in lock.packages.items():
            if name not in wanted and entry.needed_by & wanted:
                wanted.add(name)
                changed = True
    return [lock.packages[name] for name in sorted(wanted)]


LOCK_COMMAND = "python scripts/examples.py --lock"


def stale_reasons(lock: Lock, inputs: Sequence[str], pins: Mapping[str, str]) -> list[str]:
    """Why ``lock`` no longer fits: other inputs, or versions other than the suite's pins."""
    reasons = []
    if tuple(inputs) != lock.inputs:
        reasons.append(f"compiled from {' | '.join(lock.inputs)!r}, now {' | '.join(inputs)!r}")
    for name, entry in sorted(lock.packages.items()):
        pin = pins.get(name)
        if pin is not None and pin != entry.version:
            reasons.append(f"{name} is locked at {entry.version}, the suite pins {pin}")
    return reasons


def _uv() -> list[str]:
    if importlib.util.find_spec("uv") is not None:
        return [sys.executable, "-m", "uv"]
    found = shutil.which("uv")
    if found is None:
        raise ValueError("lock: uv is needed to write the lock (run scripts/bootstrap)")
    return [found]


def compile_lock(inputs: Sequence[str], constraints: Path, cwd: Path) -> Lock:
    """Resolve ``inputs`` for every platform with uv, constrained by ``constraints``.

    Raises:
        ValueError: uv is missing or the resolution failed (its message is passed on).
    """
    cmd = [*_uv(), "pip", "compile", "-", "--universal", "--generate-hashes", "--quiet"]
    cmd += ["--python-version", PYTHON_FLOOR, "--no-header", "--annotation-style", "line"]
    cmd += ["-c", str(constraints.relative_to(cwd))]
    proc = subprocess.run(
        cmd,
        input="\n".join(inputs) + "\n",
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if proc.returncode != 0:
        raise ValueError(f"lock: uv pip compile failed:\n{proc.stderr.strip()}")
    parsed = parse_lock(proc.stdout, "uv pip compile")
    return Lock(inputs=tuple(inputs), packages=parsed.packages)
