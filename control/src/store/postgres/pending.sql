-- Migration 7. Which permission requests wait for a person, as a column the list of them reads
-- through a partial index (the sessions list, the navigation's count, /metrics): not every
-- request ever asked.
ALTER TABLE permissions ADD COLUMN pending BOOLEAN NOT NULL DEFAULT false;
UPDATE permissions SET pending = true WHERE (data::jsonb ->> 'state') = 'pending';
CREATE INDEX permissions_pending ON permissions (created_at) WHERE pending;
