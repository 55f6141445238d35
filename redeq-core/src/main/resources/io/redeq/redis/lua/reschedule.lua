-- reschedule: moves a DELAYED or READY job's due time; it becomes DELAYED until then.
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, ARGV[2] jobKey, ARGV[3] mode ('in' delay ms | 'at' epoch ms), ARGV[4] ms
-- Returns: 1, new due ms, 1 if it became the earliest job; or 0, 0, 0 if unknown, running or dead
local job_key = ARGV[2]
local rec = redis.call('HGET', K_JOBS, job_key)
if not rec then return { 0, 0, 0 } end
local j = parse(rec)
if j.state ~= 'D' and j.state ~= 'R' then return { 0, 0, 0 } end
local topic = topic_of(job_key)
local ms = tonumber(ARGV[4])
count(topic, j.state, -1)
j.state = 'D'
j.due = (ARGV[3] == 'in') and (now_ms() + ms) or ms
redis.call('HSET', K_JOBS, job_key, format(j))
redis.call('ZADD', K_DELAYED, j.due, job_key)
count(topic, 'D', 1)
return { 1, j.due, is_earliest(job_key) }
