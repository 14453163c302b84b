-- Migration 1: the schema of SQLite's migrations 1 to 3, in PostgreSQL's
-- types. Each record is kept whole as JSON in `data`; the columns beside it
-- are the ones queries filter on, written from the same record on every put.
-- `n` keeps the order records were first written in (SQLite's rowid).
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE agents (
    name TEXT PRIMARY KEY,
    inactivity_ms BIGINT NOT NULL,
    timeout_ms BIGINT NOT NULL,
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
    created_at BIGINT NOT NULL,
    last_activity BIGINT NOT NULL,
    open_turns BIGINT NOT NULL,
    run_serving BOOLEAN NOT NULL,
    expires_at BIGINT,
    ended_at BIGINT,
    pruned_at BIGINT,
    data TEXT NOT NULL
);
CREATE INDEX sessions_by_state ON sessions (state);
CREATE INDEX sessions_by_created ON sessions (created_at DESC, id DESC);
CREATE INDEX sessions_to_prune ON sessions (ended_at, id) WHERE pruned_at IS NULL;
CREATE TABLE runs (
    n BIGINT GENERATED ALWAYS AS IDENTITY,
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    accepted_at BIGINT,
    first_contact_at BIGINT,
    last_contact_at BIGINT,
    stop_issued_at BIGINT,
    runner_id TEXT,
    instance TEXT,
    reserved_for TEXT,
    reserved_until BIGINT,
    data TEXT NOT NULL
);
CREATE INDEX runs_by_session ON runs (session_id, created_at, n);
CREATE INDEX runs_live_by_instance ON runs (runner_id, instance)
    WHERE status IN ('accepted', 'running');
CREATE INDEX runs_by_status ON runs (status);
CREATE TABLE environments (
    n BIGINT GENERATED ALWAYS AS IDENTITY,
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    state TEXT NOT NULL,
    next_teardown_at BIGINT,
    data TEXT NOT NULL
);
CREATE INDEX environments_by_state ON environments (state);
CREATE TABLE directives (
    run_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE reports (
    run_id TEXT NOT NULL,
    report_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (run_id, report_id)
);
CREATE TABLE transcript (
    session_id TEXT NOT NULL,
    idx BIGINT NOT NULL,
    run_id TEXT,
    seq BIGINT,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, idx)
);
CREATE UNIQUE INDEX transcript_by_run ON transcript (run_id, seq)
    WHERE run_id IS NOT NULL AND seq IS NOT NULL;
CREATE TABLE messages (
    n BIGINT GENERATED ALWAYS AS IDENTITY,
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX messages_by_session ON messages (session_id, state, created_at, n);
CREATE TABLE plug_records (
    session_id TEXT NOT NULL,
    plug_id TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, plug_id)
);
CREATE TABLE permissions (
    n BIGINT GENERATED ALWAYS AS IDENTITY,
    run_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, request_id)
);
CREATE INDEX permissions_by_session ON permissions (session_id, created_at, n);
-- The clock's indexes: each limit it checks reads only the records past it.
CREATE INDEX sessions_idle ON sessions (agent, last_activity)
    WHERE state = 'active' AND run_serving AND open_turns = 0;
CREATE INDEX sessions_expiring ON sessions (expires_at) WHERE state = 'paused';
CREATE INDEX runs_unconnected ON runs (accepted_at)
    WHERE status IN ('accepted', 'running') AND first_contact_at IS NULL;
CREATE INDEX runs_silent ON runs (last_contact_at) WHERE status IN ('accepted', 'running');
CREATE INDEX runs_stopping ON runs (stop_issued_at) WHERE status IN ('accepted', 'running');
CREATE INDEX runs_timing ON runs (accepted_at)
    WHERE status IN ('accepted', 'running') AND kind != 'teardown' AND stop_issued_at IS NULL;
