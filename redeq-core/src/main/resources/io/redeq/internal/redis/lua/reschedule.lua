-- reschedule: moves a DELAYED or READY job's due time; it becomes DELAYED until then.
-- KEYS: the bucket keys with the job's topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] jobKey, ARGV[3] mode ('in' delay ms | 'at' epoch ms), ARGV[4] ms, ARGV[5] the
-- caller's bucket count
-- Returns: 1, new due ms, 1 if it became the earliest job; or 0, 0, 0 if unknown, running or dead
local refused = moved_refusal(ARGV[5])
if refused then return refused end
local job_key = ARGV[2]
local topic = topic_of(job_key)
local ms = tonumber(ARGV[4])
local due = (ARGV[3] == 'in') and (now_ms() + ms) or ms
if not ms or ms < 0 or due > MAX_TIME then
  return redis.error_reply('ERR redeq reschedule: due time of ' .. job_key .. ' out of range: ' .. tostring(ARGV[4]))
end
local state = state_of(job_key, topic)
if state ~= 'D' and state ~= 'R' then
  return { 0, 0, 0 }
end
local rec = redis.call('HGET', K_PAYLOAD, job_key)
redis.call('ZADD', K_DUE, due_score(due, rec and priority_of(settings_of(rec)) or 0), job_key)
local head = redis.call('ZRANGE', K_DUE, '0', '0')
if state == 'R' then
  redis.call('ZREM', ready_key(topic), job_key)
end
return { 1, due, (head[1] == job_key) and 1 or 0 }
