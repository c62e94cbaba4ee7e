-- PostgreSQL: the change of ../004_user_theme_locale.sql for this engine (same version, same tables, columns
-- and index names; SQLite INTEGER is bigint here, TEXT text, REAL double precision).
--
-- Each user's theme and interface language.

ALTER TABLE users ADD COLUMN theme text NOT NULL DEFAULT 'dark'
  CONSTRAINT users_theme_check CHECK (theme IN ('dark', 'light'));
ALTER TABLE users ADD COLUMN locale text NOT NULL DEFAULT 'en' CHECK (locale IN ('en', 'ja'));
