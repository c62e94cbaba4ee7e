-- To-do items carry tags: a JSON array of strings, `[]` when none.

ALTER TABLE todo_items ADD COLUMN tags TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags));
