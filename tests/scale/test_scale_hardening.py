"""What probing the Redis job backend found (issue 19): the shared findings, on Redis.

Besides the blank-text, lone-surrogate and deep-payload findings every backend shares, Redis
let idempotency keys of scopes that differ only in where a NUL falls collide: the second
scope got the first one's job (and result) back.
"""

from __future__ import annotations

import hashlib
from typing import Any

import test_scale_redis_backend as base

from hedron_core.jobs.redis_backend import RedisJobBackend
from tests.jobs.hardening_conformance import OWNER, HardeningConformance
from tests.jobs.validation_conformance import ValidationConformance


class TestRedisHardening(HardeningConformance):
    backend_factory = base.TestRedisBackend.backend_factory


class TestRedisValidation(ValidationConformance):
    backend_factory = base.TestRedisBackend.backend_factory


def test_keys_stored_before_the_fix_are_still_found(
    redis_url: str, prefix: str, redis_client: Any
) -> None:
    """Scopes without NUL keep the key they always had, so a resubmit after an upgrade
    still returns the job submitted before it."""
    backend = RedisJobBackend(redis_url, prefix=prefix)
    try:
        job = backend.submit("demo", {"n": 1}, **OWNER, idempotency_key="k")
        old = hashlib.sha256("\x00".join(("alice", "acme", "k")).encode()).hexdigest()
        assert redis_client.get(f"{prefix}idem:{old}") == job.id.encode()
    finally:
        backend.close()
