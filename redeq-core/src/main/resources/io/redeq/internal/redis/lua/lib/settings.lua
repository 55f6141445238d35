-- A payload record: the job's created time, what the job sets for itself, and its payload,
-- written once:
--   "<created>[;t<timeout ms>][;a<max attempts>][;p<priority>][;v<version>][ <trace context>]|<payload>"
-- A job that sets nothing has "<created>|<payload>". The trace context (tracing on) follows a
-- space and may hold ';' itself: settings end before it.
--
-- <created> is the Redis time the job was first scheduled, in ms, written in base 64 (digits
-- 0-9 A-Z a-z - _, most significant first): 7 characters until the year 2109 instead of 13 in
-- decimal. Redis's allocator rounds every record up to a size class, so the shorter record
-- can fit a smaller class. Records written in decimal by earlier
-- builds are read as they are: a decimal time starts with a digit, a base-64 time after 1991
-- with a letter (CreatedTime on the Java side reads both).
local CREATED_DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_'

local function created_text(ms)
  -- Every time from 1972 to 2109 has exactly 7 digits: one string.char of 7 bytes instead
  -- of a new string per digit (this runs on every schedule call).
  if ms >= 68719476736 and ms < 4398046511104 then
    local d7 = ms % 64
    ms = (ms - d7) / 64
    local d6 = ms % 64
    ms = (ms - d6) / 64
    local d5 = ms % 64
    ms = (ms - d5) / 64
    local d4 = ms % 64
    ms = (ms - d4) / 64
    local d3 = ms % 64
    ms = (ms - d3) / 64
    local d2 = ms % 64
    local b = string.byte
    return string.char(b(CREATED_DIGITS, (ms - d2) / 64 + 1), b(CREATED_DIGITS, d2 + 1), b(CREATED_DIGITS, d3 + 1),
      b(CREATED_DIGITS, d4 + 1), b(CREATED_DIGITS, d5 + 1), b(CREATED_DIGITS, d6 + 1), b(CREATED_DIGITS, d7 + 1))
  end
  local text = ''
  repeat
    local digit = ms % 64
    text = string.sub(CREATED_DIGITS, digit + 1, digit + 1) .. text
    ms = (ms - digit) / 64
  until ms == 0
  return text
end

local function settings_of(rec)
  return string.match(rec, '^[^;| ]*([^| ]*)') or ''
end

local function max_attempts_of(settings, default)
  if settings == '' then return default end
  return tonumber(string.match(settings, ';a(%d+)')) or default
end

local function priority_of(settings)
  if settings == '' then return 0 end
  return tonumber(string.match(settings, ';p(%d)')) or 0
end

-- Priority in the scores, so the hot path (migrate, claim) never reads a payload record. Due
-- times are whole ms below 2^48, where a double still holds 1/32: the priority p (0..9) rides
-- in the fraction as p/16, exactly. A job without priority has the plain due ms, as before.
--   due set:   due + p/16                          (migrated at most 1 ms late)
--   ready set: due - p * PRIORITY_STEP + p/16      (p counts as p minutes of waiting: aging)
-- Higher priority is claimed first among jobs due within PRIORITY_STEP of each other, FIFO
-- within one priority; a priority-0 job due 9 minutes before a priority-9 job goes first, so
-- no flood of high-priority jobs holds a low one back by more than 9 * PRIORITY_STEP.
local PRIORITY_STEP = 60000

local function due_score(due, p)
  if p == 0 then return due end
  return due + p / 16
end

local function ready_score(due, p)
  if p == 0 then return due end
  return due - p * PRIORITY_STEP + p / 16
end

local function priority_in(score)
  local whole = math.floor(score)
  if whole == score then return 0, whole end
  return math.floor((score - whole) * 16 + 0.5), whole
end

-- The due ms and priority of a ready-set score.
local function due_of_ready(score)
  local p, whole = priority_in(score)
  return whole + p * PRIORITY_STEP, p
end

-- The due ms and priority of a due-set score.
local function due_of_due(score)
  local p, whole = priority_in(score)
  return whole, p
end
