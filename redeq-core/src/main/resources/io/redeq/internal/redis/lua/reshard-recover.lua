-- reshard-recover: while a change of the bucket count moves a frozen bucket's jobs, turns one job
-- whose lease expired (its instance died or hung) back into a waiting job, as migrate.lua does for
-- an expired lease: READY at its due time, attempts kept (the attempt counts), its claim token
-- cleared, so the old holder's complete, retry or bury is fenced (lib/finishing.lua). The mover
-- then moves it like any waiting job. Only if its lease has still expired when this runs.
-- KEYS: the bucket keys with the job's topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] jobKey
-- Returns: 1 if the job is READY now, 0 if it is not leased or its lease has not expired
local job_key = ARGV[2]
local topic = topic_of(job_key)
local deadline = redis.call('ZSCORE', K_LEASE, job_key)
if not deadline or tonumber(deadline) > now_ms() then return 0 end
local read = redis.call('HMGET', K_PAYLOAD, job_key, attempt_field(job_key))
local a = parse_attempt(read[2])
a.token = ''
write_attempt(job_key, a)
redis.call('HSET', K_ERROR, job_key, 'lease expired during attempt ' .. a.attempts
  .. ' (its instance stopped renewing it: crashed, paused or hung)')
redis.call('ZADD', ready_key(topic), ready_score(a.due, read[1] and priority_of(settings_of(read[1])) or 0), job_key)
redis.call('ZREM', K_LEASE, job_key)
return 1
