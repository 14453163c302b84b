-- Migration 11. People logged in to the dashboard: the cookie holds a random id, stored here
-- hashed, with when it expires (the cookie is not a token: it ends at logout, at its expiry, and
-- when the admin token is rotated).
CREATE TABLE logins (
    id_hash TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX logins_expiring ON logins (expires_at);
