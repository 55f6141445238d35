-- migrate: moves due jobs of one bucket to their topics' ready lists, returns expired leases to
-- READY, drops dead jobs past retention, and renews the migrator's lock when it still holds it.
-- Correctness never rests on the lock: each job moves inside this one atomic script, so two
-- migrators on one bucket can neither lose nor double a job.
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, ARGV[2] batch size, ARGV[3] lock token ('' = do not touch the lock),
-- ARGV[4] lock ttl ms, ARGV[5] dead-letter retention ms (0 = skip the retention pass),
-- ARGV[6] 1 to reclaim expired leases, 0 to skip (the sweep finds them; a due job should not pay for it)
-- Returns: now, next due ms (-1 none), next lease deadline ms (-1 none or not checked), 1 if the
--   lock is held (or was not checked),
--   jobs migrated, leases reclaimed, then pairs topic, jobs made ready for that topic
local batch = tonumber(ARGV[2])
local token = ARGV[3]
local now = now_ms()

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
local function make_ready(job_key, j)
  local topic = topic_of(job_key)
  count(topic, j.state, -1)
  j.state = 'R'
  j.token = ''
  redis.call('HSET', K_JOBS, job_key, format(j))
  if not ready[topic] then
    ready[topic] = {}
    topics[#topics + 1] = topic
  end
  local list = ready[topic]
  list[#list + 1] = job_key
end

local due = redis.call('ZRANGEBYSCORE', K_DELAYED, '-inf', now, 'LIMIT', 0, batch)
for _, job_key in ipairs(due) do
  local rec = redis.call('HGET', K_JOBS, job_key)
  if rec then
    local j = parse(rec)
    if j.state == 'D' then
      make_ready(job_key, j)
    end
  end
end
if #due > 0 then
  redis.call('ZREM', K_DELAYED, unpack(due))
end

local expired = {}
if ARGV[6] == '1' then
  expired = redis.call('ZRANGEBYSCORE', K_INFLIGHT, '-inf', now, 'LIMIT', 0, batch)
end
local reclaimed = 0
for _, job_key in ipairs(expired) do
  local rec = redis.call('HGET', K_JOBS, job_key)
  if rec then
    local j = parse(rec)
    if j.state == 'I' then
      redis.call('HSET', K_ERRORS, job_key, 'lease expired during attempt ' .. j.attempts
        .. ' (its instance stopped renewing it: crashed, paused or hung)')
      make_ready(job_key, j)
      reclaimed = reclaimed + 1
    end
  end
end
if #expired > 0 then
  redis.call('ZREM', K_INFLIGHT, unpack(expired))
end

local out = { now, -1, -1, held, #due, reclaimed }
for _, topic in ipairs(topics) do
  local list = ready[topic]
  redis.call('RPUSH', ready_key(topic), unpack(list))
  count(topic, 'R', #list)
  out[#out + 1] = topic
  out[#out + 1] = #list
end

local old = {}
if ARGV[5] ~= '0' then
  old = redis.call('ZRANGEBYSCORE', K_DEAD, '-inf', now - tonumber(ARGV[5]), 'LIMIT', 0, 100)
end
for _, job_key in ipairs(old) do
  local topic = topic_of(job_key)
  if redis.call('HDEL', K_JOBS, job_key) == 1 then
    count(topic, 'X', -1)
  end
  redis.call('HDEL', K_ERRORS, job_key)
  redis.call('ZREM', dead_key(topic), job_key)
  redis.call('ZREM', K_DEAD, job_key)
end

local next_due = redis.call('ZRANGE', K_DELAYED, 0, 0, 'WITHSCORES')
if next_due[2] then out[2] = tonumber(next_due[2]) end
if ARGV[6] == '1' then
  local next_lease = redis.call('ZRANGE', K_INFLIGHT, 0, 0, 'WITHSCORES')
  if next_lease[2] then out[3] = tonumber(next_lease[2]) end
end
return out
