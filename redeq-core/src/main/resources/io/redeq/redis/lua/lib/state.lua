-- The state of a job, read from the index that holds it: 'D', 'R', 'I', 'X', or nil (unknown).
local function state_of(job_key, topic)
  if redis.call('ZSCORE', K_DUE, job_key) then return 'D' end
  if redis.call('ZSCORE', ready_key(topic), job_key) then return 'R' end
  if redis.call('ZSCORE', K_LEASE, job_key) then return 'I' end
  if redis.call('ZSCORE', K_DIED, job_key) then return 'X' end
  return nil
end
