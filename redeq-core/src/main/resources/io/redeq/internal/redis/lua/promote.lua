-- promote: makes a DELAYED job READY now, keeping its priority; any other state is left alone.
-- KEYS: the bucket keys with the job's topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] jobKey
-- Returns: 1 if the job was DELAYED and is READY now, else 0
local job_key = ARGV[2]
local score = redis.call('ZSCORE', K_DUE, job_key)
if not score then return 0 end
local refused = frozen_refusal()
if refused then return refused end
local _, p = due_of_due(tonumber(score))
redis.call('ZADD', ready_key(topic_of(job_key)), ready_score(now_ms(), p), job_key)
redis.call('ZREM', K_DUE, job_key)
return 1
