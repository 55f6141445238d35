-- complete: deletes finished jobs, but only those whose claim token still matches: a worker whose
-- lease expired and whose job was claimed again elsewhere must not finish the new claim (fencing).
-- KEYS: the bucket keys with the ready and dead keys of the jobs' topics (see prelude)
-- ARGV[1] topics, then pairs: jobKey, claim token (at most 500 pairs)
-- Returns: per pair 1 if completed, 0 if the claim was no longer ours
local out, done = {}, {}
for i = 2, #ARGV, 2 do
  local job_key, token = ARGV[i], ARGV[i + 1]
  local a = parse_attempt(redis.call('HGET', K_ATTEMPT, job_key))
  local ok = 0
  if token ~= '' and a.token == token and redis.call('ZSCORE', K_LEASE, job_key) then
    local topic = topic_of(job_key)
    count(topic, -1)
    count(topic .. ':i', -1)
    done[#done + 1] = job_key
    ok = 1
  end
  out[#out + 1] = ok
end
flush_counts()
if #done > 0 then
  remove_all('ZREM', K_LEASE, done)
  forget_all(done)
end
return out
