-- PostgreSQL: the change of ../024_todo_done_order.sql for this engine (same version, same
-- table, columns and index name).
--
-- The board's Done column is drawn newest-completed first (db/planning/todos.ts
-- columnItemsByCompletion: `coalesce(completed_at, '') DESC, id DESC`). Without an index in
-- that order each board page sorted every live item of the column: at 33,000 done items that
-- sort was most of the page's time (bench/project_scale_bench.ts). This index gives the first
-- page, and the page after any cursor, by reading a handful of entries backwards.
CREATE INDEX todo_items_completion ON todo_items (column_id, (coalesce(completed_at, '')), id)
  WHERE deleted_at IS NULL;
