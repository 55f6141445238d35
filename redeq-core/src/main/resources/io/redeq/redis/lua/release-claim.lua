-- release-claim: hands back every job still held under one claim token, with its attempt given
-- back. A consumer runs it when a claim's reply was lost (a timeout or a dropped connection after
-- the script may have run): those jobs were never started, so they must not wait for their lease
-- nor lose an attempt. Scans the bucket's in-flight jobs, which are few (bounded by the consumers'
-- slots), and runs only after such a failure.
-- KEYS: the bucket keys with the topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] claim token
-- Returns: number of jobs handed back
local topic, token = ARGV[1], ARGV[2]
local released = {}
for _, held in ipairs(held_by(topic, token)) do
  local a = held.attempt
  a.token = ''
  if a.attempts > 0 then a.attempts = a.attempts - 1 end
  redis.call('HSET', K_ATTEMPT, held.job_key, format_attempt(a))
  local rec = redis.call('HGET', K_PAYLOAD, held.job_key)
  redis.call('ZADD', ready_key(topic), ready_score(a.due, rec and priority_of(settings_of(rec)) or 0), held.job_key)
  released[#released + 1] = held.job_key
end
remove_all('ZREM', K_LEASE, released)
return #released
