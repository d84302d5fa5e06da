"""Runs of the recipes outside the site, for the tests and ``scripts/transcripts.py``.

- :mod:`replay.panel`: the hedron demo as the site runs it (``docs/assets/tryit/panel.mjs``,
  the real htmx, virtual time) in headless Chromium, with the recipe's app answering on
  CPython through the very server code the worker runs (``tryit.browser.handle``).
- :mod:`replay.real`: every recipe for real: its app under uvicorn on 127.0.0.1 with the real
  clock and ``local_runner``'s threads; hedron pages in Chromium with the htmx the app serves,
  resq clients as ``python client.py``. The same recorder writes the transcript.

Dev tooling only (Playwright, uvicorn): not part of the ``tryit`` wheel the browser loads.
"""
