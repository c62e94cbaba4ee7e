-- Personal API tokens. Only the SHA-256 of a token's secret is stored (hex), so a leaked
-- database grants no access; the unique index makes checking a token one indexed lookup.
-- A revoked token's row is deleted. `expires_at` is null for a token that never expires.

CREATE TABLE api_tokens (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
  secret_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  last_used_at TEXT
) STRICT;

CREATE INDEX api_tokens_user ON api_tokens (user_id, id);
