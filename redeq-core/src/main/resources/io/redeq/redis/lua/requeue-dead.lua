-- requeue-dead: gives dead jobs of one topic a fresh set of attempts and makes them READY now.
-- KEYS: the bucket keys with the topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] at most this many, ARGV[3] one jobKey ('' = the longest-dead ones)
-- Returns: number of jobs requeued
local topic = ARGV[1]
local keys
if ARGV[3] ~= '' then
  keys = { ARGV[3] }
else
  keys = redis.call('ZRANGE', dead_key(topic), 0, tonumber(ARGV[2]) - 1)
end
local now = now_ms()
local moved = {}
for _, job_key in ipairs(keys) do
  if redis.call('ZREM', dead_key(topic), job_key) == 1 then
    redis.call('ZREM', K_DIED, job_key)
    redis.call('HDEL', K_ATTEMPT, job_key)
    redis.call('HDEL', K_ERROR, job_key)
    moved[#moved + 1] = now
    moved[#moved + 1] = job_key
  end
end
zadd_all(ready_key(topic), moved)
count(topic, #moved / 2)
flush_counts()
return #moved / 2
