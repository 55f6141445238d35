-- rate-grant: grants up to n job starts of one topic under its rate limit, shared by every
-- instance. The log of grants lives in the topic's limiter keys, one hash slot of its own: a
-- topic's jobs are spread over every bucket (every slot), so no claim script could check the
-- limit in its own slot. A consumer asks here first and claims at most what it was granted, then
-- gives back what the claim did not use (rate-refund). A sliding window, exact: for every
-- instant t, the permits granted in (t - window, t] never exceed the limit.
-- KEYS[1] grants zset "<grant id>|<permits>" -> Redis time of the grant
-- KEYS[2] used   string: permits granted in the current window (the sum over KEYS[1])
-- ARGV[1] permits per window, ARGV[2] window ms, ARGV[3] permits wanted, ARGV[4] grant id
-- Returns: permits granted, ms until the oldest grant leaves the window (0 if all were granted)
local limit, window, wanted, id = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local horizon = now - window

local function permits_of(member)
  return tonumber(string.match(member, '|(%d+)$')) or 0
end

local used = tonumber(redis.call('GET', KEYS[2])) or 0
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', horizon)
for _, member in ipairs(expired) do
  used = used - permits_of(member)
end
local live = redis.call('ZCARD', KEYS[1]) - #expired
if used < 0 or live == 0 then used = 0 end

local granted = math.max(0, math.min(wanted, limit - used))
if granted > 0 then
  redis.call('ZADD', KEYS[1], now, id .. '|' .. granted)
  used = used + granted
end
redis.call('SET', KEYS[2], used, 'PX', window * 2 + 1000)
redis.call('PEXPIRE', KEYS[1], window * 2 + 1000)
if #expired > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', horizon)
end
local wait = 0
if granted < wanted then
  local oldest = redis.call('ZRANGE', KEYS[1], '0', '0', 'WITHSCORES')
  wait = oldest[2] and math.max(1, tonumber(oldest[2]) + window - now) or 1
end
return { granted, wait }
