-- complete: deletes finished jobs, but only those whose claim token still matches: a worker whose
-- lease expired and whose job was claimed again elsewhere must not finish the new claim (fencing,
-- lib/finishing.lua). A consumer's hand-off calls carry its completions in the same way (migrate.lua).
-- It may also claim for the same consumer in the same call, filling the slots the finished jobs
-- gave back (BullMQ's moveToFinished returns the next job the same way): one script instead of
-- two while a consumer drains a backlog.
-- KEYS: the bucket keys with the ready and dead keys of the jobs' topics (see prelude), then, when
--   it claims, the requests key
-- ARGV[1] topics, ARGV[2] 0, or 6 or 7 and then the claim's topic (declared), n, lease ms, claim
--   token, max attempts, ms to remember the token (see lib/claiming.lua) and, with 7, the highest
--   ready score to claim ('' none); then pairs: jobKey, claim token
--   (at most 500 pairs)
-- Returns: per pair 1 if completed, 0 if the claim was no longer ours; when it claims, then now,
--   READY jobs of the topic left in this bucket, and per claimed job the 7 values of deliver
local claim_args = tonumber(ARGV[2]) or 0
local out = {}
local job_keys, tokens = {}, {}
for i = 3 + claim_args, #ARGV, 2 do
  job_keys[#job_keys + 1] = ARGV[i]
  tokens[#tokens + 1] = ARGV[i + 1]
end
local bound = nil
if claim_args > 6 then bound = score_bound(ARGV[9]) end
if bound == false then
  return redis.error_reply('ERR redeq complete: a claim\'s score bound must be a number, but got ' .. tostring(ARGV[9]))
end
local done, failed_before = finish(out, job_keys, tokens)
local broken = {}
if claim_args > 0 then
  local keep = tonumber(ARGV[8])
  if not TOPIC_KEYS[ARGV[3]] or not keep or keep <= 0 then
    return redis.error_reply('ERR redeq complete: a claim needs its topic declared and a time to remember its token: '
      .. tostring(ARGV[3]) .. ', ' .. tostring(ARGV[8]))
  end
  local now = now_ms()
  out[#out + 1] = now
  local left_at = #out + 1
  out[left_at] = 0
  -- A frozen bucket (lib/layout.lua) still ends the jobs, but its claim takes nothing.
  if not frozen_refusal() then
    local left
    left, broken = claim_ready(out, KEYS[#KEYS], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6],
      tonumber(ARGV[7]), keep, now, bound)
    out[left_at] = left
  end
end
flush_counts()
-- Removals last, one command per key: the completed jobs (their records and attempt records are
-- fields of one hash), and what is left of the READY entries a claim found broken.
remove_all('ZREM', K_LEASE, done)
local fields = job_fields(done, done)
for _, job_key in ipairs(broken) do
  fields[#fields + 1] = attempt_field(job_key)
  failed_before[#failed_before + 1] = job_key
end
remove_all('HDEL', K_PAYLOAD, fields)
remove_all('HDEL', K_ERROR, failed_before)
return out
