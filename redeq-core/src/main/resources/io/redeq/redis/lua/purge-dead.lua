-- purge-dead: deletes the longest-dead jobs of one topic.
-- KEYS: the bucket keys with the topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] at most this many
-- Returns: number of jobs deleted
local topic = ARGV[1]
local keys = redis.call('ZRANGE', dead_key(topic), 0, tonumber(ARGV[2]) - 1)
for _, job_key in ipairs(keys) do
  forget(job_key)
  redis.call('ZREM', K_DIED, job_key)
end
if #keys > 0 then
  redis.call('ZREMRANGEBYRANK', dead_key(topic), 0, #keys - 1)
end
return #keys
