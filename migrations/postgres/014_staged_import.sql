-- PostgreSQL: the change of ../014_staged_import.sql for this engine (same version, same tables, columns
-- and index names; SQLite INTEGER is bigint here, TEXT text, REAL double precision).
--
-- Imports in bounded batches. An import writes its project over many short transactions so
-- that requests keep being answered meanwhile; until its last one the project is hidden:
-- `deleted_at` holds the mark 'import' (so every read of live projects passes it by, as it
-- does its hidden rows) and `importing_since` the time the import began (so the trash does not
-- list it, and start-up knows it for a leftover of an import a crash cut short).
ALTER TABLE projects ADD COLUMN importing_since text;

-- An import's project still being written; normally none.
CREATE INDEX projects_importing ON projects (id) WHERE importing_since IS NOT NULL;

-- The rows an import has written hidden (`deleted_at = 'import'`), in creation order: the
-- import shows them a batch at a time, oldest first across the eight kinds, so search numbers
-- them in that order (migration 008) without sorting the whole project for each batch.
-- Partial: normally empty, so ordinary writes do not pay for them.
CREATE INDEX threads_import_order ON threads (project_id, created_at, id)
  WHERE deleted_at = 'import';
CREATE INDEX chat_messages_import_order ON chat_messages (project_id, created_at, id)
  WHERE deleted_at = 'import';
CREATE INDEX todo_items_import_order ON todo_items (project_id, created_at, id)
  WHERE deleted_at = 'import';
CREATE INDEX files_import_order ON files (project_id, created_at, id)
  WHERE deleted_at = 'import';
CREATE INDEX calendar_events_import_order ON calendar_events (project_id, created_at, id)
  WHERE deleted_at = 'import';
CREATE INDEX meetings_import_order ON meetings (project_id, created_at, id)
  WHERE deleted_at = 'import';
CREATE INDEX milestones_import_order ON milestones (project_id, created_at, id)
  WHERE deleted_at = 'import';
CREATE INDEX notes_import_order ON notes (project_id, created_at, id)
  WHERE deleted_at = 'import';
