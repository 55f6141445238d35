-- A claim's score bound as sent: nil for none ('' or absent), false when it is not a number. It
-- stays text: Redis would turn a Lua number into 14 digits, too few for a score with priority.
local function score_bound(arg)
  if arg == nil or arg == '' then return nil end
  if not tonumber(arg) then return false end
  return arg
end

-- Claiming: up to n READY jobs of one topic from one bucket (lowest score first) go IN_FLIGHT
-- under a lease in the same step, so no job is ever out of Redis's sight. A job whose attempts
-- are used up (its last lease expired) goes to DEAD instead of being delivered again. A claim
-- token is used once: a claim sent again with a token that already took jobs (Lettuce does that
-- after reconnecting when the first run's reply was lost) takes nothing more and delivers the
-- jobs still held under the token, as the first run left them (lib/requests.lua). max_attempts is the
-- subscription's; a job that set its own (lib/settings.lua) is held to that. max_score (nil: none)
-- keeps the claim to jobs scored at most that: a consumer that knows a better head in another
-- bucket of the topic leaves the worse jobs here for a later claim.
-- Used by claim.lua, and by complete.lua when a consumer completes and claims in one call.
-- Appends the 7 values of deliver per job to `out`. Returns the READY jobs of the topic left in
-- the bucket, and the keys of READY entries that had no record: the caller removes their attempt
-- and error with its other removals (one command per key, see the order rule in prelude.lua).
-- The pop is the script's one removal from the ready set, which is not touched after it.
local function claim_ready(out, requests, topic, n, lease, token, max_attempts, keep, now, max_score)
  local ready = ready_key(topic)
  local waiting = redis.call('ZCARD', ready)
  if not first_run(requests, token, now, waiting > 0) then
    for _, held in ipairs(held_by(topic, token)) do
      local rec = redis.call('HGET', K_PAYLOAD, held.job_key)
      if rec then
        deliver(out, held.job_key, held.attempt.attempts, held.attempt.due, rec)
      end
    end
    return waiting, {}
  end
  if waiting == 0 then
    return 0, {} -- nothing to pop, and the token was only looked up
  end
  if max_score then
    -- The jobs it may take are the lowest n scored at most the bound: ZPOPMIN pops the same ones.
    n = #redis.call('ZRANGEBYSCORE', ready, '-inf', max_score, 'LIMIT', 0, n)
  end
  local popped = {}
  if n > 0 then
    popped = redis.call('ZPOPMIN', ready, n)
  end
  -- The popped jobs' records and attempt records are read with one HMGET and the attempt records
  -- written with one HSET: a claim of many jobs pays per claim, not per job.
  local job_keys = {}
  for i = 1, #popped, 2 do job_keys[#job_keys + 1] = popped[i] end
  local recs, attempt_recs = read_jobs(job_keys)
  local leases, broken, attempts_written = {}, {}, {}
  for i = 1, #popped, 2 do
    local job_key, due = popped[i], due_of_ready(tonumber(popped[i + 1]))
    local a = parse_attempt(attempt_recs[(i + 1) / 2])
    local rec = recs[(i + 1) / 2]
    if a.attempts > 0 and a.attempts >= max_attempts_of(rec and settings_of(rec) or '', max_attempts) then
      bury(job_key, topic, now, redis.call('HGET', K_ERROR, job_key) or 'attempts used up')
    elseif rec then
      a.attempts = a.attempts + 1
      a.due = due
      a.token = token
      attempts_written[#attempts_written + 1] = attempt_field(job_key)
      attempts_written[#attempts_written + 1] = format_attempt(a)
      leases[#leases + 1] = now + lease
      leases[#leases + 1] = job_key
      deliver(out, job_key, a.attempts, due, rec)
    else
      -- A READY entry without a record cannot be delivered; drop what is left of it.
      broken[#broken + 1] = job_key
      count(topic, -1)
    end
  end
  add_all('HSET', K_PAYLOAD, attempts_written)
  zadd_all(K_LEASE, leases)
  keep_requests(requests, now, keep)
  return waiting - #popped / 2, broken
end
