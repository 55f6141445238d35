-- claim: takes up to n READY jobs of one topic from one bucket (lowest due first) and puts each
-- IN_FLIGHT under a lease, in the same step, so no job is ever out of Redis's sight. A job whose
-- attempts are used up (its last lease expired) goes to DEAD instead of being delivered again.
-- A claim token is used once. A claim sent again with a token that already took jobs (Lettuce
-- does that after reconnecting when the first run's reply was lost) takes nothing more and
-- delivers the jobs still held under the token, as the first run left them.
-- KEYS: the bucket keys with the topic's ready and dead keys (see prelude), then the requests key
-- ARGV[1] topic, ARGV[2] n, ARGV[3] lease ms, ARGV[4] claim token, ARGV[5] max attempts,
-- ARGV[6] ms to remember the token
-- ARGV[5] is the subscription's; a job that set its own (lib/settings.lua) is held to that.
-- Returns: now, READY jobs left in this bucket, then per claimed job the 7 values of deliver
--   (lib/delivery.lua)
local topic = ARGV[1]
local n = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
local token = ARGV[4]
local max_attempts = tonumber(ARGV[5])
local keep = tonumber(ARGV[6])
local requests = KEYS[#KEYS]
if not keep or keep <= 0 then
  return redis.error_reply('ERR redeq: claim needs how long to remember its token, but got ' .. tostring(ARGV[6]))
end
local ready = ready_key(topic)
local now = now_ms()
local waiting = redis.call('ZCARD', ready)

if ran_before(requests, token) then
  local out = { now, waiting }
  for _, held in ipairs(held_by(topic, token)) do
    local rec = redis.call('HGET', K_PAYLOAD, held.job_key)
    if rec then
      deliver(out, held.job_key, held.attempt.attempts, held.attempt.due, rec)
    end
  end
  return out
end

-- The pop is the one removal, and the ready set is not touched after it (see prelude).
local popped = redis.call('ZPOPMIN', ready, n)
local out = { now, waiting - #popped / 2 }
local claimed, leases, broken = 0, {}, {}
for i = 1, #popped, 2 do
  local job_key, due = popped[i], due_of_ready(tonumber(popped[i + 1]))
  local a = parse_attempt(redis.call('HGET', K_ATTEMPT, job_key))
  local rec = redis.call('HGET', K_PAYLOAD, job_key)
  if a.attempts > 0 and a.attempts >= max_attempts_of(rec and settings_of(rec) or '', max_attempts) then
    bury(job_key, topic, now, redis.call('HGET', K_ERROR, job_key) or 'attempts used up')
  elseif rec then
    a.attempts = a.attempts + 1
    a.due = due
    a.token = token
    redis.call('HSET', K_ATTEMPT, job_key, format_attempt(a))
    leases[#leases + 1] = now + lease
    leases[#leases + 1] = job_key
    claimed = claimed + 1
    deliver(out, job_key, a.attempts, due, rec)
  else
    -- A READY entry without a record cannot be delivered; drop what is left of it.
    broken[#broken + 1] = job_key
    count(topic, -1)
  end
end
zadd_all(K_LEASE, leases)
count(topic .. ':i', claimed)
flush_counts()
if claimed > 0 then
  remember_request(requests, token, now, keep)
end
if #broken > 0 then
  remove_all('HDEL', K_ATTEMPT, broken)
  remove_all('HDEL', K_ERROR, broken)
end
return out
