-- bury: moves an in-flight job to DEAD with the reason, if the claim token still matches.
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, ARGV[2] jobKey, ARGV[3] claim token, ARGV[4] reason
-- Returns: the time it died (ms), or 0 if the claim was lost
local job_key, token = ARGV[2], ARGV[3]
local rec = redis.call('HGET', K_JOBS, job_key)
if not rec then return 0 end
local j = parse(rec)
if j.state ~= 'I' or j.token ~= token then return 0 end
local now = now_ms()
redis.call('ZREM', K_INFLIGHT, job_key)
bury(job_key, j, topic_of(job_key), now, ARGV[4])
return now
