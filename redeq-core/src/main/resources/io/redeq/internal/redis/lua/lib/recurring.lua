-- Recurring jobs (docs/recurring.md). A definition lives in the bucket of its occurrences' jobKey
-- "<topic>:<id>", in the bucket's recurring hash (declared last, after the topic keys):
--   field <jobKey>        "<kind E|C>|<period ms>|<zone>|<cron>|<missed O|S>|<payload>"
--                         written when declared, read when a tick fires
--   field ~p:<jobKey>     the plan "<covered ms>|<tick ms>,<tick ms>,..." (ticks up to <covered>
--                         ran or were dropped; then the ticks to come,
--                         ascending; for 'E' one tick, computed here; for 'C' computed by the
--                         Java side, which cron needs, and refilled by it off the hot path)
-- Its trigger is the member "~r:<jobKey>" of the bucket's due zset, scored with the next tick
-- (topics start with a letter or digit, so no job's key starts with '~'). The migrator wakes for
-- it like for a job, and migrate.lua turns a due trigger into an occurrence and moves the
-- trigger to the next tick in the same script: a tick cannot be lost or doubled between them.
local MISSED_AFTER = 60000 -- missed = SKIP: a tick found later than this does not run
local REFILL_BELOW = 4     -- cron: ask the migrator for more ticks when fewer are planned
local REFILL_RETRY = 1000  -- cron, no tick planned: look again this much later

local function trigger_of(job_key)
  return '~r:' .. job_key
end

local function plan_field(job_key)
  return '~p:' .. job_key
end

-- The schedule part of a definition (kind, period, zone, cron): what decides the ticks.
local function same_schedule(def, schedule)
  return def ~= false and def ~= nil and string.sub(def, 1, #schedule + 1) == schedule .. '|'
end

local function parse_plan(rec)
  local last, list = string.match(rec or '', '^(%d+)|(.*)$')
  local ticks = {}
  for t in string.gmatch(list or '', '%d+') do
    ticks[#ticks + 1] = tonumber(t)
  end
  return tonumber(last) or 0, ticks
end

local function format_plan(last, ticks)
  local parts = {}
  for i, t in ipairs(ticks) do
    parts[i] = string.format('%d', t)
  end
  return string.format('%d|', last) .. table.concat(parts, ',')
end

-- What a due trigger does now. Returns the tick that runs (nil: none), the payload, the plan
-- left, the trigger's next score, and whether the plan needs more ticks from the Java side.
-- All ticks due at once make one run (missed ticks collapse); its tick is the first of them
-- that it stands for. With missed = 'S' the ticks older than MISSED_AFTER are dropped instead.
local function recurring_step(def_rec, plan_rec, now)
  local kind, period, missed, payload = string.match(def_rec, '^(%a)|(%d+)|[^|]*|[^|]*|(%a)|(.*)$')
  period = tonumber(period)
  local last, ticks = parse_plan(plan_rec)
  local due, rest = {}, {}
  if kind == 'E' then
    local head = ticks[1] or (last + period)
    if head <= now then
      local n = math.floor((now - head) / period)
      due[1], due[2] = head, head + n * period
      rest[1] = due[2] + period
    else
      rest[1] = head
    end
  else
    for _, t in ipairs(ticks) do
      if t <= now then
        due[1] = due[1] or t
        due[2] = t
      else
        rest[#rest + 1] = t
      end
    end
  end
  local run = due[1]
  if run and missed == 'S' and run < now - MISSED_AFTER then
    run = nil
    if kind == 'E' and due[2] >= now - MISSED_AFTER then
      run = due[1] + math.ceil((now - MISSED_AFTER - due[1]) / period) * period
    elseif kind ~= 'E' then
      for _, t in ipairs(ticks) do
        if t <= now and t >= now - MISSED_AFTER then
          run = t
          break
        end
      end
    end
  end
  -- The run stands for every tick up to now, also those a short cron plan did not list: a
  -- refill plans from here, so a tick already covered never runs again.
  if due[1] then last = now end
  local score = rest[1] or (now + REFILL_RETRY)
  return run, payload, format_plan(last, rest), score, kind == 'C' and #rest < REFILL_BELOW
end
