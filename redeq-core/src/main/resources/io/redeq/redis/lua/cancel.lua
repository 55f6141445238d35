-- cancel: deletes a waiting job (DELAYED, READY or DEAD). A running job is not touched.
-- A READY job's list entry stays behind; claim skips it because the record is gone.
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, ARGV[2] jobKey
-- Returns: 1 if cancelled, 0 if unknown or running
local job_key = ARGV[2]
local rec = redis.call('HGET', K_JOBS, job_key)
if not rec then return 0 end
local j = parse(rec)
if j.state == 'I' then return 0 end
local topic = topic_of(job_key)
if j.state == 'D' then
  redis.call('ZREM', K_DELAYED, job_key)
elseif j.state == 'X' then
  redis.call('ZREM', K_DEAD, job_key)
  redis.call('ZREM', dead_key(topic), job_key)
end
redis.call('HDEL', K_JOBS, job_key)
redis.call('HDEL', K_ERRORS, job_key)
count(topic, j.state, -1)
return 1
