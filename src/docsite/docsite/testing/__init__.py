"""Real parts for the test suite, the replays, the build and the benchmarks: headless Chromium
(:mod:`~docsite.testing.browser`), a static server with the site's MIME types
(:mod:`~docsite.testing.static_server`), uvicorn on loopback
(:mod:`~docsite.testing.live_server`), ``redis-server`` (:mod:`~docsite.testing.redis_server`)
and process helpers (:mod:`~docsite.testing.processes`). Nothing here imports pytest."""
