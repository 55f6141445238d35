-- requeue-dead: gives dead jobs of one topic a fresh set of attempts and makes them READY now.
-- KEYS: the bucket keys with the topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] at most this many (500 at most), ARGV[3] one jobKey ('' = the longest-dead ones),
--   ARGV[4] the caller's bucket count (see moved_refusal in lib/layout.lua)
-- Returns: number of jobs requeued
local refused = moved_refusal(ARGV[4])
if refused then return refused end
local topic = ARGV[1]
local keys
if ARGV[3] ~= '' then
  keys = { ARGV[3] }
else
  keys = redis.call('ZRANGE', dead_key(topic), '0', tonumber(ARGV[2]) - 1)
end
local now = now_ms()
local moved, ready = {}, {}
for _, job_key in ipairs(keys) do
  if redis.call('ZSCORE', dead_key(topic), job_key) then
    moved[#moved + 1] = job_key
    local rec = redis.call('HGET', K_PAYLOAD, job_key)
    ready[#ready + 1] = ready_score(now, rec and priority_of(settings_of(rec)) or 0)
    ready[#ready + 1] = job_key
  end
end
if #moved == 0 then return 0 end
zadd_all(ready_key(topic), ready)
count(topic, #moved)
flush_counts()
remove_all('ZREM', dead_key(topic), moved)
remove_all('ZREM', K_DIED, moved)
remove_all('HDEL', K_PAYLOAD, job_fields(nil, moved))
remove_all('HDEL', K_ERROR, moved)
return #moved
