-- complete: deletes finished jobs, but only those whose claim token still matches: a worker whose
-- lease expired and whose job was claimed again elsewhere must not finish the new claim (fencing).
-- KEYS: the bucket keys with the ready and dead keys of the jobs' topics (see prelude)
-- ARGV[1] topics, then pairs: jobKey, claim token
-- Returns: per pair 1 if completed, 0 if the claim was no longer ours
local out = {}
for i = 2, #ARGV, 2 do
  local job_key, token = ARGV[i], ARGV[i + 1]
  local a = parse_attempt(redis.call('HGET', K_ATTEMPT, job_key))
  local done = 0
  if a.token == token and token ~= '' and redis.call('ZREM', K_LEASE, job_key) == 1 then
    forget(job_key)
    local topic = topic_of(job_key)
    count(topic, -1)
    count(topic .. ':i', -1)
    done = 1
  end
  out[#out + 1] = done
end
flush_counts()
return out
