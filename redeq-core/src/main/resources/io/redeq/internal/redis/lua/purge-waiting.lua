-- purge-waiting: one step of the admin's purge of a topic's DELAYED or READY jobs in one bucket.
-- It deletes up to ARGV[5] of them, each as cancel deletes one (lib/removal.lua), looking at no
-- more than ARGV[4] index entries: a purge of a million jobs runs as many short calls, and Redis
-- serves other clients between them. READY ('R') has an index per topic: every entry is the
-- topic's, and the next step starts at its head again. DELAYED ('D') shares one index with every
-- topic of the bucket: the caller walks it from rank ARGV[3], and the entries of other topics it
-- passes stay where they are, before the next step's start.
-- KEYS: the bucket keys with the topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] state 'D' | 'R', ARGV[3] start rank, ARGV[4] most entries to look at,
--   ARGV[5] most jobs to delete (1000 at most), ARGV[6] the caller's bucket count (see moved_refusal in
--   lib/layout.lua)
-- Returns: the rank to start the next step at (-1 when the index ends before it), then the jobKeys
--   it deleted
local topic, state = ARGV[1], ARGV[2]
local start, look, want = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
if not want or want < 1 or want > 1000 then
  return redis.error_reply('ERR redeq: purge-waiting deletes 1 to 1000 jobs per call, but was asked ' .. tostring(ARGV[5]))
end
local refused = moved_refusal(ARGV[6])
if refused then return refused end
local index, shared
if state == 'R' then
  index, shared = ready_key(topic), false
elseif state == 'D' then
  index, shared = K_DUE, true
else
  return redis.error_reply('ERR redeq: purge-waiting knows the states D and R, but got ' .. tostring(state))
end
local entries = redis.call('ZRANGE', index, start, start + look - 1)
local prefix = topic .. ':'
local purged, passed, looked = {}, 0, 0
for i = 1, #entries do
  if #purged >= want then break end
  looked = i
  if not shared or string.sub(entries[i], 1, #prefix) == prefix then
    purged[#purged + 1] = entries[i]
  else
    passed = passed + 1
  end
end
local out = { -1 }
if #entries == look or looked < #entries then
  out[1] = start + passed
end
if #purged == 0 then return out end
count(topic, -#purged)
flush_counts()
if shared then
  remove_waiting(topic, purged, {})
else
  remove_waiting(topic, {}, purged)
end
for _, job_key in ipairs(purged) do out[#out + 1] = job_key end
return out
