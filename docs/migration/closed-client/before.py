"""resq 1.0.0: a client went on sending after close() or after its with block."""

from resq import Requests


def main(base_url: str) -> None:
    with Requests(base_url, "requests") as client:
        client.get("/echo/first")
    client.get("/echo/second")  # here: ClientClosedError
