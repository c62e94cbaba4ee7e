-- The collaboration service's base schema: accounts, sessions, projects and every
-- project resource of the HTTP contract. Timestamps are ISO 8601 UTC text with `Z`,
-- calendar dates are `YYYY-MM-DD` text, flags are 0/1. Soft-deleted rows keep their data
-- and carry `deleted_at`; every list index starts with the columns its query filters on.

CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member')),
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

-- Only a hash of the session id is stored, so a leaked database grants no session.
CREATE TABLE sessions (
  id_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  issued_at TEXT NOT NULL,
  last_used_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE TABLE projects (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  archived_at TEXT,
  created_by INTEGER NOT NULL REFERENCES users (id),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
) STRICT;

CREATE TABLE project_members (
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('owner', 'member', 'viewer')),
  joined_at TEXT NOT NULL,
  PRIMARY KEY (project_id, user_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX project_members_user ON project_members (user_id, project_id);

CREATE TABLE threads (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES users (id),
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  category TEXT NOT NULL CHECK (category IN ('general', 'announcement', 'question', 'idea')),
  pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
) STRICT;
CREATE INDEX threads_list ON threads (project_id, pinned DESC, created_at DESC, id DESC)
  WHERE deleted_at IS NULL;

CREATE TABLE comments (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  thread_id INTEGER NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES users (id),
  body TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
) STRICT;
CREATE INDEX comments_thread ON comments (thread_id, created_at, id) WHERE deleted_at IS NULL;

CREATE TABLE notes (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES users (id),
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags)),
  pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
) STRICT;
CREATE INDEX notes_list ON notes (project_id, pinned DESC, updated_at DESC, id DESC)
  WHERE deleted_at IS NULL;

CREATE TABLE chat_messages (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES users (id),
  text TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
) STRICT;
CREATE INDEX chat_messages_history ON chat_messages (project_id, id) WHERE deleted_at IS NULL;

CREATE TABLE todo_columns (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  key TEXT CHECK (key IN ('todo', 'in_progress', 'done')),
  position INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX todo_columns_project ON todo_columns (project_id, position);
CREATE UNIQUE INDEX todo_columns_key ON todo_columns (project_id, key) WHERE key IS NOT NULL;

CREATE TABLE milestones (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  creator_id INTEGER NOT NULL REFERENCES users (id),
  title TEXT NOT NULL,
  description TEXT,
  due_date TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
) STRICT;
CREATE INDEX milestones_project ON milestones (project_id, due_date) WHERE deleted_at IS NULL;

CREATE TABLE todo_items (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  column_id INTEGER NOT NULL REFERENCES todo_columns (id),
  creator_id INTEGER NOT NULL REFERENCES users (id),
  title TEXT NOT NULL,
  description TEXT,
  assignee_id INTEGER REFERENCES users (id),
  priority TEXT NOT NULL DEFAULT 'normal' CHECK (priority IN ('low', 'normal', 'high')),
  start_date TEXT,
  due_date TEXT,
  order_index INTEGER NOT NULL,
  completed INTEGER NOT NULL DEFAULT 0 CHECK (completed IN (0, 1)),
  completed_at TEXT,
  milestone_id INTEGER REFERENCES milestones (id),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
) STRICT;
CREATE INDEX todo_items_column ON todo_items (column_id, order_index) WHERE deleted_at IS NULL;
CREATE INDEX todo_items_project_due ON todo_items (project_id, due_date) WHERE deleted_at IS NULL;
CREATE INDEX todo_items_assignee ON todo_items (assignee_id, completed, due_date)
  WHERE deleted_at IS NULL;
CREATE INDEX todo_items_milestone ON todo_items (milestone_id) WHERE deleted_at IS NULL;

CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  uploader_id INTEGER NOT NULL REFERENCES users (id),
  name TEXT NOT NULL,
  stored_name TEXT NOT NULL UNIQUE,
  content_type TEXT NOT NULL,
  size INTEGER NOT NULL CHECK (size >= 0),
  created_at TEXT NOT NULL,
  deleted_at TEXT
) STRICT;
CREATE INDEX files_list ON files (project_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

CREATE TABLE calendar_events (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  creator_id INTEGER NOT NULL REFERENCES users (id),
  title TEXT NOT NULL,
  description TEXT,
  start_at TEXT NOT NULL,
  end_at TEXT NOT NULL CHECK (end_at >= start_at),
  all_day INTEGER NOT NULL DEFAULT 0 CHECK (all_day IN (0, 1)),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
) STRICT;
CREATE INDEX calendar_events_range ON calendar_events (project_id, start_at, end_at)
  WHERE deleted_at IS NULL;

CREATE TABLE meetings (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  creator_id INTEGER NOT NULL REFERENCES users (id),
  title TEXT NOT NULL,
  start_at TEXT NOT NULL,
  end_at TEXT NOT NULL CHECK (end_at >= start_at),
  location TEXT,
  minutes TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
) STRICT;
CREATE INDEX meetings_project ON meetings (project_id, start_at) WHERE deleted_at IS NULL;
CREATE INDEX meetings_creator ON meetings (creator_id, start_at) WHERE deleted_at IS NULL;

CREATE TABLE meeting_invitees (
  meeting_id INTEGER NOT NULL REFERENCES meetings (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (meeting_id, user_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX meeting_invitees_user ON meeting_invitees (user_id, meeting_id);

CREATE TABLE notifications (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  actor_id INTEGER REFERENCES users (id),
  subject_type TEXT NOT NULL,
  subject_id INTEGER NOT NULL,
  text TEXT NOT NULL DEFAULT '',
  read_at TEXT,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX notifications_unread ON notifications (user_id, created_at DESC, id DESC)
  WHERE read_at IS NULL;

CREATE TABLE activity (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  actor_id INTEGER NOT NULL REFERENCES users (id),
  subject_type TEXT NOT NULL,
  subject_id INTEGER NOT NULL,
  summary TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX activity_project ON activity (project_id, created_at DESC, id DESC);

-- The per-project event log behind the event stream. AUTOINCREMENT never reuses an id,
-- so ids keep increasing per project across restarts and pruning; replay after a
-- `Last-Event-ID` reads this table.
CREATE TABLE project_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX project_events_replay ON project_events (project_id, id);
