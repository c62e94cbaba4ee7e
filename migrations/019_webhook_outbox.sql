-- The webhook outbox, one row per stream event that some active webhook of its project was
-- subscribed to when the event was committed. It is written in the transaction of the change
-- (so it is as durable as the change), and the sender turns each row into one
-- `webhook_deliveries` row per subscribed webhook, in a commit of its own, then deletes it.
--
-- Before, the request's transaction wrote a delivery row (with the body) for every webhook:
-- five webhooks meant five copies of the body and fifteen index entries in every request's
-- commit, which raised the requests' p99 by a third (bench/README.md, "Webhook benchmark").
--
-- `body` is the exact JSON every delivery of the event will carry. No foreign keys: a project
-- or webhook deleted meanwhile simply gets no delivery.
CREATE TABLE webhook_outbox (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL,
  event_id INTEGER NOT NULL,
  event TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
