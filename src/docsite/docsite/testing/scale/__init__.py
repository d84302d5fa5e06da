"""A scaled-out hedron deployment on loopback, for the scale-out tests and ``bench_scale``: web
processes (uvicorn, :mod:`~docsite.testing.scale.app`), Celery or RQ workers running the tasks
of :mod:`~docsite.testing.scale.tasks`, on a real ``redis-server``."""
