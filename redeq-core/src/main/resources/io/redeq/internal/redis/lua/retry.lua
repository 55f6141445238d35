-- retry: puts a failed in-flight job back to DELAYED at Redis now + backoff, keeping its id and
-- attempt count, if the claim token still matches.
-- KEYS: the bucket keys with the job's topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] jobKey, ARGV[3] claim token, ARGV[4] backoff ms, ARGV[5] error text
-- Returns: 1, the new due ms, 1 if it became the earliest job; or 0, 0, 0 if the claim was lost
local job_key, token = ARGV[2], ARGV[3]
local read = redis.call('HMGET', K_PAYLOAD, job_key, attempt_field(job_key))
local a = parse_attempt(read[2])
if not holds_claim(a, token) then
  return { 0, 0, 0 }
end
local now = now_ms()
local due = math.min(now + tonumber(ARGV[4]), MAX_TIME)
a.token = ''
a.due = due
write_attempt(job_key, a)
redis.call('HSET', K_ERROR, job_key, ARGV[5])
local rec = read[1]
redis.call('ZADD', K_DUE, due_score(due, rec and priority_of(settings_of(rec)) or 0), job_key)
local head = redis.call('ZRANGE', K_DUE, '0', '0')
redis.call('ZREM', K_LEASE, job_key)
return { 1, due, (head[1] == job_key) and 1 or 0 }
