-- cancel: deletes a waiting job (DELAYED, READY or DEAD). A running job is not touched.
-- Each cancel call sends a request id of its own; a cancel sent again with an id that already
-- cancelled the job (Lettuce does that after reconnecting when the first run's reply was lost)
-- answers 1 as the first run did, though the job is gone.
-- KEYS: the bucket keys with the job's topic's ready and dead keys (see prelude), then the
-- requests key
-- ARGV[1] topic, ARGV[2] jobKey, ARGV[3] request id, ARGV[4] ms to remember it, ARGV[5] the caller's
-- bucket count
-- Returns: 1 if cancelled, 0 if unknown or running
local job_key, request, keep = ARGV[2], ARGV[3], tonumber(ARGV[4])
local requests = KEYS[#KEYS]
if not keep or keep <= 0 then
  return redis.error_reply('ERR redeq: cancel needs how long to remember its request, but got ' .. tostring(ARGV[4]))
end
if ran_before(requests, request) then return 1 end
local refused = moved_refusal(ARGV[5])
if refused then return refused end
local topic = topic_of(job_key)
-- A waiting job is cancelled as cancel-all cancels one (lib/state.lua, lib/removal.lua).
local delayed, ready = waiting_among(topic, { job_key })
local waiting = #delayed + #ready > 0
if not waiting and not redis.call('ZSCORE', K_DIED, job_key) then return 0 end
if waiting then
  count(topic, -1)
  flush_counts()
end
remember_request(requests, request, now_ms(), keep)
if waiting then
  remove_waiting(topic, delayed, ready)
else
  redis.call('ZREM', K_DIED, job_key)
  redis.call('ZREM', dead_key(topic), job_key)
  forget_all({ job_key })
end
return 1
