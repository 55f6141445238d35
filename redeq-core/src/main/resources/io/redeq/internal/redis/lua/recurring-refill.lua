-- recurring-refill: appends cron ticks the Java side computed to a recurring job's plan
-- (lib/recurring.lua). Only when the definition still has the schedule they were computed for and
-- the plan still ends where the caller read it: two migrators refilling at once, or a refill racing
-- a new declaration, change nothing twice.
-- KEYS: the bucket keys (no topic keys: ARGV[1] is empty), then the recurring hash
-- ARGV[1] '', ARGV[2] jobKey, ARGV[3] schedule "<kind>|<period ms>|<zone>|<cron>",
--   ARGV[4] the last tick of the plan as the caller read it (or its last tick taken when empty),
--   ARGV[5] ticks after it, ascending, comma separated
-- Returns: the trigger's new score when it moved (the plan was empty), 0 when the plan grew, -1
--   when nothing changed
local K_RECURRING = KEYS[#KEYS]
local refused = frozen_refusal()
if refused then return refused end
local job_key, schedule = ARGV[2], ARGV[3]
if not same_schedule(redis.call('HGET', K_RECURRING, job_key), schedule) then
  return -1
end
local last, ticks = parse_plan(redis.call('HGET', K_RECURRING, plan_field(job_key)))
local tail = ticks[#ticks] or last
if tail ~= tonumber(ARGV[4]) then
  return -1
end
local was_empty = #ticks == 0
for t in string.gmatch(ARGV[5], '%d+') do
  if tonumber(t) > (ticks[#ticks] or tail) then ticks[#ticks + 1] = tonumber(t) end
end
if #ticks == 0 then
  return -1
end
redis.call('HSET', K_RECURRING, plan_field(job_key), format_plan(last, ticks))
if was_empty then
  redis.call('ZADD', K_DUE, ticks[1], trigger_of(job_key))
  return ticks[1]
end
return 0
