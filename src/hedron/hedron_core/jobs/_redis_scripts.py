"""Lua scripts for :mod:`hedron_core.jobs.redis_backend`: each job change is one atomic script.

Redis runs a script without interleaving any other command, so "read the state, check the
transition, write the new state" can never race with another web process or worker. Every
script that returns a job returns its whole hash (``HGETALL``) so the caller needs one round trip.

Key layout under the prefix ``P`` (the same in every web process and worker):

* ``P job:<id>`` - hash with the job's fields (see ``FIELDS`` in the backend module);
* ``P idem:<sha256(subject, tenant, key)>`` - the job id for a scoped idempotency key;
* ``P queued`` - sorted set of QUEUED job ids, scored by a submit sequence number (FIFO);
* ``P leases`` - sorted set of RUNNING job ids that have a lease, scored by ``lease_until``;
* ``P finished`` - sorted set of terminal job ids, scored by ``finished_at`` (cleanup index);
* ``P seq`` - the submit sequence counter.

Job keys are derived inside the scripts from the prefix, so the scripts target a single Redis
(or a cluster with every key in one hash slot via a ``{tag}`` prefix).
"""

from __future__ import annotations

# Shared Lua helpers, prepended to every script.
_PRELUDE = """
local P = ARGV[1]
local function jobkey(id) return P .. 'job:' .. id end
local allowed = {
  queued = {running = true, succeeded = true, failed = true, cancelled = true},
  running = {succeeded = true, failed = true, cancelled = true},
}
local terminal = {succeeded = true, failed = true, cancelled = true}
local function finish(id, k, now, ttl_ms)
  redis.call('ZREM', P .. 'queued', id)
  redis.call('ZREM', P .. 'leases', id)
  redis.call('HDEL', k, 'lease_until', 'worker')
  redis.call('ZADD', P .. 'finished', now, id)
  if tonumber(ttl_ms) > 0 then
    redis.call('PEXPIRE', k, ttl_ms)
    local ik = redis.call('HGET', k, 'idem_redis_key')
    if ik and redis.call('GET', ik) == id then redis.call('PEXPIRE', ik, ttl_ms) end
  end
end
local function claim(id, k, worker, now, lease_until)
  redis.call('ZREM', P .. 'queued', id)
  if not redis.call('HGET', k, 'started_at') then redis.call('HSET', k, 'started_at', now) end
  redis.call('HSET', k, 'state', 'running', 'updated_at', now, 'worker', worker,
             'lease_until', lease_until)
  redis.call('HINCRBY', k, 'attempts', 1)
  redis.call('ZADD', P .. 'leases', lease_until, id)
  return redis.call('HGETALL', k)
end
local function claimable(k, now)
  local f = redis.call('HMGET', k, 'state', 'lease_until')
  if f[1] == 'queued' then return true end
  if f[1] == 'running' then return (not f[2]) or tonumber(f[2]) <= tonumber(now) end
  return false
end
"""

# ARGV: prefix, id, type, subject, tenant, payload, now, idem_key|'' , idem_redis_key|''
# Returns {status, id, fields...}: status 1 = created, 0 = existing, 2 = idempotency conflict.
SUBMIT = (
    _PRELUDE
    + """
local id, jtype, payload, now, idem, ik = ARGV[2], ARGV[3], ARGV[6], ARGV[7], ARGV[8], ARGV[9]
if ik ~= '' then
  local existing = redis.call('GET', ik)
  if existing then
    local ek = jobkey(existing)
    local f = redis.call('HMGET', ek, 'type', 'payload')
    if f[1] then
      if f[1] == jtype and f[2] == payload then
        return {0, existing, redis.call('HGETALL', ek)}
      end
      return {2, existing, {}}
    end
  end
end
local k = jobkey(id)
local seq = redis.call('INCR', P .. 'seq')
redis.call('HSET', k, 'id', id, 'state', 'queued', 'type', jtype, 'subject', ARGV[4],
           'tenant', ARGV[5], 'payload', payload, 'created_at', now, 'updated_at', now,
           'attempts', 0, 'cancel', 0, 'seq', seq)
if ik ~= '' then
  redis.call('HSET', k, 'idem', idem, 'idem_redis_key', ik)
  redis.call('SET', ik, id)
end
redis.call('ZADD', P .. 'queued', seq, id)
return {1, id, redis.call('HGETALL', k)}
"""
)

# ARGV: prefix, id, new_state, now, result_json|'', has_result, error, has_error, ttl_ms
# Returns {'ok', fields} | {'missing'} | {'illegal', current_state}.
MARK = (
    _PRELUDE
    + """
local id, new, now = ARGV[2], ARGV[3], ARGV[4]
local k = jobkey(id)
local cur = redis.call('HGET', k, 'state')
if not cur then return {'missing'} end
if not (allowed[cur] and allowed[cur][new]) then return {'illegal', cur} end
redis.call('HSET', k, 'state', new, 'updated_at', now)
if new == 'running' then
  redis.call('HSET', k, 'started_at', now)
  redis.call('ZREM', P .. 'queued', id)
else
  redis.call('HSET', k, 'finished_at', now)
  if ARGV[6] == '1' then redis.call('HSET', k, 'result', ARGV[5]) end
  if ARGV[8] == '1' then redis.call('HSET', k, 'error', ARGV[7]) end
  finish(id, k, now, ARGV[9])
end
return {'ok', redis.call('HGETALL', k)}
"""
)

# ARGV: prefix, id, k, n, message, now
PROGRESS = (
    _PRELUDE
    + """
local k = jobkey(ARGV[2])
local cur = redis.call('HGET', k, 'state')
if not cur then return {'missing'} end
if cur ~= 'running' then return {'illegal', cur} end
redis.call('HSET', k, 'progress_k', ARGV[3], 'progress_n', ARGV[4], 'progress_message', ARGV[5],
           'updated_at', ARGV[6])
return {'ok', redis.call('HGETALL', k)}
"""
)

# ARGV: prefix, id, subject, tenant, now, ttl_ms.  Returns fields once a cancel is recorded,
# {} when none is (missing, foreign or finished job).
CANCEL = (
    _PRELUDE
    + """
local id, now = ARGV[2], ARGV[5]
local k = jobkey(id)
local f = redis.call('HMGET', k, 'state', 'subject', 'tenant')
if (not f[1]) or f[2] ~= ARGV[3] or f[3] ~= ARGV[4] then return {} end
if f[1] == 'queued' then
  redis.call('HSET', k, 'state', 'cancelled', 'cancel', 1, 'updated_at', now, 'finished_at', now)
  finish(id, k, now, ARGV[6])
elseif f[1] == 'running' then
  redis.call('HSET', k, 'cancel', 1, 'updated_at', now)
else
  return {}
end
return redis.call('HGETALL', k)
"""
)

# ARGV: prefix, id, worker, now, lease_until.  Returns fields or {}.
CLAIM = (
    _PRELUDE
    + """
local id = ARGV[2]
local k = jobkey(id)
if not claimable(k, ARGV[4]) then return {} end
return claim(id, k, ARGV[3], ARGV[4], ARGV[5])
"""
)

# ARGV: prefix, worker, now, lease_until, type filter ('' = any) followed by the types.
# Expired leases first (a lost worker's job), then the oldest QUEUED job.
CLAIM_NEXT = (
    _PRELUDE
    + """
local worker, now, lease_until = ARGV[2], ARGV[3], ARGV[4]
local filter = nil
if ARGV[5] == '1' then
  filter = {}
  for i = 6, #ARGV do filter[ARGV[i]] = true end
end
local function try(ids)
  for _, id in ipairs(ids) do
    local k = jobkey(id)
    local t = redis.call('HGET', k, 'type')
    if t and (filter == nil or filter[t]) and claimable(k, now) then
      return claim(id, k, worker, now, lease_until)
    end
  end
  return nil
end
local got = try(redis.call('ZRANGEBYSCORE', P .. 'leases', '-inf', now, 'LIMIT', 0, 100))
if got then return got end
-- Walk the queue oldest first in pages, so a long backlog is never loaded at once.
local start = 0
while true do
  local ids = redis.call('ZRANGE', P .. 'queued', start, start + 99)
  if #ids == 0 then return {} end
  got = try(ids)
  if got then return got end
  start = start + #ids
end
"""
)

# ARGV: prefix, id, worker, now, lease_until.  Returns 1 when renewed.
RENEW = (
    _PRELUDE
    + """
local k = jobkey(ARGV[2])
local f = redis.call('HMGET', k, 'state', 'worker')
if f[1] ~= 'running' or f[2] ~= ARGV[3] then return 0 end
redis.call('HSET', k, 'lease_until', ARGV[5])
redis.call('ZADD', P .. 'leases', ARGV[5], ARGV[2])
return 1
"""
)

# ARGV: prefix, cutoff, batch.  Deletes terminal jobs finished at or before cutoff.
# A job that is not terminal is only dropped from the index, never deleted.
CLEANUP = (
    _PRELUDE
    + """
local ids = redis.call('ZRANGEBYSCORE', P .. 'finished', '-inf', ARGV[2], 'LIMIT', 0, ARGV[3])
local deleted = 0
for _, id in ipairs(ids) do
  local k = jobkey(id)
  local f = redis.call('HMGET', k, 'state', 'idem_redis_key')
  if f[1] == false then
    redis.call('ZREM', P .. 'finished', id)
  elseif terminal[f[1]] then
    if f[2] and redis.call('GET', f[2]) == id then redis.call('DEL', f[2]) end
    redis.call('DEL', k)
    redis.call('ZREM', P .. 'finished', id)
    deleted = deleted + 1
  else
    redis.call('ZREM', P .. 'finished', id)
  end
end
return {deleted, #ids}
"""
)

# ARGV: prefix, id.  Frees the job's idempotency key (if it still points to the job).
RELEASE_IDEMPOTENCY = (
    _PRELUDE
    + """
local k = jobkey(ARGV[2])
local ik = redis.call('HGET', k, 'idem_redis_key')
if ik and redis.call('GET', ik) == ARGV[2] then
  redis.call('DEL', ik)
  return 1
end
return 0
"""
)
