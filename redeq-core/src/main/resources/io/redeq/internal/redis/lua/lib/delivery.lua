-- What a consumer gets for each job put IN_FLIGHT for it, by claim or by migrate's hand-off:
-- 7 values: jobKey, attempt, created (as the record holds it, see lib/settings.lua), due ms,
-- payload, the job's own settings ('' none), trace context stored beside the payload ('' none).
-- Appended to `out`.
local function deliver(out, job_key, attempts, due, rec)
  local created, head, payload = string.match(rec, '^([^;| ]*)([^|]*)|(.*)$')
  local settings, trace = string.match(head, '^([^ ]*) ?(.*)$')
  out[#out + 1] = job_key
  out[#out + 1] = attempts
  out[#out + 1] = created
  out[#out + 1] = due
  out[#out + 1] = payload
  out[#out + 1] = settings
  out[#out + 1] = trace
end
