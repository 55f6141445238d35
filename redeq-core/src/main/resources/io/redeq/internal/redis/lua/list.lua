-- list: one step through this bucket's index of a topic's jobs in one state, for the admin's
-- pages. Changes nothing. The caller walks an index in steps (start rank, next rank), so that no
-- call looks at more than ARGV[4] entries and Redis serves other clients between the steps.
-- READY ('R') and DEAD ('X') have an index per topic: every entry is the topic's. DELAYED ('D') and
-- IN_FLIGHT ('I') share one index with every topic of the bucket: entries are kept when their
-- jobKey starts with the topic.
-- KEYS: the bucket keys with the topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] state 'D' | 'R' | 'I' | 'X', ARGV[3] start rank, ARGV[4] most entries to
--   look at, ARGV[5] most entries to return
-- Returns: the rank to start the next step at (-1 when the index ends before it), then pairs
--   jobKey, score (due ms for D and R, their priority taken out; lease deadline for I, time it
--   died for X); D, R and I in rank order (earliest first), X in reverse (most recent first)
local topic, state = ARGV[1], ARGV[2]
local start, look, want = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local index, command, shared = nil, 'ZRANGE', false
if state == 'R' then
  index = ready_key(topic)
elseif state == 'X' then
  index, command = dead_key(topic), 'ZREVRANGE'
elseif state == 'D' then
  index, shared = K_DUE, true
elseif state == 'I' then
  index, shared = K_LEASE, true
else
  return redis.error_reply('ERR redeq: list knows the states D, R, I and X, but got ' .. tostring(state))
end
local entries = redis.call(command, index, start, start + look - 1, 'WITHSCORES')
-- Due and ready scores carry a job's priority (lib/settings.lua): the pages show its due ms.
local function score_of(score)
  if state == 'R' then return (due_of_ready(tonumber(score))) end
  if state == 'D' then return (due_of_due(tonumber(score))) end
  return score
end
local out = { -1 }
local prefix = topic .. ':'
local found, looked = 0, 0
for i = 1, #entries, 2 do
  if found >= want then break end
  looked = looked + 1
  if not shared or string.sub(entries[i], 1, #prefix) == prefix then
    out[#out + 1] = entries[i]
    out[#out + 1] = score_of(entries[i + 1])
    found = found + 1
  end
end
if #entries == 2 * look or looked < #entries / 2 then
  out[1] = start + looked
end
return out
