-- reshard-import: writes one job, moved from a bucket of the old layout, into its bucket of the new
-- one, in the state it had. Jobs that were IN_FLIGHT become READY: a reshard runs with every
-- instance stopped, so no handler holds them any more. Importing twice is a no-op, so a reshard
-- that was interrupted can simply run again.
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, ARGV[2] jobKey, ARGV[3] record, ARGV[4] last error ('' none), ARGV[5] died at ms
-- Returns: 1 if written, 0 if the job was already there
local job_key = ARGV[2]
if redis.call('HEXISTS', K_JOBS, job_key) == 1 then return 0 end
local j = parse(ARGV[3])
local topic = topic_of(job_key)
if j.state == 'I' then
  j.state = 'R'
  j.token = ''
end
redis.call('HSET', K_JOBS, job_key, format(j))
if ARGV[4] ~= '' then redis.call('HSET', K_ERRORS, job_key, ARGV[4]) end
if j.state == 'D' then
  redis.call('ZADD', K_DELAYED, j.due, job_key)
elseif j.state == 'R' then
  redis.call('RPUSH', ready_key(topic), job_key)
else
  redis.call('ZADD', K_DEAD, ARGV[5], job_key)
  redis.call('ZADD', dead_key(topic), ARGV[5], job_key)
end
count(topic, j.state, 1)
return 1
