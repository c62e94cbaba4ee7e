-- The per-user event log behind `GET /api/me/stream` (a caller's notifications arriving and
-- being read), kept like project_events: AUTOINCREMENT never reuses an id, so ids keep
-- increasing per user across restarts and pruning, and `Last-Event-ID` replay reads here.
CREATE TABLE user_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX user_events_replay ON user_events (user_id, id);

-- How much of a project's notifications reach a member: all, only those addressed to them
-- (mentions, assignments, invitations), or none. It lives and dies with the membership.
ALTER TABLE project_members ADD COLUMN notification_level TEXT NOT NULL DEFAULT 'all'
  CHECK (notification_level IN ('all', 'mentions', 'none'));
