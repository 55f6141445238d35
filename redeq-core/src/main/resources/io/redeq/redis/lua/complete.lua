-- complete: deletes finished jobs, but only those whose claim token still matches: a worker whose
-- lease expired and whose job was claimed again elsewhere must not finish the new claim (fencing).
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, then pairs: jobKey, claim token
-- Returns: per pair 1 if completed, 0 if the claim was no longer ours
local out = {}
for i = 2, #ARGV, 2 do
  local job_key, token = ARGV[i], ARGV[i + 1]
  local rec = redis.call('HGET', K_JOBS, job_key)
  local done = 0
  if rec then
    local j = parse(rec)
    if j.state == 'I' and j.token == token then
      redis.call('HDEL', K_JOBS, job_key)
      redis.call('HDEL', K_ERRORS, job_key)
      redis.call('ZREM', K_INFLIGHT, job_key)
      count(topic_of(job_key), 'I', -1)
      done = 1
    end
  end
  out[#out + 1] = done
end
return out
