-- cancel-all: cancels the waiting jobs (DELAYED or READY) among these of one topic in one bucket,
-- each as cancel cancels one (lib/state.lua, lib/removal.lua); running, dead and unknown jobs are
-- left alone. A call sent again after a reconnect (see lib/requests.lua) answers what the first
-- run cancelled: the first run keeps its answer, for `keep` ms, in a key of its own request id.
-- KEYS: the bucket keys with the topic's ready and dead keys (see prelude), then the answer key
-- ARGV[1] topic, ARGV[2] ms to keep the answer, ARGV[3] the caller's bucket count, ARGV[4..] jobKeys
-- of the topic (1000 at most)
-- Returns: the jobKeys it cancelled
local topic, keep = ARGV[1], tonumber(ARGV[2])
local answer = KEYS[#KEYS]
if not keep or keep <= 0 then
  return redis.error_reply('ERR redeq: cancel-all needs how long to keep its answer, but got ' .. tostring(ARGV[2]))
end
if #ARGV - 3 > 1000 then
  return redis.error_reply('ERR redeq: cancel-all takes 1000 jobs per call at most, but got ' .. (#ARGV - 3))
end
-- The answer is the jobKeys, one per line (neither topics nor ids hold a control character).
local kept = redis.call('GET', answer)
if kept then
  local first_run = {}
  for job_key in string.gmatch(kept, '[^\n]+') do first_run[#first_run + 1] = job_key end
  return first_run
end
local refused = moved_refusal(ARGV[3])
if refused then return refused end
local job_keys = {}
for i = 4, #ARGV do job_keys[#job_keys + 1] = ARGV[i] end
local delayed, ready = waiting_among(topic, job_keys)
local cancelled = {}
for _, job_key in ipairs(delayed) do cancelled[#cancelled + 1] = job_key end
for _, job_key in ipairs(ready) do cancelled[#cancelled + 1] = job_key end
if #cancelled == 0 then return cancelled end
count(topic, -#cancelled)
flush_counts()
redis.call('SET', answer, table.concat(cancelled, '\n'), 'PX', keep)
remove_waiting(topic, delayed, ready)
return cancelled
