"""Made-up data the example-tree tests share (importable by name from any test module)."""

from __future__ import annotations

#: The local distributions' requirements, as ``examples.local_dependencies`` reads them.
LOCAL_DEPS = {"resq": ("requests>=2",), "hedron": ("fastapi>=0.1",)}
VERSIONS = {"resq": "1.1.0", "hedron": "1.2.0"}


def _fake_hashes(name: str) -> str:
    return " \\\n".join(f"    --hash=sha256:{name[:1] * 63}{k}" for k in (1, 2))


#: A hash lock as ``examples.py --lock`` writes it (made-up hashes); ``unused`` is needed by
#: no example, ``click`` only through uvicorn, ``urllib3`` only through requests.
LOCK_TEXT = (
    "\n".join(
        [
            "# made up by the tests",
            "# input: fastapi | fastapi>=0.1 | requests>=2 | uvicorn",
            f"click==8.0.0 \\\n{_fake_hashes('click')}\n    # via uvicorn",
            f"fastapi==0.100.0 \\\n{_fake_hashes('fastapi')}",
            f"requests==2.30.0 \\\n{_fake_hashes('requests')}",
            f"starlette==0.30.0 \\\n{_fake_hashes('starlette')}\n    # via fastapi",
            f"unused==1.0 \\\n{_fake_hashes('unused')}",
            f"urllib3==2.0.0 ; python_version >= '3.11' \\\n{_fake_hashes('urllib3')}"
            "\n    # via requests",
            f"uvicorn==0.50.0 \\\n{_fake_hashes('uvicorn')}",
        ]
    )
    + "\n"
)
