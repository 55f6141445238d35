-- reshard-remove: deletes a job from its old bucket after reshard-import wrote it to its new one,
-- only if the record is still the one that was copied (copy first, delete second: a crash in
-- between leaves a copy, never a loss).
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, ARGV[2] jobKey, ARGV[3] the record that was copied
-- Returns: 1 if removed
local job_key = ARGV[2]
local rec = redis.call('HGET', K_JOBS, job_key)
if rec ~= ARGV[3] then return 0 end
local j = parse(rec)
local topic = topic_of(job_key)
redis.call('ZREM', K_DELAYED, job_key)
redis.call('ZREM', K_INFLIGHT, job_key)
redis.call('ZREM', K_DEAD, job_key)
redis.call('ZREM', dead_key(topic), job_key)
redis.call('HDEL', K_JOBS, job_key)
redis.call('HDEL', K_ERRORS, job_key)
count(topic, j.state, -1)
return 1
