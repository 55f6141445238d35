-- claim: takes up to n READY jobs of one topic from one bucket (lowest due first) and puts each
-- IN_FLIGHT under a lease, in the same step, so no job is ever out of Redis's sight. A job whose
-- attempts are used up (its last lease expired) goes to DEAD instead of being delivered again.
-- KEYS: the bucket keys with the topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] n, ARGV[3] lease ms, ARGV[4] claim token, ARGV[5] max attempts
-- Returns: now, READY jobs left in this bucket, then per claimed job 5 values:
--   jobKey, attempt, created ms, due ms, payload
local topic = ARGV[1]
local n = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
local token = ARGV[4]
local max_attempts = tonumber(ARGV[5])
local ready = ready_key(topic)
local now = now_ms()
local waiting = redis.call('ZCARD', ready)
-- The pop is the one removal, and the ready set is not touched after it (see prelude).
local popped = redis.call('ZPOPMIN', ready, n)
local out = { now, waiting - #popped / 2 }
local claimed, leases, broken = 0, {}, {}
for i = 1, #popped, 2 do
  local job_key, due = popped[i], tonumber(popped[i + 1])
  local a = parse_attempt(redis.call('HGET', K_ATTEMPT, job_key))
  local rec = redis.call('HGET', K_PAYLOAD, job_key)
  if a.attempts >= max_attempts then
    bury(job_key, topic, now, redis.call('HGET', K_ERROR, job_key) or 'attempts used up')
  elseif rec then
    a.attempts = a.attempts + 1
    a.due = due
    a.token = token
    redis.call('HSET', K_ATTEMPT, job_key, format_attempt(a))
    leases[#leases + 1] = now + lease
    leases[#leases + 1] = job_key
    claimed = claimed + 1
    local created, payload = string.match(rec, '^(%d+)[^|]*|(.*)$')
    out[#out + 1] = job_key
    out[#out + 1] = a.attempts
    out[#out + 1] = tonumber(created)
    out[#out + 1] = due
    out[#out + 1] = payload
  else
    -- A READY entry without a record cannot be delivered; drop what is left of it.
    broken[#broken + 1] = job_key
    count(topic, -1)
  end
end
zadd_all(K_LEASE, leases)
count(topic .. ':i', claimed)
flush_counts()
if #broken > 0 then
  remove_all('HDEL', K_ATTEMPT, broken)
  remove_all('HDEL', K_ERROR, broken)
end
return out
