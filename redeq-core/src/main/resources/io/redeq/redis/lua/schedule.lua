-- schedule: adds (or, per the duplicate policy, replaces) jobs of one bucket, atomically per call.
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, ARGV[2] capacity of this bucket per topic (0 = unlimited), ARGV[3] number of jobs n,
--   then n groups of 5: jobKey, payload, mode ('in' = delay ms from Redis now | 'at' = epoch ms),
--   ms, duplicate policy ('R' replace | 'K' keep | 'J' reject)
-- Returns n groups of 3: status, due ms (or state / pending count), 1 if it became the earliest job
--   status: 'new' | 'replaced' | 'kept' (due of the existing job) | 'rejected' (its state)
--         | 'running' (an in-flight job cannot be replaced) | 'full' (pending count of the topic here)
local capacity = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local now = now_ms()
local out = {}
for i = 0, n - 1 do
  local base = 4 + i * 5
  local job_key, payload, mode, ms, policy = ARGV[base], ARGV[base + 1], ARGV[base + 2], tonumber(ARGV[base + 3]), ARGV[base + 4]
  local topic = topic_of(job_key)
  local due = (mode == 'in') and (now + ms) or ms
  local rec = redis.call('HGET', K_JOBS, job_key)
  local status = 'new'
  if rec then
    local old = parse(rec)
    if policy == 'K' then
      status = 'kept'; due = old.due
    elseif policy == 'J' then
      status = 'rejected'; due = old.state
    elseif old.state == 'I' then
      status = 'running'; due = 0
    else
      status = 'replaced'
      count(topic, old.state, -1)
      if old.state == 'X' then
        redis.call('ZREM', K_DEAD, job_key)
        redis.call('ZREM', dead_key(topic), job_key)
      end
      redis.call('HDEL', K_ERRORS, job_key)
    end
  elseif capacity > 0 then
    local c = redis.call('HMGET', K_COUNTS, topic .. ':D', topic .. ':R', topic .. ':I')
    local pending = (tonumber(c[1]) or 0) + (tonumber(c[2]) or 0) + (tonumber(c[3]) or 0)
    if pending >= capacity then
      status = 'full'; due = pending
    end
  end
  local earliest = 0
  if status == 'new' or status == 'replaced' then
    redis.call('HSET', K_JOBS, job_key, format({ state = 'D', attempts = 0, created = now, due = due, token = '', payload = payload }))
    redis.call('ZADD', K_DELAYED, due, job_key)
    count(topic, 'D', 1)
    earliest = is_earliest(job_key)
  end
  out[#out + 1] = status
  out[#out + 1] = due
  out[#out + 1] = earliest
end
return out
