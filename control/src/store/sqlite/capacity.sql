-- Runner capacity: which runner instance holds a run, as columns, so counting
-- an instance's live runs reads an index, not every run.
ALTER TABLE runs ADD COLUMN runner_id TEXT;
ALTER TABLE runs ADD COLUMN instance TEXT;
-- And which instance an offered run is reserved for (see lifecycle/offers.rs).
ALTER TABLE runs ADD COLUMN reserved_for TEXT;
ALTER TABLE runs ADD COLUMN reserved_until INTEGER;
UPDATE runs SET runner_id = json_extract(data, '$.runner_id'),
                instance = json_extract(data, '$.instance');
CREATE INDEX runs_live_by_instance ON runs (runner_id, instance)
  WHERE status IN ('accepted', 'running');
