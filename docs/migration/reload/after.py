"""Here reload() also returns the response it refreshed (the same object), so calls chain."""

from resq import Requests


def main(base_url: str) -> None:
    with Requests(base_url, "requests") as client:
        r = client.get("/job/8")
        print(r.reload().reload() is r, r.status_code)  # True 200
