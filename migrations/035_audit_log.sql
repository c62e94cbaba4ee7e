-- The audit log: one row per security-relevant action (sign-in and its failures, password and
-- role changes, invitations, tokens, webhooks, exports and imports, project deletion, backups),
-- written in the action's own transaction, so an action that rolled back has none.
--
-- No foreign keys: a row outlives the account, project or token it names. `actor_email` is
-- the actor's address at the time (for a failed sign-in, the email tried; never a password).
-- `details` is a JSON object. `client_address` and `request_id` tie the row to the request
-- (and its log line). Rows older than AUDIT_DAYS are swept.
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  actor_id INTEGER,
  actor_email TEXT,
  action TEXT NOT NULL,
  target_type TEXT,
  target_id INTEGER,
  details TEXT NOT NULL DEFAULT '{}',
  client_address TEXT,
  request_id TEXT
) STRICT;
-- The sweep and the from/to filters.
CREATE INDEX audit_log_at ON audit_log (at);
-- The list filtered by action or actor, newest first.
CREATE INDEX audit_log_action ON audit_log (action, id);
CREATE INDEX audit_log_actor ON audit_log (actor_id, id);
