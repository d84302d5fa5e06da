"""resq: a dual-mode HTTP client whose verbs poll until a success status arrives."""

__version__ = "1.1.0"
