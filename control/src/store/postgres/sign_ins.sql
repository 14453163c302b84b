-- Migration 12. Sign-ins with an identity provider under way: from the redirect to the provider
-- until the person comes back (any instance may take the callback), by the hash of their state.
CREATE TABLE sign_ins (
    state_hash TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX sign_ins_expiring ON sign_ins (expires_at);
