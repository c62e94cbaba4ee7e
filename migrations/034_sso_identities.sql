-- Single sign-on (OpenID Connect).
--
-- - `sso_identities`: an account's identity at a provider, found by `(issuer, subject)` and
--   never by email. `email` is what the provider said when it was linked (shown to the person).
-- - `sso_logins`: a sign-in under way, from `/auth/oidc/start` to the callback. Only the
--   SHA-256 of its `state` is kept (hex); `nonce` and `code_verifier` are needed in clear to
--   check the answer. A row works once (deleted when used) and for 10 minutes; kept in the
--   database so that any instance can finish a sign-in another began.
-- - `sso_pending_links`: an identity whose email is that of an account that cannot be linked
--   by email alone; the link page asks for the account's password once, then links. Only the
--   SHA-256 of its token is kept; 10 minutes, once.
-- - `sso_sessions`: which sessions began by single sign-on, with the ID token the provider
--   gave (the `id_token_hint` of the sign-out at the provider).
--
-- Timestamps are ISO 8601 text, as everywhere. Expired rows are pruned by the writers.
CREATE TABLE sso_identities (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  issuer TEXT NOT NULL,
  subject TEXT NOT NULL,
  email TEXT,
  linked_at TEXT NOT NULL,
  UNIQUE (issuer, subject)
) STRICT;
CREATE INDEX sso_identities_user ON sso_identities (user_id);

CREATE TABLE sso_logins (
  state_hash TEXT PRIMARY KEY,
  nonce TEXT NOT NULL,
  code_verifier TEXT NOT NULL,
  next_path TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT;
CREATE INDEX sso_logins_expiry ON sso_logins (expires_at);

CREATE TABLE sso_pending_links (
  token_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  issuer TEXT NOT NULL,
  subject TEXT NOT NULL,
  email TEXT,
  id_token TEXT NOT NULL,
  next_path TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT;
CREATE INDEX sso_pending_links_expiry ON sso_pending_links (expires_at);

CREATE TABLE sso_sessions (
  session_id_hash TEXT PRIMARY KEY REFERENCES sessions (id_hash) ON DELETE CASCADE,
  identity_id INTEGER NOT NULL REFERENCES sso_identities (id) ON DELETE CASCADE,
  id_token TEXT NOT NULL
) STRICT;
CREATE INDEX sso_sessions_identity ON sso_sessions (identity_id);
