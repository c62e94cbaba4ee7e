-- PostgreSQL: the change of ../003_todo_tags.sql for this engine (same version, same tables, columns
-- and index names; SQLite INTEGER is bigint here, TEXT text, REAL double precision).
--
-- To-do items carry tags: a JSON array of strings, `[]` when none.

ALTER TABLE todo_items ADD COLUMN tags text NOT NULL DEFAULT '[]' CHECK ((tags)::jsonb IS NOT NULL);
