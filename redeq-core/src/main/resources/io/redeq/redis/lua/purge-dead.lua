-- purge-dead: deletes the oldest dead jobs of one topic.
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, ARGV[2] topic, ARGV[3] at most this many
-- Returns: number of jobs deleted
local topic = ARGV[2]
local keys = redis.call('ZRANGE', dead_key(topic), 0, tonumber(ARGV[3]) - 1)
local purged = 0
for _, job_key in ipairs(keys) do
  local rec = redis.call('HGET', K_JOBS, job_key)
  if rec and parse(rec).state == 'X' then
    redis.call('HDEL', K_JOBS, job_key)
    purged = purged + 1
  end
  redis.call('HDEL', K_ERRORS, job_key)
  redis.call('ZREM', K_DEAD, job_key)
  redis.call('ZREM', dead_key(topic), job_key)
end
count(topic, 'X', -purged)
return purged
