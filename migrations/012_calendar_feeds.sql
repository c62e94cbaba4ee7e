-- Each user's calendar feed token. The token is a credential in a URL, so it is not stored:
-- it is derived as HMAC-SHA256(server secret, user id and `salt`), and only its SHA-256 is
-- kept for the lookup. A leaked database alone yields no feed URL; resetting the feed draws a
-- new salt (and so a new token, whose hash replaces the old one).

CREATE TABLE calendar_feeds (
  user_id INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  salt TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
) STRICT;
