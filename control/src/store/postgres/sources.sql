-- Migration 3. Message sources (control/src/sources): each conversation of a source and the
-- session it is, with what it has been told; and the deliveries already taken (a source that
-- sends one twice is answered without acting twice).
CREATE TABLE source_threads (
    source TEXT NOT NULL,
    thread TEXT NOT NULL,
    session_id TEXT,
    delivered BIGINT NOT NULL,
    pending BIGINT NOT NULL,
    retry_at BIGINT,
    data TEXT NOT NULL,
    PRIMARY KEY (source, thread)
);
CREATE UNIQUE INDEX source_threads_by_session ON source_threads (session_id)
    WHERE session_id IS NOT NULL;
CREATE TABLE source_deliveries (
    source TEXT NOT NULL,
    delivery TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (source, delivery)
);
CREATE INDEX source_deliveries_by_age ON source_deliveries (at);
