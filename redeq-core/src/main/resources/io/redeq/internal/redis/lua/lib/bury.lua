-- Adds a job to DEAD with the reason; the caller removes it from where it was.
local function bury(job_key, topic, now, reason)
  redis.call('ZADD', K_DIED, now, job_key)
  redis.call('ZADD', dead_key(topic), now, job_key)
  redis.call('HSET', K_ERROR, job_key, reason)
  count(topic, -1)
end
