-- The state of a job, read from the index that holds it: 'D', 'R', 'I', 'X', or nil (unknown).
local function state_of(job_key, topic)
  if redis.call('ZSCORE', K_DUE, job_key) then return 'D' end
  if redis.call('ZSCORE', ready_key(topic), job_key) then return 'R' end
  if redis.call('ZSCORE', K_LEASE, job_key) then return 'I' end
  if redis.call('ZSCORE', K_DIED, job_key) then return 'X' end
  return nil
end

-- The waiting jobs among these of one topic, read and left as they are: those DELAYED, then those
-- READY. Running, dead and unknown jobs are in neither.
local function waiting_among(topic, job_keys)
  local delayed, ready = {}, {}
  for _, job_key in ipairs(job_keys) do
    local state = state_of(job_key, topic)
    if state == 'D' then
      delayed[#delayed + 1] = job_key
    elseif state == 'R' then
      ready[#ready + 1] = job_key
    end
  end
  return delayed, ready
end
