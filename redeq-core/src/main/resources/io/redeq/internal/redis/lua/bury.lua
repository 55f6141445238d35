-- bury: moves an in-flight job to DEAD with the reason, if the claim token still matches.
-- KEYS: the bucket keys with the job's topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] jobKey, ARGV[3] claim token, ARGV[4] reason
-- Returns: the time it died (ms), or 0 if the claim was lost
local job_key, token = ARGV[2], ARGV[3]
local a = parse_attempt(read_attempt(job_key))
if not holds_claim(a, token) then
  return 0
end
local now = now_ms()
local topic = topic_of(job_key)
a.token = ''
write_attempt(job_key, a)
bury(job_key, topic, now, ARGV[4])
flush_counts()
redis.call('ZREM', K_LEASE, job_key)
return now
