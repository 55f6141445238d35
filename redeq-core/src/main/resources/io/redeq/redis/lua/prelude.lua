-- prelude.lua: helpers shared by redeq's job scripts; the loader puts it in front of each one.
--
-- Data model (format 2). Every job script runs on ONE bucket and declares EVERY key it touches,
-- all inside the bucket's hash tag, so Redis Cluster checks them before the script runs (a slot
-- in migration then refuses the whole script up front instead of failing it halfway):
--   KEYS[1] payload  hash  jobKey -> "<created ms>|<payload>"   written once, never rewritten
--   KEYS[2] attempt  hash  jobKey -> "<attempts>|<due ms>|<claim token>"
--                          only for jobs claimed at least once; small, rewritten at each claim
--   KEYS[3] due      zset  jobKey -> due ms                      (DELAYED, all topics)
--   KEYS[4] lease    zset  jobKey -> lease deadline ms           (IN_FLIGHT, all topics)
--   KEYS[5] died     zset  jobKey -> time it died               (DEAD, all topics: retention)
--   KEYS[6] error    hash  jobKey -> last error text
--   KEYS[7] count    hash  "<topic>" -> pending jobs (DELAYED + READY + IN_FLIGHT),
--                          "<topic>:i" -> IN_FLIGHT jobs; READY and DEAD are counted by ZCARD;
--                          "~buckets" -> bucket count of the layout a reshard made (absent before)
--   KEYS[8] lock     string migrator owner token
--   then per declared topic t (ARGV[1] lists them, comma separated, in the same order):
--   KEYS[9+2k]  ready:<t> zset jobKey -> due ms   (READY, claimed lowest score first)
--   KEYS[10+2k] dead:<t>  zset jobKey -> time it died (DEAD, for paging one topic)
--   claim and cancel only, after the topic pairs:
--   KEYS[#KEYS] requests  zset request id -> time it ran  (see ran_before below)
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
local K_PAYLOAD, K_ATTEMPT, K_DUE, K_LEASE, K_DIED, K_ERROR, K_COUNT, K_LOCK =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]

local MAX_TIME = 253402300799999 -- 9999-12-31T23:59:59.999Z

local TOPIC_KEYS = {}
do
  local k = 0
  for topic in string.gmatch(ARGV[1], '[^,]+') do
    TOPIC_KEYS[topic] = { ready = KEYS[9 + 2 * k], dead = KEYS[10 + 2 * k] }
    k = k + 1
  end
end

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function topic_of(job_key)
  return string.match(job_key, '^([^:]+):')
end

-- The keys of a topic; a script asks only for topics it checked with undeclared() or was given.
local function ready_key(topic)
  return TOPIC_KEYS[topic].ready
end

local function dead_key(topic)
  return TOPIC_KEYS[topic].dead
end

-- Topics of these job keys whose keys the caller did not declare (the caller retries with them).
local function undeclared(job_keys, missing, seen)
  for _, job_key in ipairs(job_keys) do
    local topic = topic_of(job_key)
    if topic and not TOPIC_KEYS[topic] and not seen[topic] then
      seen[topic] = true
      missing[#missing + 1] = topic
    end
  end
end

local function parse_attempt(rec)
  if not rec then
    return { attempts = 0, due = 0, token = '' }
  end
  local a, d, t = string.match(rec, '^(%d+)|(%d+)|(.*)$')
  return { attempts = tonumber(a), due = tonumber(d), token = t }
end

local function format_attempt(r)
  return string.format('%d|%d|', r.attempts, r.due) .. r.token
end

-- Per-topic counter changes, applied once at the end of a script (one HINCRBY per field).
local deltas = {}
local function count(field, delta)
  deltas[field] = (deltas[field] or 0) + delta
end
local function flush_counts()
  for field, delta in pairs(deltas) do
    if delta ~= 0 then
      redis.call('HINCRBY', K_COUNT, field, delta)
    end
  end
end

-- Refuses to add jobs sent by an instance whose bucket count is not the one the last reshard
-- made: it would put them where the new layout does not look for them.
local function refuse_other_layout(buckets)
  local layout = redis.call('HGET', K_COUNT, '~buckets')
  if layout and layout ~= buckets then
    return redis.error_reply('ERR redeq: this prefix was resharded to ' .. layout
      .. ' buckets, but the instance that sent this runs with ' .. buckets)
  end
  return nil
end

-- The state of a job, read from the index that holds it: 'D', 'R', 'I', 'X', or nil (unknown).
local function state_of(job_key, topic)
  if redis.call('ZSCORE', K_DUE, job_key) then return 'D' end
  if redis.call('ZSCORE', ready_key(topic), job_key) then return 'R' end
  if redis.call('ZSCORE', K_LEASE, job_key) then return 'I' end
  if redis.call('ZSCORE', K_DIED, job_key) then return 'X' end
  return nil
end

-- Adds a job to DEAD with the reason; the caller removes it from where it was.
local function bury(job_key, topic, now, reason)
  redis.call('ZADD', K_DIED, now, job_key)
  redis.call('ZADD', dead_key(topic), now, job_key)
  redis.call('HSET', K_ERROR, job_key, reason)
  count(topic, -1)
end

-- Removes members from a key with one command (a chunk of 1000 at most; callers keep their
-- batches below that, so the key is touched once: see the order rule above).
local function remove_all(cmd, key, members)
  for from = 1, #members, 1000 do
    redis.call(cmd, key, unpack(members, from, math.min(#members, from + 999)))
  end
end

-- Forgets everything about these jobs (completed, cancelled, or dead past retention).
local function forget_all(job_keys)
  remove_all('HDEL', K_PAYLOAD, job_keys)
  remove_all('HDEL', K_ATTEMPT, job_keys)
  remove_all('HDEL', K_ERROR, job_keys)
end

-- Adds score/member pairs to a zset in chunks, so no unpack ever exceeds Lua's stack limit.
local CHUNK = 500
local function zadd_all(key, pairs_list)
  for from = 1, #pairs_list, 2 * CHUNK do
    local to = math.min(#pairs_list, from + 2 * CHUNK - 1)
    redis.call('ZADD', key, unpack(pairs_list, from, to))
  end
end

-- Requests a client may send twice. When a connection drops after a command was sent, Lettuce
-- sends the command again once it has reconnected, unless its caller gave up waiting and
-- cancelled it; a command that ran but whose reply was lost then runs twice. claim and cancel
-- remember the requests that changed something (a claim token, a cancel's request id) in the
-- bucket's requests zset, by Redis time, and answer a request they meet again from what the
-- first run did. An entry is kept for `keep` ms, which the client makes longer than it waits for
-- a reply, and the newest MAX_REQUESTS at most; the key expires once unused for `keep` ms.
local MAX_REQUESTS = 10000

local function ran_before(requests, id)
  return redis.call('ZSCORE', requests, id) ~= false
end

-- An add, done with the script's other adds. The trims after it are the key's removals; they
-- cannot empty it, since it holds the entry just added (see the order rule above).
local function remember_request(requests, id, now, keep)
  redis.call('ZADD', requests, now, id)
  redis.call('PEXPIRE', requests, keep)
  redis.call('ZREMRANGEBYSCORE', requests, '-inf', '(' .. (now - keep))
  redis.call('ZREMRANGEBYRANK', requests, 0, -(MAX_REQUESTS + 1))
end

-- The in-flight jobs of a topic held under one claim token, with their attempt records. Scans
-- the bucket's leases: only for a claim whose reply was lost, which is rare.
local function held_by(topic, token)
  local prefix = topic .. ':'
  local held = {}
  for _, job_key in ipairs(redis.call('ZRANGE', K_LEASE, 0, -1)) do
    if string.sub(job_key, 1, #prefix) == prefix then
      local a = parse_attempt(redis.call('HGET', K_ATTEMPT, job_key))
      if a.token == token then
        held[#held + 1] = { job_key = job_key, attempt = a }
      end
    end
  end
  return held
end
