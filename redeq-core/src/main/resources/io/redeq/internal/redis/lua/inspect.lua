-- inspect: a read-only look at one bucket for metrics and health: Redis time, how overdue its
-- earliest delayed job is, every count, and for each topic with READY jobs the due time of the one
-- that has waited longest. Changes nothing.
-- KEYS: the bucket keys with the ready and dead keys of every topic counted here (see prelude)
-- ARGV[1] topics
-- Returns: 'topics', then the topics whose keys must be declared; or
--   now, due ms of the earliest delayed job (-1 none), number of count fields n, then n pairs
--   "<topic>:<D|R|I|X>", count, then pairs topic, due ms of the oldest READY job
local fields = redis.call('HKEYS', K_COUNT)
local topics, missing = {}, {}
for _, field in ipairs(fields) do
  if not string.find(field, ':', 1, true) and string.sub(field, 1, 1) ~= '~' then
    topics[#topics + 1] = field
    if not TOPIC_KEYS[field] then missing[#missing + 1] = field end
  end
end
if #missing > 0 then
  table.insert(missing, 1, 'topics')
  return missing
end
local now = now_ms()
local out = { now, -1, #topics * 4 }
local first = redis.call('ZRANGE', K_DUE, '0', '0', 'WITHSCORES')
if first[2] then out[2] = due_of_due(tonumber(first[2])) end
-- IN_FLIGHT per topic, from the lease set: it holds only what consumers' slots hold.
local leased = {}
for _, job_key in ipairs(redis.call('ZRANGE', K_LEASE, '0', '-1')) do
  local topic = topic_of(job_key)
  if topic then leased[topic] = (leased[topic] or 0) + 1 end
end
local oldest = {}
for _, topic in ipairs(topics) do
  local pending, in_flight = tonumber(redis.call('HGET', K_COUNT, topic)) or 0, leased[topic] or 0
  local ready = redis.call('ZCARD', ready_key(topic))
  out[#out + 1] = topic .. ':D'
  out[#out + 1] = pending - ready - in_flight
  out[#out + 1] = topic .. ':R'
  out[#out + 1] = ready
  out[#out + 1] = topic .. ':I'
  out[#out + 1] = in_flight
  out[#out + 1] = topic .. ':X'
  out[#out + 1] = redis.call('ZCARD', dead_key(topic))
  if ready > 0 then
    local head = redis.call('ZRANGE', ready_key(topic), '0', '0', 'WITHSCORES')
    oldest[#oldest + 1] = topic
    oldest[#oldest + 1] = due_of_ready(tonumber(head[2]))
  end
end
for _, v in ipairs(oldest) do out[#out + 1] = v end
return out
