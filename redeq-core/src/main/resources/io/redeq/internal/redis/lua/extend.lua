-- extend: renews the leases of running jobs whose claim tokens still match.
-- KEYS: the bucket keys with the ready and dead keys of the jobs' topics (see prelude)
-- ARGV[1] topics, ARGV[2] lease ms, then pairs: jobKey, claim token
-- Returns: per pair 1 if renewed, 0 if the claim was lost
local deadline = now_ms() + tonumber(ARGV[2])
local out = {}
for i = 3, #ARGV, 2 do
  local job_key, token = ARGV[i], ARGV[i + 1]
  local a = parse_attempt(read_attempt(job_key))
  local ok = 0
  if holds_claim(a, token) then
    redis.call('ZADD', K_LEASE, deadline, job_key)
    ok = 1
  end
  out[#out + 1] = ok
end
return out
