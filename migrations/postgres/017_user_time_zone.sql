-- PostgreSQL: the change of ../017_user_time_zone.sql for this engine (same version, same tables, columns
-- and index names; SQLite INTEGER is bigint here, TEXT text, REAL double precision).
--
-- Each user's time zone (an IANA name). NULL means the person never chose one: the API shows
-- `UTC`, and the pages propose the browser's zone once.
ALTER TABLE users ADD COLUMN time_zone text;
