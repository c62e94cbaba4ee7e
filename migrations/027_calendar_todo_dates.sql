-- The calendar's to-dos in a range, for projects that grow for years (bench/README.md). The
-- range asked "which to-dos' spans reach these days", and no index answered it: every to-do of
-- the project was read (100,000 of them: about 90 ms per month shown). The calendar now asks
-- in three parts, each a range of one of these indexes of live to-dos:
--
-- - due date only (most to-dos): the due date within the days shown;
-- - start date only: the start date within the days shown;
-- - both (fewer): started by the last day shown, due on or after the first (the start dates up
--   to the last day are read, the due date tested on the index entry). Keyed by the start
--   date: keyed by the due date, SQLite (no statistics) took todo_items_project_due instead
--   and read every later to-do's row.
CREATE INDEX todo_items_due_only ON todo_items (project_id, due_date)
  WHERE deleted_at IS NULL AND start_date IS NULL AND due_date IS NOT NULL;
CREATE INDEX todo_items_start_only ON todo_items (project_id, start_date)
  WHERE deleted_at IS NULL AND due_date IS NULL AND start_date IS NOT NULL;
CREATE INDEX todo_items_span ON todo_items (project_id, start_date, due_date)
  WHERE deleted_at IS NULL AND start_date IS NOT NULL AND due_date IS NOT NULL;
