-- Webhooks and their durable outbox. A delivery row is written in the same transaction as
-- the change whose stream event it carries, then sent by the sender loop; its row is the
-- only state a delivery has, so a restart (or a kill -9) loses none: a row stays `pending`
-- and due until an attempt's outcome is recorded.
--
-- The secret is kept as it was shown: the HMAC of every delivery needs it.
-- `events` is a JSON array of stream event names, or ["*"].
-- `failing_since` is the time of the first failed attempt since the last success.

CREATE TABLE webhooks (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  secret TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
  created_by INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  failing_since TEXT
) STRICT;
CREATE INDEX webhooks_project ON webhooks (project_id, active);

-- `body` is the exact JSON sent (the event log is pruned; a redelivery still has it).
-- `event_id` is the stream event's id, deliberately without a foreign key for that reason.
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY,
  webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id INTEGER NOT NULL,
  event TEXT NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_status_code INTEGER,
  last_error TEXT,
  next_attempt_at TEXT,
  created_at TEXT NOT NULL,
  delivered_at TEXT
) STRICT;
-- The sender's question, per webhook: its oldest due pending delivery.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (webhook_id, next_attempt_at, id)
  WHERE status = 'pending';
-- The delivery log, newest first.
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
-- Pruning old finished deliveries.
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);
