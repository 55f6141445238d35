-- The attempt record (see prelude): "<attempts>|<due ms>|<claim token>", kept in the payload hash
-- beside the job's record under its own field, so one HMGET reads both and one HDEL forgets both.
-- Payload fields are jobKeys, which start with their topic's letter or digit; '@' never starts one.
local function attempt_field(job_key)
  return '@' .. job_key
end

local function attempt_fields(job_keys)
  local fields = {}
  for i, job_key in ipairs(job_keys) do fields[i] = '@' .. job_key end
  return fields
end

local function read_attempt(job_key)
  return redis.call('HGET', K_PAYLOAD, '@' .. job_key)
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

local function write_attempt(job_key, r)
  redis.call('HSET', K_PAYLOAD, '@' .. job_key, format_attempt(r))
end

-- Whether a job is IN_FLIGHT under this claim token, from its attempt record alone: a claim
-- token there means exactly that. Every script that puts a job in the lease set writes its token
-- (claim, migrate's hand-off), and every one that takes it out clears the token (migrate when the
-- lease expires, retry, bury, release, release-claim) or deletes the record (complete,
-- reshard-remove); tokens are never reused. So completion and the other fenced steps need no
-- look at the lease set.
local function holds_claim(a, token)
  return token ~= '' and a.token == token
end
