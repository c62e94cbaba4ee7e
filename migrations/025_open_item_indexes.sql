-- Indexes for the dashboards over projects that grow for years (100,000 to-dos in one project,
-- bench/README.md): a list reads its first entries in index order and stops, and a count walks
-- index entries alone, never the rows, where before each sorted or looked up every open to-do
-- or live row of the project.
--
-- The to-do indexes hold only the open to-dos (live and not complete), in the order a dashboard
-- lists them. They end with `completed` and `deleted_at`, constant in them: SQLite counts
-- through an index without reading rows only when the index holds every column the statement
-- names, those of its WHERE too (PostgreSQL knows the predicate of a partial index).

-- The project dashboard's in-progress column: `inProgressItems` (board order) and its count.
CREATE INDEX todo_items_open_column ON todo_items
  (column_id, order_index, id, completed, deleted_at) WHERE deleted_at IS NULL AND completed = 0;
-- The project dashboard's near-due list (soonest first) and its count.
CREATE INDEX todo_items_open_due ON todo_items
  (project_id, due_date, id, completed, deleted_at) WHERE deleted_at IS NULL AND completed = 0;
-- The personal dashboard's to-dos assigned to me (soonest first, undated last) and overdue,
-- and their counts: the project is in the index, so a count keeps to my live projects without
-- reading a row. It replaces todo_items_assignee (assignee, completed, due date), which only
-- the dashboard used and which SQLite would still prefer, reading every row it counts.
DROP INDEX todo_items_assignee;
CREATE INDEX todo_items_open_assigned ON todo_items
  (assignee_id, due_date, id, project_id, completed, deleted_at)
  WHERE deleted_at IS NULL AND completed = 0;

-- The totals of the project dashboard's "latest" lists: the live rows of a project are one
-- range of each (project, deleted_at IS NULL), counted from the index alone, and the rest of
-- the key keeps the order the list reads them in (chat by id, the others by creation).
CREATE INDEX chat_messages_live ON chat_messages (project_id, id, deleted_at) WHERE deleted_at IS NULL;
CREATE INDEX threads_live ON threads (project_id, created_at, id, deleted_at) WHERE deleted_at IS NULL;
CREATE INDEX notes_live ON notes (project_id, created_at, id, deleted_at) WHERE deleted_at IS NULL;
CREATE INDEX files_live ON files (project_id, created_at, id, deleted_at) WHERE deleted_at IS NULL;
