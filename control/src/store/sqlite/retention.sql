-- Retention: when a session ended and when its records were pruned, as
-- columns, so the clock finds what to prune without reading every session.
ALTER TABLE sessions ADD COLUMN ended_at INTEGER;
ALTER TABLE sessions ADD COLUMN pruned_at INTEGER;
UPDATE sessions SET ended_at = json_extract(data, '$.ended_at')
  WHERE state NOT IN ('active', 'paused');
CREATE INDEX sessions_to_prune ON sessions (ended_at, id) WHERE pruned_at IS NULL;
