-- recurring-declare: adds a recurring job, or replaces its schedule, or keeps it (lib/recurring.lua).
-- Declaring the same schedule again (every startup does) changes nothing but the payload and the
-- missed policy; a new schedule starts after now and after the last tick already taken, so a
-- changed cron never fires a tick twice. An occurrence already created stays an ordinary job.
-- KEYS: the bucket keys with the topic's ready and dead keys (see prelude), then the recurring hash
-- ARGV[1] topic, ARGV[2] jobKey, ARGV[3] schedule "<kind E|C>|<period ms>|<zone>|<cron>",
--   ARGV[4] missed policy 'O' | 'S', ARGV[5] payload, ARGV[6] cron: planned ticks, comma separated
--   (computed from a Redis time read just before; ticks not after now are dropped), ARGV[7] the
--   caller's bucket count
-- Returns: status 'created' | 'replaced' | 'kept', the trigger's score, 1 if the trigger became the
--   bucket's earliest entry (the migrator should wake)
local K_RECURRING = KEYS[#KEYS]
local job_key, schedule, missed, payload = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local layout = redis.call('HMGET', K_COUNT, '~buckets', '~frozen')
local refused = layout_refusal(layout[1], ARGV[7]) or frozen_refusal(layout[2], layout[1])
if refused then return refused end
local now = now_ms()
local def = schedule .. '|' .. missed .. '|' .. payload
local old = redis.call('HGET', K_RECURRING, job_key)
if same_schedule(old, schedule) then
  if old ~= def then
    redis.call('HSET', K_RECURRING, job_key, def)
  end
  return { 'kept', tonumber(redis.call('ZSCORE', K_DUE, trigger_of(job_key))) or -1, 0 }
end
local last = parse_plan(redis.call('HGET', K_RECURRING, plan_field(job_key)))
local after = math.max(now, last)
local ticks = {}
local kind, period = string.match(schedule, '^(%a)|(%d+)|')
if kind == 'E' then
  ticks[1] = after + tonumber(period)
else
  for t in string.gmatch(ARGV[6], '%d+') do
    if tonumber(t) > after then ticks[#ticks + 1] = tonumber(t) end
  end
end
local score = ticks[1] or (now + REFILL_RETRY)
redis.call('HSET', K_RECURRING, job_key, def, plan_field(job_key), format_plan(last, ticks))
redis.call('ZADD', K_DUE, score, trigger_of(job_key))
local head = redis.call('ZRANGE', K_DUE, '0', '0')
return { old and 'replaced' or 'created', score, (head[1] == trigger_of(job_key)) and 1 or 0 }
