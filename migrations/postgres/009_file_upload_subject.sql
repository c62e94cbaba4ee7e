-- PostgreSQL: the change of ../009_file_upload_subject.sql for this engine (same version, same tables, columns
-- and index names; SQLite INTEGER is bigint here, TEXT text, REAL double precision).
--
-- A file uploaded as an attachment remembers the subject it was uploaded to. Deleting a
-- subject removes only the files uploaded to it (never a file someone else uploaded and it
-- merely links by id), and only once no live subject links them any more.
--
-- Existing attachment uploads get the subject of their oldest link: the upload and its first
-- link were always written together, so that link is the subject it was uploaded to.

ALTER TABLE files ADD COLUMN uploaded_to_type text
  CHECK (uploaded_to_type IN ('thread', 'comment', 'message', 'item'));
ALTER TABLE files ADD COLUMN uploaded_to_id bigint;

UPDATE files SET
  uploaded_to_type = (SELECT a.subject_type FROM attachments a WHERE a.file_id = files.id
    ORDER BY a.id LIMIT 1),
  uploaded_to_id = (SELECT a.subject_id FROM attachments a WHERE a.file_id = files.id
    ORDER BY a.id LIMIT 1)
WHERE source = 'attachment';

CREATE INDEX files_uploaded_to ON files (uploaded_to_type, uploaded_to_id)
  WHERE uploaded_to_id IS NOT NULL AND deleted_at IS NULL;
