-- reshard-remove: deletes a job from its old bucket after reshard-import wrote it to its new one,
-- only if it is still the job that was copied, in the same state (copy first, delete second: a
-- crash in between leaves a copy, never a loss).
-- KEYS: the bucket keys with the job's topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] jobKey, ARGV[3] the payload record that was copied, ARGV[4] its state
-- Returns: 1 if removed
local job_key = ARGV[2]
local topic = topic_of(job_key)
if redis.call('HGET', K_PAYLOAD, job_key) ~= ARGV[3] or state_of(job_key, topic) ~= ARGV[4] then
  return 0
end
local state = ARGV[4]
if state == 'D' then
  redis.call('ZREM', K_DUE, job_key)
elseif state == 'R' then
  redis.call('ZREM', ready_key(topic), job_key)
elseif state == 'I' then
  redis.call('ZREM', K_LEASE, job_key)
else
  redis.call('ZREM', K_DIED, job_key)
  redis.call('ZREM', dead_key(topic), job_key)
end
forget_all({ job_key })
if state ~= 'X' then count(topic, -1) end
flush_counts()
return 1
