-- Migration 13. People and what they did: personal tokens (stored hashed) and roles; who started
-- each session (the list filters by it, newest first); whose each dashboard login is (removing a
-- person ends them); and the audit trail, written in the transaction of each change and read
-- newest first, maybe of one person, one session or one action.
CREATE TABLE users (
    name TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    data TEXT NOT NULL
);
ALTER TABLE sessions ADD COLUMN started_by TEXT;
CREATE INDEX sessions_newest_by_starter ON sessions (started_by, created_at DESC, id DESC);
ALTER TABLE logins ADD COLUMN who TEXT;
-- Every login before people was the admin's.
UPDATE logins SET who = 'admin';
CREATE INDEX logins_of ON logins (who);
CREATE TABLE audit (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    session_id TEXT,
    data TEXT NOT NULL
);
CREATE INDEX audit_by_actor ON audit (actor, seq);
CREATE INDEX audit_by_action ON audit (action, seq);
CREATE INDEX audit_by_session ON audit (session_id, seq);
