"""hedron: FastAPI-native HTML/HTMX components with durable jobs."""

__version__ = "1.2.0"
