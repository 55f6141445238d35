-- The attempt record (see prelude): "<attempts>|<due ms>|<claim token>".
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

-- Whether a job is IN_FLIGHT under this claim token, from its attempt record alone: a claim
-- token there means exactly that. Every script that puts a job in the lease set writes its token
-- (claim, migrate's hand-off), and every one that takes it out clears the token (migrate when the
-- lease expires, retry, bury, release, release-claim) or deletes the record (complete,
-- reshard-remove); tokens are never reused. So completion and the other fenced steps need no
-- look at the lease set.
local function holds_claim(a, token)
  return token ~= '' and a.token == token
end
