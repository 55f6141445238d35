-- migrate: moves due jobs of one bucket to their topics' ready sets, returns expired leases to
-- READY, drops dead jobs past retention, and renews the migrator's lock when it still holds it.
-- Correctness never rests on the lock: each job moves inside this one atomic script, so two
-- migrators on one bucket can neither lose nor double a job. Payload records are not touched.
-- KEYS: the bucket keys with the ready and dead keys of the declared topics (see prelude)
-- ARGV[1] topics, ARGV[2] batch size, ARGV[3] lock token ('' = do not touch the lock),
-- ARGV[4] lock ttl ms, ARGV[5] dead-letter retention ms (0 = skip the retention pass),
-- ARGV[6] 1 to reclaim expired leases, 0 to skip (the sweep finds them; a due job should not pay for it)
-- Returns: 'topics', then the topics whose keys must be declared (nothing was written); or
--   now, next due ms (-1 none), next lease deadline ms (-1 none or not checked), 1 if the lock is
--   held (or was not checked), jobs migrated, leases reclaimed, then pairs topic, jobs made READY
local batch = tonumber(ARGV[2])
local token = ARGV[3]
local now = now_ms()

-- Read first, and refuse before any write when a topic's keys are missing.
local due = redis.call('ZRANGEBYSCORE', K_DUE, '-inf', now, 'WITHSCORES', 'LIMIT', 0, batch)
local expired = {}
if ARGV[6] == '1' then
  expired = redis.call('ZRANGEBYSCORE', K_LEASE, '-inf', now, 'LIMIT', 0, batch)
end
local old = {}
if ARGV[5] ~= '0' then
  old = redis.call('ZRANGEBYSCORE', K_DIED, '-inf', now - tonumber(ARGV[5]), 'LIMIT', 0, 100)
end
local missing, seen = {}, {}
local due_keys = {}
for i = 1, #due, 2 do due_keys[#due_keys + 1] = due[i] end
undeclared(due_keys, missing, seen)
undeclared(expired, missing, seen)
undeclared(old, missing, seen)
if #missing > 0 then
  table.insert(missing, 1, 'topics')
  return missing
end

local held = 1
if token ~= '' then
  held = 0
  if redis.call('GET', K_LOCK) == token then
    redis.call('PEXPIRE', K_LOCK, ARGV[4])
    held = 1
  end
end

local ready = {}
local topics = {}
local function make_ready(job_key, due_ms)
  local topic = topic_of(job_key)
  if not ready[topic] then
    ready[topic] = {}
    topics[#topics + 1] = topic
  end
  local list = ready[topic]
  list[#list + 1] = due_ms
  list[#list + 1] = job_key
end

for i = 1, #due, 2 do
  make_ready(due[i], tonumber(due[i + 1]))
end
if #due > 0 then
  -- The batch is the lowest-scored members, so it is exactly this rank range.
  redis.call('ZREMRANGEBYRANK', K_DUE, 0, #due / 2 - 1)
end

local reclaimed = 0
for _, job_key in ipairs(expired) do
  local topic = topic_of(job_key)
  local a = parse_attempt(redis.call('HGET', K_ATTEMPT, job_key))
  -- The attempt counts: its instance may have run the handler (a job that kills its instance
  -- must still end DEAD). Claims known to be orphaned are handed back by release-claim instead.
  a.token = ''
  redis.call('HSET', K_ATTEMPT, job_key, format_attempt(a))
  redis.call('HSET', K_ERROR, job_key, 'lease expired during attempt ' .. a.attempts
    .. ' (its instance stopped renewing it: crashed, paused or hung)')
  make_ready(job_key, a.due)
  count(topic .. ':i', -1)
  reclaimed = reclaimed + 1
end
if #expired > 0 then
  redis.call('ZREMRANGEBYRANK', K_LEASE, 0, #expired - 1)
end

local out = { now, -1, -1, held, #due / 2, reclaimed }
for _, topic in ipairs(topics) do
  local list = ready[topic]
  zadd_all(ready_key(topic), list)
  out[#out + 1] = topic
  out[#out + 1] = #list / 2
end

for _, job_key in ipairs(old) do
  forget(job_key)
  redis.call('ZREM', dead_key(topic_of(job_key)), job_key)
end
if #old > 0 then
  redis.call('ZREMRANGEBYRANK', K_DIED, 0, #old - 1)
end
flush_counts()

local next_due = redis.call('ZRANGE', K_DUE, 0, 0, 'WITHSCORES')
if next_due[2] then out[2] = tonumber(next_due[2]) end
if ARGV[6] == '1' then
  local next_lease = redis.call('ZRANGE', K_LEASE, 0, 0, 'WITHSCORES')
  if next_lease[2] then out[3] = tonumber(next_lease[2]) end
end
return out
