-- cancel: deletes a waiting job (DELAYED, READY or DEAD). A running job is not touched.
-- KEYS: the bucket keys with the job's topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] jobKey
-- Returns: 1 if cancelled, 0 if unknown or running
local job_key = ARGV[2]
local topic = topic_of(job_key)
local state = state_of(job_key, topic)
if state == nil or state == 'I' then return 0 end
if state ~= 'X' then
  count(topic, -1)
  flush_counts()
end
if state == 'D' then
  redis.call('ZREM', K_DUE, job_key)
elseif state == 'R' then
  redis.call('ZREM', ready_key(topic), job_key)
else
  redis.call('ZREM', K_DIED, job_key)
  redis.call('ZREM', dead_key(topic), job_key)
end
forget_all({ job_key })
return 1
