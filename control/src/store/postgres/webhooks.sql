-- Migration 11. Webhooks an admin configured, and their deliveries: each event for each webhook,
-- written in the transaction that made the event (a restart loses none), sent and retried from
-- here, kept as the delivery log. An event is made once per webhook (its key).
CREATE TABLE webhooks (
    name TEXT PRIMARY KEY,
    data TEXT NOT NULL
);
CREATE TABLE webhook_deliveries (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook TEXT NOT NULL,
    key TEXT NOT NULL,
    state TEXT NOT NULL,
    next_at BIGINT NOT NULL,
    data TEXT NOT NULL,
    UNIQUE (webhook, key)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_at);
CREATE INDEX webhook_deliveries_of ON webhook_deliveries (webhook, id);
