-- extend: renews the leases of running jobs whose claim tokens still match.
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, ARGV[2] lease ms, then pairs: jobKey, claim token
-- Returns: per pair 1 if renewed, 0 if the claim was lost
local deadline = now_ms() + tonumber(ARGV[2])
local out = {}
for i = 3, #ARGV, 2 do
  local job_key, token = ARGV[i], ARGV[i + 1]
  local rec = redis.call('HGET', K_JOBS, job_key)
  local ok = 0
  if rec then
    local j = parse(rec)
    if j.state == 'I' and j.token == token then
      redis.call('ZADD', K_INFLIGHT, deadline, job_key)
      ok = 1
    end
  end
  out[#out + 1] = ok
end
return out
