-- retry: puts a failed in-flight job back to DELAYED at Redis now + backoff, keeping its id and
-- attempt count, if the claim token still matches.
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, ARGV[2] jobKey, ARGV[3] claim token, ARGV[4] backoff ms, ARGV[5] error text
-- Returns: 1 and the new due ms and 1 if it became the earliest job; or 0, 0, 0 if the claim was lost
local job_key, token = ARGV[2], ARGV[3]
local rec = redis.call('HGET', K_JOBS, job_key)
if not rec then return { 0, 0, 0 } end
local j = parse(rec)
if j.state ~= 'I' or j.token ~= token then return { 0, 0, 0 } end
local topic = topic_of(job_key)
local now = now_ms()
count(topic, 'I', -1)
j.state = 'D'
j.token = ''
j.due = now + tonumber(ARGV[4])
redis.call('HSET', K_JOBS, job_key, format(j))
redis.call('HSET', K_ERRORS, job_key, ARGV[5])
redis.call('ZREM', K_INFLIGHT, job_key)
redis.call('ZADD', K_DELAYED, j.due, job_key)
count(topic, 'D', 1)
return { 1, j.due, is_earliest(job_key) }
