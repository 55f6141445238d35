-- claim: takes up to n READY jobs of one topic from one bucket and puts each IN_FLIGHT under a
-- lease, in the same step, so no job is ever out of Redis's sight. A job whose attempts are used
-- up (its last lease expired) goes to DEAD instead of being delivered again.
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, ARGV[2] topic, ARGV[3] n, ARGV[4] lease ms, ARGV[5] claim token, ARGV[6] max attempts
-- Returns: now, entries left in the ready list, then per claimed job 5 values:
--   jobKey, attempt, created ms, due ms, payload
local topic = ARGV[2]
local n = tonumber(ARGV[3])
local lease = tonumber(ARGV[4])
local token = ARGV[5]
local max_attempts = tonumber(ARGV[6])
local list = ready_key(topic)
local now = now_ms()
local out = { now, 0 }
local claimed = 0
-- Stale entries (cancelled or replaced jobs) are skipped; bound the pops so one call stays short.
local budget = n * 4 + 16
while claimed < n and budget > 0 do
  local keys = redis.call('LPOP', list, math.min(n - claimed, budget))
  if not keys or #keys == 0 then break end
  budget = budget - #keys
  for _, job_key in ipairs(keys) do
    local rec = redis.call('HGET', K_JOBS, job_key)
    if rec then
      local j = parse(rec)
      if j.state == 'R' then
        if j.attempts >= max_attempts then
          local why = redis.call('HGET', K_ERRORS, job_key) or 'attempts used up'
          bury(job_key, j, topic, now, why)
        else
          count(topic, 'R', -1)
          j.state = 'I'
          j.attempts = j.attempts + 1
          j.token = token
          redis.call('HSET', K_JOBS, job_key, format(j))
          redis.call('ZADD', K_INFLIGHT, now + lease, job_key)
          count(topic, 'I', 1)
          claimed = claimed + 1
          out[#out + 1] = job_key
          out[#out + 1] = j.attempts
          out[#out + 1] = j.created
          out[#out + 1] = j.due
          out[#out + 1] = j.payload
        end
      end
    end
  end
end
out[2] = redis.call('LLEN', list)
return out
