-- Attachments link a stored file to a thread, comment, chat message or to-do item. A
-- file's `source` says how it arrived: `upload` through the files area, `attachment`
-- when uploaded as an attachment (its bytes are removed with the attachment).

ALTER TABLE files ADD COLUMN source TEXT NOT NULL DEFAULT 'upload'
  CHECK (source IN ('upload', 'attachment'));
CREATE INDEX files_source ON files (project_id, source, created_at DESC, id DESC)
  WHERE deleted_at IS NULL;

CREATE TABLE attachments (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  file_id INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
  subject_type TEXT NOT NULL CHECK (subject_type IN ('thread', 'comment', 'message', 'item')),
  subject_id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (subject_type, subject_id, file_id)
) STRICT;
CREATE INDEX attachments_file ON attachments (file_id);
