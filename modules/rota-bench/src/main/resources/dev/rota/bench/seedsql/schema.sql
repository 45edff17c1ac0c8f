-- ADR-011's tables as the seed coordinator uses them, plus what a careful implementer adds.
CREATE TABLE agents (
  id TEXT PRIMARY KEY,
  last_activated_at TIMESTAMPTZ,
  activation_count INTEGER NOT NULL DEFAULT 0
);

-- ADR-011: "Index for efficient staleness queries".
CREATE INDEX idx_agents_staleness ON agents (last_activated_at ASC NULLS FIRST);

-- No foreign key to agents: its KEY SHARE check would queue every publish to an agent behind
-- the runner holding that agent's FOR UPDATE row lock for a whole activation.
CREATE TABLE notifications (
  id BIGSERIAL PRIMARY KEY,
  recipient_id TEXT NOT NULL,
  read BOOLEAN NOT NULL DEFAULT FALSE,
  -- the harness's token for notification-to-claim latency; NULL for seeded backlog
  token BIGINT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Serves both the inbox GROUP BY (an index-only scan over unread rows) and loading one agent's
-- unread notifications at claim time.
CREATE INDEX idx_notifications_unread ON notifications (recipient_id) WHERE NOT read;
