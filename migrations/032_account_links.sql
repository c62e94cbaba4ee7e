-- Password-reset and email-verification links. A link's token is never stored, only its
-- SHA-256 (`token_hash`, hex), so a copy of the database opens no link.
--
-- - `kind`: `reset` (60 minutes) or `verify` (24 hours).
-- - `mailed`: 1 when the link went to the account's address by mail (a reset the person asked
--   for, a verification), so using it proves they read that address's mail; 0 for a reset link
--   an admin made and passed on by other means (using it verifies nothing).
-- - `used_at`: when it was used, or when a reset of the account ended it; a link works only
--   while `used_at` is NULL and `expires_at` is after now.
--
-- Timestamps are ISO 8601 text, as everywhere. Rows whose expiry passed are pruned by the
-- writers now and then. The requests' limits (per address, per client address) are rows of
-- `throttle_entries` (migration 020), shared by every instance.
CREATE TABLE account_links (
  id INTEGER PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('reset', 'verify')),
  mailed INTEGER NOT NULL CHECK (mailed IN (0, 1)),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
) STRICT;

-- An account's live links of a kind (a reset ends the others).
CREATE INDEX account_links_user ON account_links (user_id, kind);
-- The pruning: the oldest expired rows first.
CREATE INDEX account_links_expiry ON account_links (expires_at);
