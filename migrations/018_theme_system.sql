-- A third theme, `system`: the page follows the device's light or dark colour scheme.
-- SQLite cannot change a CHECK constraint in place, and rebuilding `users` would set off the
-- ON DELETE CASCADE of every table that refers to it; so the column is replaced instead: a
-- new column with the wider check takes the values, the old one is dropped, the new one takes
-- its name. Only the column's place in the table changes.
ALTER TABLE users ADD COLUMN theme_choice TEXT NOT NULL DEFAULT 'dark'
  CHECK (theme_choice IN ('dark', 'light', 'system'));
UPDATE users SET theme_choice = theme;
ALTER TABLE users DROP COLUMN theme;
ALTER TABLE users RENAME COLUMN theme_choice TO theme;
