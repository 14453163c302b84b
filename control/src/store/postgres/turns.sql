-- Migration 4. Turns with deadlines: the agent's silent-turn limit beside the limits the clock
-- reads in SQL, and the sessions in the middle of a turn by their last activity (the clock's
-- silent-turn check reads only those past the limit).
ALTER TABLE agents ADD COLUMN silent_turn_ms BIGINT NOT NULL DEFAULT 1800000;
CREATE INDEX sessions_in_turn ON sessions (last_activity)
  WHERE state = 'active' AND open_turns > 0;
