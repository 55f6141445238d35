-- prelude.lua: helpers shared by every redeq job script; the loader puts it in front of each one.
--
-- Every job script is called with the same fixed keys, all inside one bucket's hash tag:
--   KEYS[1] jobs      hash  jobKey -> record
--   KEYS[2] delayed   zset  jobKey -> due time (ms, Redis clock)
--   KEYS[3] inflight  zset  jobKey -> lease deadline (ms, Redis clock)
--   KEYS[4] counts    hash  "<topic>:<D|R|I|X>" -> number of jobs in that state
--   KEYS[5] dead      zset  jobKey -> time it died (all topics; drives retention)
--   KEYS[6] errors    hash  jobKey -> last error text
--   KEYS[7] lock      string migrator owner token
-- and ARGV[1] = the bucket's tag, from which per-topic keys of the same slot are built:
--   <tag>:r:<topic>   list  jobKeys that are due and wait for a consumer (READY)
--   <tag>:x:<topic>   zset  jobKey -> time it died (DEAD, for paging one topic)
--
-- jobKey is "<topic>:<id>"; topics cannot contain ':' so the topic is everything before the first one.
-- A record is "<state>|<attempts>|<created ms>|<due ms>|<claim token>|<payload>", state one of
-- D (delayed), R (ready), I (in flight), X (dead). The payload comes last so it may contain '|'.
-- A READY job's list entry may outlive it (cancel or replace leave it in place to stay O(1));
-- a list entry counts only while the record it names is in state R.
local K_JOBS, K_DELAYED, K_INFLIGHT, K_COUNTS, K_DEAD, K_ERRORS, K_LOCK =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local TAG = ARGV[1]

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function topic_of(job_key)
  return string.match(job_key, '^([^:]+):')
end

local function ready_key(topic)
  return TAG .. ':r:' .. topic
end

local function dead_key(topic)
  return TAG .. ':x:' .. topic
end

local function parse(rec)
  local s, a, c, d, t, p = string.match(rec, '^(%u)|(%d+)|(%d+)|(%d+)|([^|]*)|(.*)$')
  return { state = s, attempts = tonumber(a), created = tonumber(c), due = tonumber(d), token = t, payload = p }
end

local function format(j)
  return j.state .. '|' .. string.format('%d|%d|%d', j.attempts, j.created, j.due) .. '|' .. j.token .. '|' .. j.payload
end

local function count(topic, state, delta)
  if delta ~= 0 then
    redis.call('HINCRBY', K_COUNTS, topic .. ':' .. state, delta)
  end
end

-- Whether job_key is now the earliest entry of the delay index (the migrator must wake sooner).
local function is_earliest(job_key)
  local first = redis.call('ZRANGE', K_DELAYED, 0, 0)
  return (first[1] == job_key) and 1 or 0
end

local function bury(job_key, j, topic, now, reason)
  count(topic, j.state, -1)
  j.state = 'X'
  j.token = ''
  redis.call('HSET', K_JOBS, job_key, format(j))
  redis.call('ZADD', K_DEAD, now, job_key)
  redis.call('ZADD', dead_key(topic), now, job_key)
  redis.call('HSET', K_ERRORS, job_key, reason)
  count(topic, 'X', 1)
end
