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

-- The heads that remain after this call, read now: nothing is read after the removals below.
local function score_at(key, rank)
  local entry = redis.call('ZRANGE', key, rank, rank, 'WITHSCORES')
  if entry[2] then return tonumber(entry[2]) end
  return -1
end
local next_due = score_at(K_DUE, #due / 2)
local next_lease = -1
if ARGV[6] == '1' then
  next_lease = score_at(K_LEASE, #expired)
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

for _, job_key in ipairs(expired) do
  local a = parse_attempt(redis.call('HGET', K_ATTEMPT, job_key))
  -- The attempt counts: its instance may have run the handler (a job that kills its instance
  -- must still end DEAD). Claims known to be orphaned are handed back by release-claim instead.
  a.token = ''
  redis.call('HSET', K_ATTEMPT, job_key, format_attempt(a))
  redis.call('HSET', K_ERROR, job_key, 'lease expired during attempt ' .. a.attempts
    .. ' (its instance stopped renewing it: crashed, paused or hung)')
  make_ready(job_key, a.due)
  count(topic_of(job_key) .. ':i', -1)
end

local out = { now, next_due, next_lease, held, #due / 2, #expired }
for _, topic in ipairs(topics) do
  local list = ready[topic]
  zadd_all(ready_key(topic), list)
  out[#out + 1] = topic
  out[#out + 1] = #list / 2
end
flush_counts()

-- Removals last, one command per key (see prelude). The batches are the lowest-scored members,
-- so they are exactly these rank ranges.
if #due > 0 then
  redis.call('ZREMRANGEBYRANK', K_DUE, 0, #due / 2 - 1)
end
if #expired > 0 then
  redis.call('ZREMRANGEBYRANK', K_LEASE, 0, #expired - 1)
end
if #old > 0 then
  local dead_by_topic = {}
  for _, job_key in ipairs(old) do
    local topic = topic_of(job_key)
    dead_by_topic[topic] = dead_by_topic[topic] or {}
    table.insert(dead_by_topic[topic], job_key)
  end
  for topic, job_keys in pairs(dead_by_topic) do
    remove_all('ZREM', dead_key(topic), job_keys)
  end
  redis.call('ZREMRANGEBYRANK', K_DIED, 0, #old - 1)
  forget_all(old)
end
return out
