-- PostgreSQL: the change of ../007_dashboard_indexes.sql for this engine (same version, same tables, columns
-- and index names; SQLite INTEGER is bigint here, TEXT text, REAL double precision).
--
-- Indexes for the dashboards' "newest N" queries and milestone progress, so each reads a
-- handful of index entries instead of sorting every live row of the project.

-- newestThreadIds: threads_list starts with `pinned`, so it cannot give created_at order.
CREATE INDEX threads_newest ON threads (project_id, created_at DESC, id DESC)
  WHERE deleted_at IS NULL;
-- newestNoteIds: notes_list orders by updated_at.
CREATE INDEX notes_newest ON notes (project_id, created_at DESC, id DESC)
  WHERE deleted_at IS NULL;
-- Milestone progress (db/milestones.ts): the grouped count reads this index only.
CREATE INDEX todo_items_milestone_progress ON todo_items (project_id, milestone_id, completed)
  WHERE deleted_at IS NULL;
