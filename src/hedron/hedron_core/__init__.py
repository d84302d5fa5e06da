"""hedron_core: the host-neutral core of hedron (components, rendering, jobs)."""

__version__ = "1.2.0"
