-- Migration 6. What each runner's runs used, by day (UTC), kept like an agent's (migration 5):
-- the runners page and `runner list` show today's.
CREATE TABLE runner_usage (
    runner_id TEXT NOT NULL,
    day TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (runner_id, day)
);
