"""resq 1.0.0 code that runs here unchanged, against a job API at ``base_url``.

The API answers ``503`` until a job is done; ``/moved/...`` redirects to a job.
"""

from resq.http import Requests, Session, poll


def main(base_url: str) -> None:
    client = Requests(base_url, adapter="requests", timeout=5)
    print(client.adapter, client.timeout)  # requests 5.0
    r = client.get("/job/42")  # single request, a Response
    r = poll(r, timeout=30, delay=2)  # poll up to 30s, 2s apart
    print(r.status_code, r.encoding, r.json()["state"])  # 200 utf-8 done
    r = client.get("/job/43", 30, 2)  # timeout and delay by position
    print(r.ok)  # True
    r = poll(client.get("/never-done"), timeout=30, delay=2)
    if not r.ok:  # the window elapsed: the last response, no exception
        r.reload()
    print(r.status_code)  # 503
    client.close()


async def amain(base_url: str) -> None:
    client = Session(base_url, adapter="httpx", timeout=5)
    r = await client.get("/moved/44", timeout=30, delay=2)  # the 302 is followed
    print(r.url.endswith("/job/44"), r.status_code)  # True 200
    r = await poll(await client.get("/job/45"), timeout=30, delay=2)
    print(r.json()["state"])  # done
    await client.close()
