-- Invitations: to a project (`project_id` set, role owner, member or viewer) or, from an admin,
-- to the server (`project_id` NULL, role admin or member). Only the SHA-256 of the link's token
-- is kept (`token_hash`): a copy of the database opens no invitation. An invitation works until
-- `expires_at`, once (`accepted_at`), unless revoked (`revoked_at`); sending it again replaces
-- `token_hash` and `expires_at`, so the old link stops working.
CREATE TABLE invitations (
  id INTEGER PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  email TEXT NOT NULL,
  role TEXT NOT NULL,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  invited_by INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  accepted_at TEXT,
  revoked_at TEXT,
  CHECK (
    (project_id IS NULL AND role IN ('admin', 'member')) OR
    (project_id IS NOT NULL AND role IN ('owner', 'member', 'viewer'))
  )
) STRICT;
-- A project's list and the admin's list, newest first.
CREATE INDEX invitations_project ON invitations (project_id, id);
-- Pending invitations of one email (replaced by a new one to the same place).
CREATE INDEX invitations_email ON invitations (email) WHERE accepted_at IS NULL AND revoked_at IS NULL;
