"""Import a file of ``scripts/`` by its path (they are scripts, not a package), once."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_script(name: str, path: Path) -> ModuleType:
    """Import ``path`` as module ``_resq_hedron_<name>``; later calls return the same module.

    Raises:
        ImportError: ``path`` cannot be imported.
    """
    key = f"_resq_hedron_{name}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module  # dataclasses look their module up while the file executes
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[key]
        raise
    return module
