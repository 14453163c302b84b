-- Migration 10. Which permission requests wait for a person, as a column the list of them reads
-- through a partial index (the sessions list, the navigation's count, /metrics): not every
-- request ever asked.
ALTER TABLE permissions ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
UPDATE permissions SET pending = 1 WHERE json_extract(data, '$.state') = 'pending';
CREATE INDEX permissions_pending ON permissions (created_at) WHERE pending = 1;
