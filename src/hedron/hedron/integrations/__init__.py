"""Scale-out integrations: one Redis for job status, Celery or RQ workers for execution.

``ScaleConfig`` holds every setting in one place. ``hedron.integrations.celery.CeleryJobs`` and
``hedron.integrations.rq.RQJobs`` connect the engines (import each only where it is installed);
both hand out a :class:`QueuedJobBackend` to pass as ``Hedron(job_backend=...)``.
"""

from hedron_core.jobs.redis_backend import RedisJobBackend, RedisUnavailableError

from ._config import ScaleConfig, redact_url
from ._errors import UNAVAILABLE_DETAIL, install_unavailable_handler
from ._queued import Dispatcher, EnqueueRefusedError, QueuedJobBackend

__all__ = [
    "UNAVAILABLE_DETAIL",
    "Dispatcher",
    "EnqueueRefusedError",
    "QueuedJobBackend",
    "RedisJobBackend",
    "RedisUnavailableError",
    "ScaleConfig",
    "install_unavailable_handler",
    "redact_url",
]
