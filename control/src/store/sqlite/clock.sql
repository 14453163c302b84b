-- The clock's indexes: each limit it checks reads only the records past that
-- limit (a quiet tick over 100,000 sessions scanned the 50,000 active ones).
CREATE INDEX sessions_idle ON sessions (agent, last_activity)
  WHERE state = 'active' AND run_serving = 1 AND open_turns = 0;
CREATE INDEX sessions_expiring ON sessions (expires_at) WHERE state = 'paused';
CREATE INDEX runs_unconnected ON runs (accepted_at)
  WHERE status IN ('accepted', 'running') AND first_contact_at IS NULL;
CREATE INDEX runs_silent ON runs (last_contact_at) WHERE status IN ('accepted', 'running');
CREATE INDEX runs_stopping ON runs (stop_issued_at) WHERE status IN ('accepted', 'running');
CREATE INDEX runs_timing ON runs (accepted_at)
  WHERE status IN ('accepted', 'running') AND kind != 'teardown' AND stop_issued_at IS NULL;
