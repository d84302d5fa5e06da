"""Here a path is added to the base URL as it is written: write the slash you want. A full
URL is sent as it is."""

from resq import Requests


def main(base_url: str) -> None:
    with Requests(f"{base_url}/api", "requests") as client:
        client.get("/")  # /api/
        client.get("/?page=2")  # /api/?page=2
    with Requests(f"{base_url}/api?key=k", "requests") as client:
        client.get(f"{base_url}/jobs")  # /jobs
