-- Migration 2. When each runner instance was last seen, as a column: "which runners are
-- connected" reads the recent ones from an index, not every instance that ever connected (an
-- instance is named per process, so a fleet that restarts adds rows all the time).
ALTER TABLE connections ADD COLUMN last_seen BIGINT NOT NULL DEFAULT 0;
UPDATE connections SET last_seen = (data::jsonb ->> 'last_seen')::bigint;
CREATE INDEX connections_by_last_seen ON connections (last_seen);
