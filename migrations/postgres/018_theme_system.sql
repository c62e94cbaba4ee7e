-- PostgreSQL: the change of ../018_theme_system.sql for this engine (same version, same tables, columns
-- and index names; SQLite INTEGER is bigint here, TEXT text, REAL double precision).
--
-- A third theme, `system`: the page follows the device's light or dark colour scheme.
-- PostgreSQL changes the check in place (SQLite replaces the column instead).
ALTER TABLE users DROP CONSTRAINT users_theme_check;
ALTER TABLE users ADD CONSTRAINT users_theme_check CHECK (theme IN ('dark', 'light', 'system'));
