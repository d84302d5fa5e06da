"""resq 1.0.0: on a base URL with a path, "" and "?page=2" added a slash; a base URL with a
query lost its path."""

from resq import Requests


def main(base_url: str) -> None:
    with Requests(f"{base_url}/api", "requests") as client:
        client.get("")  # 1.0.0: /api/    here: /api
        client.get("?page=2")  # 1.0.0: /api/?page=2    here: /api?page=2
    with Requests(f"{base_url}/api?key=k", "requests") as client:
        client.get("/jobs")  # 1.0.0: /jobs    here: /api/jobs?key=k
