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
