-- Migration 1. Each record is kept whole as JSON in `data`; the columns beside it are the ones
-- queries filter on, written from the same record on every put.
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE agents (
    name TEXT PRIMARY KEY,
    inactivity_ms INTEGER NOT NULL,
    timeout_ms INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE runners (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL UNIQUE,
    data TEXT NOT NULL
);
CREATE TABLE connections (
    runner_id TEXT NOT NULL,
    instance TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (runner_id, instance)
);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    agent TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_activity INTEGER NOT NULL,
    open_turns INTEGER NOT NULL,
    run_serving INTEGER NOT NULL,
    expires_at INTEGER,
    data TEXT NOT NULL
);
CREATE INDEX sessions_by_state ON sessions (state);
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    accepted_at INTEGER,
    first_contact_at INTEGER,
    last_contact_at INTEGER,
    stop_issued_at INTEGER,
    data TEXT NOT NULL
);
CREATE INDEX runs_by_session ON runs (session_id, created_at);
CREATE INDEX runs_by_status ON runs (status);
CREATE TABLE environments (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    state TEXT NOT NULL,
    next_teardown_at INTEGER,
    data TEXT NOT NULL
);
CREATE INDEX environments_by_state ON environments (state);
CREATE TABLE directives (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE reports (
    run_id TEXT NOT NULL,
    report_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (run_id, report_id)
);
CREATE TABLE transcript (
    session_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    run_id TEXT,
    seq INTEGER,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, idx)
);
CREATE UNIQUE INDEX transcript_by_run ON transcript (run_id, seq) WHERE run_id IS NOT NULL AND seq IS NOT NULL;
CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX messages_by_session ON messages (session_id, state, created_at);
CREATE TABLE plug_records (
    session_id TEXT NOT NULL,
    plug_id TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, plug_id)
);
CREATE TABLE permissions (
    run_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, request_id)
);
CREATE INDEX permissions_by_session ON permissions (session_id, created_at);
