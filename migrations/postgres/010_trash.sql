-- PostgreSQL: the change of ../010_trash.sql for this engine (same version, same tables, columns
-- and index names; SQLite INTEGER is bigint here, TEXT text, REAL double precision).
--
-- The trash. A deleted item keeps its row (`deleted_at`) and now records who deleted it
-- (`deleted_by`; null for items deleted before this migration) until the sweep purges it.
-- What went to the trash together with another item is marked, so that it comes back with
-- it and is not listed on its own: the live comments of a deleted thread
-- (`deleted_with_thread`), and the attachment uploads that no live item linked any more
-- when their item was deleted (`deleted_with_subject`). Attachment links stay while their
-- item is in the trash (hidden with it), so a restore brings them back.

ALTER TABLE projects ADD COLUMN deleted_by bigint REFERENCES users (id);
-- Set when the sweep starts purging a deleted project (over several transactions): from then
-- on it can no longer be restored.
ALTER TABLE projects ADD COLUMN purge_started_at text;
ALTER TABLE threads ADD COLUMN deleted_by bigint REFERENCES users (id);
ALTER TABLE comments ADD COLUMN deleted_by bigint REFERENCES users (id);
ALTER TABLE comments ADD COLUMN deleted_with_thread bigint NOT NULL DEFAULT 0
  CHECK (deleted_with_thread IN (0, 1));
ALTER TABLE notes ADD COLUMN deleted_by bigint REFERENCES users (id);
ALTER TABLE chat_messages ADD COLUMN deleted_by bigint REFERENCES users (id);
ALTER TABLE todo_items ADD COLUMN deleted_by bigint REFERENCES users (id);
ALTER TABLE files ADD COLUMN deleted_by bigint REFERENCES users (id);
ALTER TABLE files ADD COLUMN deleted_with_subject bigint NOT NULL DEFAULT 0
  CHECK (deleted_with_subject IN (0, 1));
ALTER TABLE calendar_events ADD COLUMN deleted_by bigint REFERENCES users (id);
ALTER TABLE meetings ADD COLUMN deleted_by bigint REFERENCES users (id);

-- A thread used to take its live comments with it in the same action, so they share its
-- deletion time; comments deleted before it keep their own.
UPDATE comments SET deleted_with_thread = 1
WHERE deleted_at IS NOT NULL AND EXISTS (
  SELECT 1 FROM threads t WHERE t.id = comments.thread_id AND t.deleted_at = comments.deleted_at
);

-- Files deleted before this migration lost their stored bytes and their attachment links at
-- once: nothing is left to restore, so they are purged now, with what points at them (the
-- next file could otherwise take a purged file's id and inherit its activity).
DELETE FROM activity WHERE subject_type = 'file'
  AND subject_id IN (SELECT id FROM files WHERE deleted_at IS NOT NULL);
DELETE FROM notifications WHERE subject_type = 'file'
  AND subject_id IN (SELECT id FROM files WHERE deleted_at IS NOT NULL);
DELETE FROM files WHERE deleted_at IS NOT NULL;

-- A project's trash, most recently deleted first, and the sweep's search for expired items
-- over every project. Partial: only deleted rows are indexed (for comments, only those deleted
-- on their own: the others go with their thread).
CREATE INDEX projects_trash ON projects (deleted_at, id) WHERE deleted_at IS NOT NULL;
CREATE INDEX threads_trash ON threads (project_id, deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX threads_expiry ON threads (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX comments_trash ON comments (project_id, deleted_at)
  WHERE deleted_at IS NOT NULL AND deleted_with_thread = 0;
CREATE INDEX comments_expiry ON comments (deleted_at)
  WHERE deleted_at IS NOT NULL AND deleted_with_thread = 0;
CREATE INDEX notes_trash ON notes (project_id, deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX notes_expiry ON notes (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX chat_messages_trash ON chat_messages (project_id, deleted_at)
  WHERE deleted_at IS NOT NULL;
CREATE INDEX chat_messages_expiry ON chat_messages (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX todo_items_trash ON todo_items (project_id, deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX todo_items_expiry ON todo_items (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX files_trash ON files (project_id, deleted_at)
  WHERE deleted_at IS NOT NULL AND deleted_with_subject = 0;
CREATE INDEX files_expiry ON files (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX calendar_events_trash ON calendar_events (project_id, deleted_at)
  WHERE deleted_at IS NOT NULL;
CREATE INDEX calendar_events_expiry ON calendar_events (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX meetings_trash ON meetings (project_id, deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX meetings_expiry ON meetings (deleted_at) WHERE deleted_at IS NOT NULL;

-- Purging an item removes the activity and notifications that name it (attachment links are
-- found through their UNIQUE (subject_type, subject_id, file_id) index).
CREATE INDEX activity_subject ON activity (subject_type, subject_id);
CREATE INDEX notifications_subject ON notifications (subject_type, subject_id);

-- Child keys that purging deletes through. When a parent row goes, SQLite looks up its
-- children by the child key; the existing indexes on these columns are partial (live rows
-- only) and cannot serve that lookup, so each deleted parent would scan the whole child table
-- while holding the write lock.
CREATE INDEX comments_thread_any ON comments (thread_id);
CREATE INDEX todo_items_column_any ON todo_items (column_id);
CREATE INDEX todo_items_milestone_any ON todo_items (milestone_id);
CREATE INDEX files_uploaded_to_any ON files (uploaded_to_type, uploaded_to_id)
  WHERE uploaded_to_id IS NOT NULL;
CREATE INDEX threads_project ON threads (project_id);
CREATE INDEX comments_project ON comments (project_id);
CREATE INDEX notes_project ON notes (project_id);
CREATE INDEX chat_messages_project ON chat_messages (project_id);
CREATE INDEX todo_items_project ON todo_items (project_id);
CREATE INDEX milestones_project_any ON milestones (project_id);
CREATE INDEX files_project ON files (project_id);
CREATE INDEX attachments_project ON attachments (project_id);
CREATE INDEX calendar_events_project ON calendar_events (project_id);
CREATE INDEX meetings_project_any ON meetings (project_id);
CREATE INDEX notifications_project ON notifications (project_id);
