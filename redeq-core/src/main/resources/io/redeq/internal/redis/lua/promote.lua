-- promote: makes a DELAYED job READY now, keeping its priority; any other state is left alone.
-- KEYS: the bucket keys with the job's topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] jobKey, ARGV[3] the caller's bucket count
-- Returns: 1 if the job was DELAYED and is READY now, else 0
-- Refused (lib/layout.lua) before the job is looked for: a bucket whose jobs move, or one a change
-- marked with another count, would answer 0 for a job that moved away.
local refused = moved_refusal(ARGV[3])
if refused then return refused end
local job_key = ARGV[2]
local score = redis.call('ZSCORE', K_DUE, job_key)
if not score then return 0 end
local _, p = due_of_due(tonumber(score))
redis.call('ZADD', ready_key(topic_of(job_key)), ready_score(now_ms(), p), job_key)
redis.call('ZREM', K_DUE, job_key)
return 1
