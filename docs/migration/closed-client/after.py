"""Here a closed client stays closed: send inside its with block, or open a new client."""

from resq import Requests


def main(base_url: str) -> None:
    with Requests(base_url, "requests") as client:
        client.get("/echo/first")
        client.get("/echo/second")
    with Requests(base_url, "requests") as client:  # later: a new client
        print(client.get("/echo/third").status_code)  # 200
