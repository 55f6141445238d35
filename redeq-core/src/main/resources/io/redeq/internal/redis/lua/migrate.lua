-- migrate: moves due jobs of one bucket to their topics' ready sets, returns expired leases to
-- READY, drops dead jobs past retention, and renews the migrator's lock when it still holds it.
-- Correctness never rests on the lock: each job moves inside this one atomic script, so two
-- migrators on one bucket can neither lose nor double a job. Payload records are not touched.
-- Due recurring triggers (lib/recurring.lua) become occurrences here, each with its next trigger.
-- Hand-off: idle consumers of the calling instance may take due jobs of their topics straight
-- to IN_FLIGHT in this same script, as claim would have done right after (same lease, attempt
-- record, claim token and request memory), which saves the signal, the consumer's wake-up and
-- its claim. Where the topic has READY jobs in this bucket (a consumer behind), the offer claims
-- from the ready set once this call's due jobs are in it, lowest score first, exactly as claim
-- would: no job overtakes one that was waiting. What a consumer cannot take goes to READY as usual.
-- Early hand-off: an offer may also take jobs of its topic due within its lead (up to a few dozen
-- ms), whether or not jobs are due already. They go IN_FLIGHT under its lease as above, and the
-- consumer starts each once the Redis clock has surely reached its due time: the round trip that
-- would make every job late by its length is made before the job is due. A job no offer takes
-- stays in the due set.
-- Completions ride along: a call that carries offers may also carry their consumers' finished jobs
-- of this bucket, which it ends as complete.lua would (lib/finishing.lua, fenced by each job's
-- claim token). A consumer that gets its jobs by hand-off then pays no script of its own to
-- complete them.
-- KEYS: the bucket keys with the ready and dead keys of the declared topics (see prelude), then
--   the recurring hash, then the requests key (see lib/requests.lua)
-- ARGV[1] topics, ARGV[2] batch size, ARGV[3] lock token ('' = do not touch the lock),
-- ARGV[4] lock ttl ms, ARGV[5] dead-letter retention ms (0 = skip the retention pass),
-- ARGV[6] 1 to reclaim expired leases, 0 to skip (the sweep finds them; a due job should not pay for it)
-- ARGV[7] ms to remember a hand-off's claim token, ARGV[8] number of offers k (0 none), then k
--   groups of 6: topic (declared), free slots n, lease ms, claim token, the subscription's max attempts,
--   lead ms (jobs due that much later may be handed early; 0 none); then c, the number of
--   completions carried (absent: none; not with the lease or retention pass), and c pairs
--   jobKey, claim token (at most 500 pairs)
-- Returns: 'topics', then the topics whose keys must be declared (nothing was written); or
--   now (in microseconds: the time the call ran at, or, when it handed jobs over before their
--   due time, the time it ended; see the end of this script), next due ms (-1 none), next lease
--   deadline ms (-1 none or not checked), 1 if the lock is held (or was not checked), jobs
--   migrated (recurring occurrences included), leases reclaimed, n, then n jobKeys of recurring
--   jobs whose cron plan needs more ticks, then m, then per offer
--   (in ARGV order) the jobs handed to it: their number, then the 7 values of deliver
--   (lib/delivery.lua) each, then c and per completion carried 1 if it ended, 0 if the claim was
--   no longer ours, then pairs topic, jobs made READY and still READY (none: no pair)
local K_RECURRING = KEYS[#KEYS - 1]
local K_REQUESTS = KEYS[#KEYS]
local batch = tonumber(ARGV[2])
local token = ARGV[3]
-- Redis time to the microsecond: with it the migrator plans its next wake-up to the start of
-- the due millisecond, not up to a millisecond after it.
local function redis_micros()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local micros = redis_micros()
local now = math.floor(micros / 1000)

-- A frozen bucket's jobs are moving to a new layout (lib/layout.lua): nothing is migrated here.
local refused = frozen_refusal()
if refused then return refused end

-- The heads that remain after this call, read now: nothing is read after the removals below.
local function score_at(key, rank)
  local entry = redis.call('ZRANGE', key, rank, rank, 'WITHSCORES')
  if entry[2] then return tonumber(entry[2]) end
  return -1
end

-- The offers' longest lead: how far ahead of now a job may be handed early.
local lead = 0
for k = 0, (tonumber(ARGV[8]) or 0) - 1 do
  lead = math.max(lead, tonumber(ARGV[14 + k * 6]) or 0)
end

-- The due entries (at most batch), the due set's head after what this call reads, and the
-- entries due within the lead after now (soon: early, for offers only). A migrator wakes when a
-- job falls due or, with a consumer, a lead ahead of it, so the usual call finds a few entries
-- within reach: the first PEEK entries then tell both in one read. Only a call that finds all
-- of them within reach reads on. A call that finds the head already due (it ran late) also
-- reads what falls due within the lead, so a late call does not leave the next jobs for one
-- call each.
local PEEK = 8
local function due_now()
  local peek = math.min(batch + 1, PEEK)
  local head = redis.call('ZRANGE', K_DUE, '0', peek - 1, 'WITHSCORES')
  local horizon = now + lead
  if not head[2] or tonumber(head[2]) > horizon then
    return {}, head[2] and tonumber(head[2]) or -1, {}
  end
  local within = 1
  while within < #head / 2 and within < batch and tonumber(head[within * 2 + 2]) <= horizon do
    within = within + 1
  end
  local entries, after
  if within < #head / 2 then
    -- An entry past the horizon or the batch was read: it is the head after this call.
    entries, after = { unpack(head, 1, within * 2) }, tonumber(head[within * 2 + 2])
  elseif #head / 2 < peek then
    entries, after = head, -1 -- the whole due set was read
  else
    entries = redis.call('ZRANGEBYSCORE', K_DUE, '-inf', horizon, 'WITHSCORES', 'LIMIT', '0', batch)
    after = score_at(K_DUE, #entries / 2)
  end
  if tonumber(entries[#entries]) <= now then
    return entries, after, {}
  end
  local due, soon = {}, {}
  for i = 1, #entries, 2 do
    local into = (tonumber(entries[i + 1]) <= now) and due or soon
    into[#into + 1] = entries[i]
    into[#into + 1] = entries[i + 1]
  end
  return due, after, soon
end

-- Read first, and refuse before any write when a topic's keys are missing.
local due, next_due, read_early = due_now()
local expired = {}
if ARGV[6] == '1' then
  expired = redis.call('ZRANGEBYSCORE', K_LEASE, '-inf', now, 'LIMIT', '0', batch)
end
local old = {}
if ARGV[5] ~= '0' then
  old = redis.call('ZRANGEBYSCORE', K_DIED, '-inf', now - tonumber(ARGV[5]), 'LIMIT', '0', 100)
end
local missing, seen = {}, {}
local due_keys = {}
local triggers = {}
local soon = {} -- early jobs: handed to an offer of their topic, or left where they are
for i = 1, #read_early, 2 do
  if string.byte(read_early[i]) ~= 126 and TOPIC_KEYS[topic_of(read_early[i])] then
    soon[#soon + 1] = { job_key = read_early[i], score = tonumber(read_early[i + 1]) }
  end
end
local trigger_members = {}
for i = 1, #due, 2 do
  if string.byte(due[i]) == 126 then -- '~': a recurring trigger, not a job
    triggers[#triggers + 1] = string.sub(due[i], 4)
    trigger_members[#trigger_members + 1] = due[i]
  else
    due_keys[#due_keys + 1] = due[i]
  end
end
undeclared(due_keys, missing, seen)
undeclared(triggers, missing, seen)
undeclared(expired, missing, seen)
undeclared(old, missing, seen)
if #missing > 0 then
  table.insert(missing, 1, 'topics')
  return missing
end

local next_lease = -1
if ARGV[6] == '1' then
  next_lease = score_at(K_LEASE, #expired)
end

-- Due recurring triggers: what each one runs, read before any write. A trigger with a step moves
-- on to its next tick (a ZADD below); one without a definition leaves the due set.
local steps, moved_on = {}, {}
for _, job_key in ipairs(triggers) do
  local def = redis.call('HGET', K_RECURRING, job_key)
  if def then
    local run, payload, plan, score, refill = recurring_step(def,
      redis.call('HGET', K_RECURRING, plan_field(job_key)), now)
    local state = 'merged'
    if run then
      -- One occurrence at a time: a tick that finds the last one still waiting or running is
      -- merged into it. A DEAD one is replaced, as schedule replaces DEAD jobs.
      state = state_of(job_key, topic_of(job_key)) or 'new'
    end
    steps[#steps + 1] = { job_key = job_key, run = run, payload = payload, plan = plan, score = score,
      refill = refill, state = state }
    moved_on[trigger_of(job_key)] = true
  end
end

-- The offers of idle consumers, checked before anything is written.
local offers, offer_of = {}, {}
local keep = tonumber(ARGV[7]) or 0
for k = 0, (tonumber(ARGV[8]) or 0) - 1 do
  local base = 9 + k * 6
  local offer = { topic = ARGV[base], n = tonumber(ARGV[base + 1]), lease = tonumber(ARGV[base + 2]),
    token = ARGV[base + 3], max_attempts = tonumber(ARGV[base + 4]), candidates = {}, handed = {} }
  if not TOPIC_KEYS[offer.topic] or keep <= 0 then
    return redis.error_reply('ERR redeq migrate: an offer needs its topic declared and a time to remember its token: '
      .. tostring(offer.topic) .. ', ' .. tostring(ARGV[7]))
  end
  offers[#offers + 1] = offer
end
-- The completions carried. Their attempt records are read with the first hand-off candidates'
-- (read_attempts below), and they are ended once the hand-off has read its own.
local carried_at = 9 + (tonumber(ARGV[8]) or 0) * 6
local carried = tonumber(ARGV[carried_at]) or 0
local carried_keys, carried_tokens, carried_recs = {}, {}, nil
if carried > 0 and (ARGV[6] == '1' or ARGV[5] ~= '0') then
  -- The lease pass could make one of them READY again in this same call, and the retention
  -- pass removes from the same keys: completions ride only on calls made at a due time.
  return redis.error_reply('ERR redeq migrate: completions ride only on calls without the lease and retention passes')
end
for i = 1, carried do
  carried_keys[i], carried_tokens[i] = ARGV[carried_at + i * 2 - 1], ARGV[carried_at + i * 2]
end

-- The records and attempt records of hand-off candidates (lib/removal.lua's read_jobs); the first
-- read also takes the carried completions' attempt records, so a call that hands over jobs and
-- ends others reads the payload hash once.
local function read_candidates(job_keys)
  if carried_recs or carried == 0 then
    return read_jobs(job_keys)
  end
  local n = #job_keys
  local fields = {}
  for i, job_key in ipairs(job_keys) do
    fields[i], fields[n + i] = job_key, attempt_field(job_key)
  end
  for i, job_key in ipairs(carried_keys) do fields[2 * n + i] = attempt_field(job_key) end
  local values = read_all(K_PAYLOAD, fields)
  local recs, attempt_recs = {}, {}
  for i = 1, n do recs[i], attempt_recs[i] = values[i], values[n + i] end
  carried_recs = {}
  for i = 1, carried do carried_recs[i] = values[2 * n + i] end
  return recs, attempt_recs
end
-- An offer whose topic has jobs waiting READY claims from the ready set below (lib/claiming.lua,
-- which answers a token that ran before). Otherwise it takes this call's due jobs of its topic;
-- one whose token ran before (Lettuce sent this script again after a reconnect lost the first
-- reply) takes nothing more and gets what it holds, as claim does. With due jobs of its topic,
-- one ZADD NX both asks and remembers the token (lib/requests.lua).
local due_topics = {}
for _, job_key in ipairs(due_keys) do due_topics[topic_of(job_key)] = true end
for _, job in ipairs(soon) do due_topics[topic_of(job.job_key)] = true end
for _, offer in ipairs(offers) do
  local first
  if redis.call('EXISTS', ready_key(offer.topic)) == 1 then
    offer.from_ready = true
  else
    offer.remembered = due_topics[offer.topic] == true
    first = first_run(K_REQUESTS, offer.token, now, offer.remembered)
  end
  if first == false then
    for _, h in ipairs(held_by(offer.topic, offer.token)) do
      local rec = redis.call('HGET', K_PAYLOAD, h.job_key)
      if rec then
        offer.handed[#offer.handed + 1] = { job_key = h.job_key, attempts = h.attempt.attempts, due = h.attempt.due, rec = rec }
      end
    end
  elseif first then
    offer_of[offer.topic] = offer
  end
end

local held = 1
if token ~= '' then
  held = 0
  if redis.call('GET', K_LOCK) == token then
    redis.call('PEXPIRE', K_LOCK, ARGV[4])
    held = 1
  end
end

local ready = {}
local topics = {}
local function make_ready(job_key, due_ms)
  local topic = topic_of(job_key)
  if not ready[topic] then
    ready[topic] = {}
    topics[#topics + 1] = topic
  end
  local list = ready[topic]
  list[#list + 1] = due_ms
  list[#list + 1] = job_key
end

for i = 1, #due, 2 do
  if string.byte(due[i]) ~= 126 then
    local due_ms, p = due_of_due(tonumber(due[i + 1]))
    local offer = offer_of[topic_of(due[i])]
    if offer then
      table.insert(offer.candidates, { job_key = due[i], due = due_ms, score = ready_score(due_ms, p) })
    else
      make_ready(due[i], ready_score(due_ms, p))
    end
  end
end

-- Early jobs go to their topic's offer only, never READY: they are not due.
for _, job in ipairs(soon) do
  local offer = offer_of[topic_of(job.job_key)]
  if offer then
    local due_ms, p = due_of_due(job.score)
    table.insert(offer.candidates, { job_key = job.job_key, due = due_ms, score = ready_score(due_ms, p), early = true })
  end
end

-- Hand-off: each offer takes its topic's due jobs in claim order (lowest ready score first) into
-- its free slots. A job claim would not deliver (no record, attempts used up) goes to READY,
-- where claim deals with it; an early one stays in the due set until it is due.
-- The records and attempt records of the candidates that fit the free slots are read with one
-- HMGET, and the attempt records written with one HSET for the whole call: a call that hands over
-- several jobs pays per call, not per job. A candidate that cannot be delivered frees its slot for
-- the next ones, which are then read the same way.
local leases, attempts_written = {}, {}
local handed_early = {}
for _, offer in ipairs(offers) do
  table.sort(offer.candidates, function(x, y) return x.score < y.score end)
  local from = 1
  while from <= #offer.candidates and #offer.handed < offer.n do
    local to = math.min(#offer.candidates, from + offer.n - #offer.handed - 1)
    local job_keys = {}
    for i = from, to do job_keys[#job_keys + 1] = offer.candidates[i].job_key end
    local recs, attempt_recs = read_candidates(job_keys)
    for i = from, to do
      local c, rec = offer.candidates[i], recs[i - from + 1]
      local a = parse_attempt(attempt_recs[i - from + 1])
      if rec and (a.attempts == 0 or a.attempts < max_attempts_of(settings_of(rec), offer.max_attempts)) then
        a.attempts, a.due, a.token = a.attempts + 1, c.due, offer.token
        attempts_written[#attempts_written + 1] = attempt_field(c.job_key)
        attempts_written[#attempts_written + 1] = format_attempt(a)
        leases[#leases + 1] = now + offer.lease
        leases[#leases + 1] = c.job_key
        offer.handed[#offer.handed + 1] = { job_key = c.job_key, attempts = a.attempts, due = c.due, rec = rec }
        if c.early then handed_early[#handed_early + 1] = c.job_key end
      elseif not c.early then
        make_ready(c.job_key, c.score)
      end
    end
    from = to + 1
  end
  -- What the free slots did not take: due jobs go READY, early ones stay in the due set.
  for i = from, #offer.candidates do
    local c = offer.candidates[i]
    if not c.early then make_ready(c.job_key, c.score) end
  end
  if offer.remembered then
    keep_requests(K_REQUESTS, now, keep)
  end
end
-- The carried completions end now (their removals come last), with one read of their own only
-- where no hand-off read the payload hash.
local finished, finished_flags, failed_before = {}, {}, {}
if carried > 0 then
  if not carried_recs then read_candidates({}) end
  finished, failed_before = finish(finished_flags, carried_keys, carried_tokens, carried_recs)
end
zadd_all(K_LEASE, leases)

local refills = {}
local replaced = {}
local created = 0
for _, step in ipairs(steps) do
  local job_key = step.job_key
  if step.state == 'new' or step.state == 'X' then
    redis.call('HSET', K_PAYLOAD, job_key, created_text(now) .. '|' .. step.payload)
    make_ready(job_key, step.run)
    count(topic_of(job_key), 1)
    created = created + 1
    if step.state == 'X' then replaced[#replaced + 1] = job_key end
  end
  redis.call('HSET', K_RECURRING, plan_field(job_key), step.plan)
  redis.call('ZADD', K_DUE, step.score, trigger_of(job_key))
  if next_due < 0 or step.score < next_due then next_due = step.score end
  if step.refill then refills[#refills + 1] = job_key end
end

local expired_recs, expired_attempts = read_jobs(expired)
local expired_errors = {}
for i, job_key in ipairs(expired) do
  local a = parse_attempt(expired_attempts[i])
  -- The attempt counts: its instance may have run the handler (a job that kills its instance
  -- must still end DEAD). Claims known to be orphaned are handed back by release-claim instead.
  a.token = ''
  attempts_written[#attempts_written + 1] = attempt_field(job_key)
  attempts_written[#attempts_written + 1] = format_attempt(a)
  expired_errors[#expired_errors + 1] = job_key
  expired_errors[#expired_errors + 1] = 'lease expired during attempt ' .. a.attempts
    .. ' (its instance stopped renewing it: crashed, paused or hung)'
  local rec = expired_recs[i]
  make_ready(job_key, ready_score(a.due, rec and priority_of(settings_of(rec)) or 0))
end
add_all('HSET', K_PAYLOAD, attempts_written)
add_all('HSET', K_ERROR, expired_errors)

for _, topic in ipairs(topics) do
  zadd_all(ready_key(topic), ready[topic])
end

-- Offers of topics with jobs waiting READY claim from the ready set, which now holds this call's
-- due jobs too (lib/claiming.lua; its pop is the one removal from that set). READY entries
-- without a record are dropped with the removals below.
local broken = {}
local still_ready = {}
for _, offer in ipairs(offers) do
  if offer.from_ready then
    offer.delivered = {}
    local left, bad = claim_ready(offer.delivered, K_REQUESTS, offer.topic, offer.n, offer.lease, offer.token,
      offer.max_attempts, keep, now)
    still_ready[offer.topic] = left
    for _, job_key in ipairs(bad) do broken[#broken + 1] = job_key end
  end
end

-- After an early hand-off the due set's head is its first early entry no offer took.
if #read_early > 0 then
  local taken = {}
  for _, job_key in ipairs(handed_early) do taken[job_key] = true end
  for i = 1, #read_early, 2 do
    if not taken[read_early[i]] then
      next_due = tonumber(read_early[i + 1])
      break
    end
  end
end

local out = { micros, next_due, next_lease, held, #due_keys + created + #handed_early, #expired, #refills }
for _, job_key in ipairs(refills) do out[#out + 1] = job_key end
out[#out + 1] = #offers
for _, offer in ipairs(offers) do
  if offer.delivered then
    out[#out + 1] = #offer.delivered / 7
    for _, value in ipairs(offer.delivered) do out[#out + 1] = value end
  else
    out[#out + 1] = #offer.handed
    for _, h in ipairs(offer.handed) do
      deliver(out, h.job_key, h.attempts, h.due, h.rec)
    end
  end
end
out[#out + 1] = carried
for _, flag in ipairs(finished_flags) do out[#out + 1] = flag end
-- The topics to signal: jobs this call made READY that no offer took at once.
for _, topic in ipairs(topics) do
  local made = #ready[topic] / 2
  if still_ready[topic] then made = math.min(made, still_ready[topic]) end
  if made > 0 then
    out[#out + 1] = topic
    out[#out + 1] = made
  end
end
-- The due time the caller plans its next call for: schedule.lua reports only jobs due before it
-- ('~next'). Whole ms: a priority's fraction would make a job due in the same ms look earlier.
redis.call('HSET', K_COUNT, '~next', (next_due < 0) and '-1' or string.format('%d', math.floor(next_due)))
flush_counts()

-- Removals last, one command per key (see prelude). The batches are the lowest-scored members,
-- so they are exactly these rank ranges; the triggers moved on to their next tick (later than
-- now) left the front of the due set, so its range is shorter by them.
if #handed_early > 0 and #due > 0 then
  -- Due entries and early ones in one removal: what left the due set by name.
  local gone = {}
  for _, job_key in ipairs(due_keys) do gone[#gone + 1] = job_key end
  for _, member in ipairs(trigger_members) do
    if not moved_on[member] then gone[#gone + 1] = member end
  end
  for _, job_key in ipairs(handed_early) do gone[#gone + 1] = job_key end
  remove_all('ZREM', K_DUE, gone)
elseif #due / 2 - #steps > 0 then
  redis.call('ZREMRANGEBYRANK', K_DUE, '0', #due / 2 - #steps - 1)
elseif #handed_early > 0 then
  remove_all('ZREM', K_DUE, handed_early)
end
-- The completions carried: out of the lease set; their records, attempt records and errors go
-- with the others' below.
local forgotten, errors_forgotten = {}, {}
for _, job_key in ipairs(finished) do forgotten[#forgotten + 1] = job_key end
for _, job_key in ipairs(failed_before) do errors_forgotten[#errors_forgotten + 1] = job_key end
remove_all('ZREM', K_LEASE, finished)
if #replaced > 0 or #broken > 0 then
  -- A DEAD occurrence replaced by a new one: out of the dead indexes, its old attempt and error
  -- forgotten; what is left of a READY entry without a record, forgotten. The retention pass,
  -- which removes from the same keys, waits for the next sweep.
  old = {}
  local by_topic = {}
  for _, job_key in ipairs(replaced) do
    local topic = topic_of(job_key)
    by_topic[topic] = by_topic[topic] or {}
    table.insert(by_topic[topic], job_key)
  end
  for topic, job_keys in pairs(by_topic) do
    remove_all('ZREM', dead_key(topic), job_keys)
  end
  remove_all('ZREM', K_DIED, replaced)
  for _, job_key in ipairs(replaced) do
    forgotten[#forgotten + 1] = job_key
    errors_forgotten[#errors_forgotten + 1] = job_key
  end
  for _, job_key in ipairs(broken) do
    forgotten[#forgotten + 1] = job_key
    errors_forgotten[#errors_forgotten + 1] = job_key
  end
end
-- One HDEL on the payload hash: the records of the completions carried, and the attempt records
-- of those and of replaced or broken entries. (Only a call with the retention pass forgets dead
-- jobs below, and such a call carries no completions and forgets nothing here.)
remove_all('HDEL', K_PAYLOAD, job_fields(finished, forgotten))
remove_all('HDEL', K_ERROR, errors_forgotten)
if #expired > 0 then
  redis.call('ZREMRANGEBYRANK', K_LEASE, '0', #expired - 1)
end
if #old > 0 then
  local dead_by_topic = {}
  for _, job_key in ipairs(old) do
    local topic = topic_of(job_key)
    dead_by_topic[topic] = dead_by_topic[topic] or {}
    table.insert(dead_by_topic[topic], job_key)
  end
  for topic, job_keys in pairs(dead_by_topic) do
    remove_all('ZREM', dead_key(topic), job_keys)
  end
  redis.call('ZREMRANGEBYRANK', K_DIED, '0', #old - 1)
  forget_all(old)
end
-- A job handed over early starts once the consumer's bound of the Redis clock reaches its due
-- time (io.redeq.internal.consumer.RedisClockBound): the reply left after this time, so read now, it is
-- tighter than the one read at the start by how long the call took, and the job starts that
-- much closer to its due time.
if #handed_early > 0 then
  out[1] = redis_micros()
end
return out
