-- Migration 5. What each agent's sessions used, by day (UTC): tokens by kind and money by
-- currency, kept whole as JSON (a day's budget and the agents page read it; /metrics counts reports as
-- they come).
CREATE TABLE agent_usage (
    agent TEXT NOT NULL,
    day TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (agent, day)
);
