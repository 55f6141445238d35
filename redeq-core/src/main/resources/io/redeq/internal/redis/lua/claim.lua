-- claim: takes up to n READY jobs of one topic from one bucket into a consumer's free slots
-- (see claim_ready in lib/claiming.lua for what a claim does and how a second run answers).
-- KEYS: the bucket keys with the topic's ready and dead keys (see prelude), then the requests key
-- ARGV[1] topic, ARGV[2] n, ARGV[3] lease ms, ARGV[4] claim token, ARGV[5] max attempts,
-- ARGV[6] ms to remember the token, ARGV[7] (optional, '' none) the highest ready score to claim
-- Returns: now, READY jobs left in this bucket, then per claimed job the 7 values of deliver
--   (lib/delivery.lua)
local topic = ARGV[1]
local keep = tonumber(ARGV[6])
if not keep or keep <= 0 then
  return redis.error_reply('ERR redeq: claim needs how long to remember its token, but got ' .. tostring(ARGV[6]))
end
local bound = score_bound(ARGV[7])
if bound == false then
  return redis.error_reply('ERR redeq: a claim\'s score bound must be a number, but got ' .. tostring(ARGV[7]))
end
local refused = frozen_refusal()
if refused then return refused end
local now = now_ms()
local out = { now, 0 }
local left, broken = claim_ready(out, KEYS[#KEYS], topic, tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4],
  tonumber(ARGV[5]), keep, now, bound)
out[2] = left
flush_counts()
remove_all('HDEL', K_PAYLOAD, job_fields(nil, broken))
remove_all('HDEL', K_ERROR, broken)
return out
