-- find: reads one job. Changes nothing.
-- KEYS: the bucket keys with the job's topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] jobKey, ARGV[3] the caller's bucket count
-- Returns: an empty list if unknown; else state, created (the record's text, see lib/settings.lua),
--   due ms, attempts, payload
local refused = moved_refusal(ARGV[3])
if refused then return refused end
local job_key = ARGV[2]
local read = redis.call('HMGET', K_PAYLOAD, job_key, attempt_field(job_key))
local rec = read[1]
if not rec then return {} end
local topic = topic_of(job_key)
local a = parse_attempt(read[2])
local state, due = nil, a.due
local score = redis.call('ZSCORE', K_DUE, job_key)
if score then
  state, due = 'D', due_of_due(tonumber(score))
else
  score = redis.call('ZSCORE', ready_key(topic), job_key)
  if score then
    state, due = 'R', due_of_ready(tonumber(score))
  elseif redis.call('ZSCORE', K_LEASE, job_key) then
    state = 'I'
  elseif redis.call('ZSCORE', K_DIED, job_key) then
    state = 'X'
  else
    return {}
  end
end
local created, payload = string.match(rec, '^([^;| ]*)[^|]*|(.*)$')
return { state, created, due, a.attempts, payload }
