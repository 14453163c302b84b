-- Migration 12. The sessions list reads a page at a time, the newest first, maybe of one state
-- or one agent: each walks an index in that order and stops at the page's end.
CREATE INDEX sessions_newest ON sessions (created_at DESC, id DESC);
CREATE INDEX sessions_newest_by_state ON sessions (state, created_at DESC, id DESC);
CREATE INDEX sessions_newest_by_agent ON sessions (agent, created_at DESC, id DESC);
