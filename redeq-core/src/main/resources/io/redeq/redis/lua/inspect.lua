-- inspect: a read-only look at one bucket for metrics and health: Redis time, how overdue its
-- earliest delayed job is, every count, and for each topic with READY jobs the due time of the one
-- that has waited longest. Changes nothing.
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag
-- Returns: now, due ms of the earliest delayed job (-1 none), number of count fields n, then n
--   pairs "<topic>:<state>", count, then pairs topic, due ms of the oldest READY job
local now = now_ms()
local out = { now, -1, 0 }
local first = redis.call('ZRANGE', K_DELAYED, 0, 0, 'WITHSCORES')
if first[2] then out[2] = tonumber(first[2]) end
local counts = redis.call('HGETALL', K_COUNTS)
out[3] = #counts / 2
local ready_topics = {}
for i = 1, #counts, 2 do
  out[#out + 1] = counts[i]
  out[#out + 1] = tonumber(counts[i + 1])
  local topic, state = string.match(counts[i], '^(.+):(%u)$')
  if state == 'R' and tonumber(counts[i + 1]) > 0 then
    ready_topics[#ready_topics + 1] = topic
  end
end
for _, topic in ipairs(ready_topics) do
  -- The head may be a stale entry (a cancelled job); look a few entries deep for a live one.
  local heads = redis.call('LRANGE', ready_key(topic), 0, 9)
  for _, job_key in ipairs(heads) do
    local rec = redis.call('HGET', K_JOBS, job_key)
    if rec then
      local j = parse(rec)
      if j.state == 'R' then
        out[#out + 1] = topic
        out[#out + 1] = j.due
        break
      end
    end
  end
end
return out
