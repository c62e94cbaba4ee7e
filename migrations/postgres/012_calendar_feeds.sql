-- PostgreSQL: the change of ../012_calendar_feeds.sql for this engine (same version, same tables, columns
-- and index names; SQLite INTEGER is bigint here, TEXT text, REAL double precision).
--
-- Each user's calendar feed token. The token is a credential in a URL, so it is not stored:
-- it is derived as HMAC-SHA256(server secret, user id and `salt`), and only its SHA-256 is
-- kept for the lookup. A leaked database alone yields no feed URL; resetting the feed draws a
-- new salt (and so a new token, whose hash replaces the old one).

CREATE TABLE calendar_feeds (
  user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  salt text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  created_at text NOT NULL
);
