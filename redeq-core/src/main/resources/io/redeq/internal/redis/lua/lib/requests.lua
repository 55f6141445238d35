-- Requests a client may send twice. When a connection drops after a command was sent, Lettuce
-- sends the command again once it has reconnected, unless its caller gave up waiting and
-- cancelled it; a command that ran but whose reply was lost then runs twice. claim and cancel
-- remember the requests that changed something or found something to do (a claim token, a
-- cancel's request id) in the bucket's requests zset, by Redis time, and answer a request they
-- meet again from what the first run did. An entry is kept for `keep` ms, which the client makes
-- longer than it waits for a reply, and the newest MAX_REQUESTS at most; the key expires once
-- unused for `keep` ms.
local MAX_REQUESTS = 10000

local function ran_before(requests, id)
  return redis.call('ZSCORE', requests, id) ~= false
end

-- The key's upkeep after an entry was added: its expiry, and in one millisecond of TRIM_EVERY (of
-- the Redis clock) only, the trims, which are the key's removals; they cannot empty it, since it
-- holds the entry just added (see the order rule in prelude.lua). Claims run once or more per
-- job, so an entry may outlive `keep` a little, and the cap be passed by what a few
-- milliseconds add, which costs nothing, since ids are never reused.
local TRIM_EVERY = 16
local function keep_requests(requests, now, keep)
  redis.call('PEXPIRE', requests, keep)
  if now % TRIM_EVERY == 0 then
    redis.call('ZREMRANGEBYSCORE', requests, '-inf', '(' .. (now - keep))
    redis.call('ZREMRANGEBYRANK', requests, '0', -(MAX_REQUESTS + 1))
  end
end

-- An add, done with the script's other adds.
local function remember_request(requests, id, now, keep)
  redis.call('ZADD', requests, now, id)
  keep_requests(requests, now, keep)
end

-- Whether a request runs for the first time. One that finds work to do is checked and
-- remembered in one command (ZADD NX answers whether the id was new), and its caller runs
-- keep_requests after it, whether the request then changes something or not, so the key never
-- stays without its expiry; one with nothing to do is only looked up.
local function first_run(requests, id, now, has_work)
  if has_work then
    return redis.call('ZADD', requests, 'NX', now, id) == 1
  end
  return not ran_before(requests, id)
end

-- The in-flight jobs of a topic held under one claim token, with their attempt records. Scans
-- the bucket's leases: only for a claim whose reply was lost, which is rare.
local function held_by(topic, token)
  local prefix = topic .. ':'
  local held = {}
  for _, job_key in ipairs(redis.call('ZRANGE', K_LEASE, '0', '-1')) do
    if string.sub(job_key, 1, #prefix) == prefix then
      local a = parse_attempt(read_attempt(job_key))
      if a.token == token then
        held[#held + 1] = { job_key = job_key, attempt = a }
      end
    end
  end
  return held
end
