-- prelude.lua: the keys and helpers every redeq job script needs; the loader puts it in front of
-- each one, followed by the files of lib/ whose functions the script calls (and only those:
-- Redis runs the whole text at every call, and each function defined costs time).
--
-- Data model (format 3). Every job script runs on ONE bucket and declares EVERY key it touches,
-- all inside the bucket's hash tag, so Redis Cluster checks them before the script runs (a slot
-- in migration then refuses the whole script up front instead of failing it halfway):
--   KEYS[1] payload  hash  jobKey -> "<created>[;t..;a..;p..][ <traceparent>[ <tracestate>]]|<payload>" (lib/settings.lua)
--                          written once, never rewritten: the job's own timeout, attempts and
--                          priority (lib/settings.lua), and with tracing on its trace context
--                          (no '|' before the payload's: see io.redeq.internal.observation.TraceContext);
--                          "@<jobKey>" -> "<attempts>|<due ms>|<claim token>", the attempt record
--                          (lib/attempts.lua): only for jobs claimed at least once; small,
--                          rewritten at each claim. In the same hash as the job's record, so one
--                          HMGET reads both and one HDEL forgets both (format 2 kept two hashes)
--   KEYS[2] due      zset  jobKey -> due ms (+ priority/16)      (DELAYED, all topics)
--   KEYS[3] lease    zset  jobKey -> lease deadline ms           (IN_FLIGHT, all topics)
--   KEYS[4] died     zset  jobKey -> time it died               (DEAD, all topics: retention)
--   KEYS[5] error    hash  jobKey -> last error text
--   KEYS[6] count    hash  "<topic>" -> pending jobs (DELAYED + READY + IN_FLIGHT), changed
--                          once per script; READY and DEAD are counted by ZCARD, IN_FLIGHT by
--                          the topic's members of the lease set, which the consumers' slots
--                          bound (so stats read it instead of every claim and completion
--                          paying for a counter); an older "<topic>:i" field is ignored;
--                          "~buckets" -> bucket count of the layout a reshard made (absent before);
--                          "~next" -> the earliest due ms the bucket's migrators were told of
--                          (written by migrate, lowered by schedule; see schedule.lua)
--   KEYS[7] lock     string migrator owner token
--   then per declared topic t (ARGV[1] lists them, comma separated, in the same order):
--   KEYS[8+2k]  ready:<t> zset jobKey -> due ms, less a minute per priority level (+ priority/16)
--                              (READY, claimed lowest score first; see lib/settings.lua)
--   KEYS[9+2k]  dead:<t>  zset jobKey -> time it died (DEAD, for paging one topic)
--   claim, cancel and release-claim only, after the topic pairs (migrate: after its recurring hash):
--   KEYS[#KEYS] requests  zset request id -> time it ran  (see lib/requests.lua)
--
-- A job's state is the index that holds it: exactly one of due, ready:<t>, lease, died.
--
-- Order inside every script that changes jobs: read everything first, then add (HSET, ZADD,
-- HINCRBY), and remove last, with ONE command per key. Redis deletes a key that becomes empty,
-- and in a cluster slot in migration any later command on that key fails the script halfway
-- ("non local key"), after earlier writes. Removing last means such a failure can leave a job in
-- its new index as well as its old one, never in none.
-- jobKey is "<topic>:<id>"; topics cannot contain ':' or ',' so the topic is everything before the
-- first ':'. Times are integer ms on the Redis clock, 0 <= t <= MAX_TIME (< 2^53, exact in Lua).
local MAX_TIME = 253402300799999 -- 9999-12-31T23:59:59.999Z

-- A call's own state, set by begin_call before the script's body runs: the bucket's keys, the
-- index in KEYS of each declared topic's ready key (its dead key follows), and the counter
-- changes of lib/counts.lua. A script sent with EVALSHA defines everything anew at each call;
-- the function library (see io.redeq.internal.redis.script.FunctionLibrary) defines the helpers once and calls
-- begin_call at each call, so nothing here may outlive a call.
local K_PAYLOAD, K_DUE, K_LEASE, K_DIED, K_ERROR, K_COUNT, K_LOCK
local TOPIC_KEYS, deltas

-- Topics are read with plain find: string.gmatch and a table per topic cost more than the
-- rest of the prelude together.
local function begin_call(keys, topics)
  K_PAYLOAD, K_DUE, K_LEASE, K_DIED, K_ERROR, K_COUNT, K_LOCK =
    keys[1], keys[2], keys[3], keys[4], keys[5], keys[6], keys[7]
  TOPIC_KEYS, deltas = {}, {}
  local from, at = 1, 8
  while true do
    local comma = string.find(topics, ',', from, true)
    local topic = string.sub(topics, from, (comma or 0) - 1)
    if topic ~= '' then
      TOPIC_KEYS[topic] = at
      at = at + 2
    end
    if not comma then break end
    from = comma + 1
  end
end

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function topic_of(job_key)
  local colon = string.find(job_key, ':', 1, true)
  if colon and colon > 1 then return string.sub(job_key, 1, colon - 1) end
  return nil
end

-- The keys of a topic; a script asks only for topics it checked with undeclared() or was given.
local function ready_key(topic)
  return KEYS[TOPIC_KEYS[topic]]
end

local function dead_key(topic)
  return KEYS[TOPIC_KEYS[topic] + 1]
end
