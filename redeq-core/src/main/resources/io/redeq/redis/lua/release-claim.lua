-- release-claim: hands back every job still held under one claim token, with its attempt given
-- back. A consumer runs it when a claim's reply was lost (a timeout or a dropped connection after
-- the script may have run): those jobs were never started, so they must not wait for their lease
-- nor lose an attempt. Scans the bucket's in-flight jobs, which are few (bounded by the consumers'
-- slots), and runs only after such a failure.
-- KEYS: the bucket keys with the topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] claim token
-- Returns: number of jobs handed back
local topic, token = ARGV[1], ARGV[2]
local prefix = topic .. ':'
local released = {}
for _, job_key in ipairs(redis.call('ZRANGE', K_LEASE, 0, -1)) do
  if string.sub(job_key, 1, #prefix) == prefix then
    local a = parse_attempt(redis.call('HGET', K_ATTEMPT, job_key))
    if a.token == token then
      a.token = ''
      if a.attempts > 0 then a.attempts = a.attempts - 1 end
      redis.call('HSET', K_ATTEMPT, job_key, format_attempt(a))
      redis.call('ZADD', ready_key(topic), a.due, job_key)
      released[#released + 1] = job_key
    end
  end
end
count(topic .. ':i', -#released)
flush_counts()
remove_all('ZREM', K_LEASE, released)
return #released
