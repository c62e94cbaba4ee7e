-- The search triggers of 016 again, in syntax that SQLite 3.40 reads (Debian 12's `sqlite3`
-- shell and Python's `sqlite3` module), so that an operator can open the database with the
-- system's tools. 016 wrote `group_concat(c.text, ' ' ORDER BY c.id)`, an ordered aggregate
-- that only SQLite 3.44 and later parse: an older SQLite refuses the whole schema. The same
-- text in the same order comes from aggregating a subquery ordered by id (SQLite never
-- flattens an ordered subquery into an aggregate query, so its rows arrive in that order).
-- A released migration never changes: these triggers replace 016's. Nothing else in the
-- schema needs more than SQLite 3.40 (tests/db/sqlite/sqlite_shell_test.ts checks it with the shell).

-- todo: todo_items, with the checklist's text after the description and tags.
DROP TRIGGER search_todo_items_insert;
DROP TRIGGER search_todo_items_update;
DROP TRIGGER search_checklist_insert;
DROP TRIGGER search_checklist_update;
DROP TRIGGER search_checklist_delete;
CREATE TRIGGER search_todo_items_insert AFTER INSERT ON todo_items WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_feed VALUES (new.project_id, 'todo', 3, new.id, new.created_at, new.title, coalesce(new.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(new.tags)), '') || coalesce((SELECT ' ' || group_concat(text, ' ') FROM (SELECT c.text FROM todo_checklist_entries c WHERE c.item_id = new.id ORDER BY c.id)), ''));
END;
CREATE TRIGGER search_todo_items_update AFTER UPDATE OF title, description, tags, deleted_at ON todo_items BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'todo', 3, new.id, new.created_at, new.title, coalesce(new.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(new.tags)), '') || coalesce((SELECT ' ' || group_concat(text, ' ') FROM (SELECT c.text FROM todo_checklist_entries c WHERE c.item_id = new.id ORDER BY c.id)), '') WHERE new.deleted_at IS NULL;
END;

-- An entry added, renamed or removed re-indexes its item.
CREATE TRIGGER search_checklist_insert AFTER INSERT ON todo_checklist_entries
WHEN EXISTS (SELECT 1 FROM todo_items i JOIN projects p ON p.id = i.project_id
  WHERE i.id = new.item_id AND i.deleted_at IS NULL AND p.deleted_at IS NULL) BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = new.item_id);
  INSERT INTO search_feed SELECT i.project_id, 'todo', 3, i.id, i.created_at, i.title, coalesce(i.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(i.tags)), '') || coalesce((SELECT ' ' || group_concat(text, ' ') FROM (SELECT c.text FROM todo_checklist_entries c WHERE c.item_id = i.id ORDER BY c.id)), '') FROM todo_items i WHERE i.id = new.item_id;
END;
CREATE TRIGGER search_checklist_update AFTER UPDATE OF text ON todo_checklist_entries
WHEN EXISTS (SELECT 1 FROM todo_items i JOIN projects p ON p.id = i.project_id
  WHERE i.id = new.item_id AND i.deleted_at IS NULL AND p.deleted_at IS NULL) BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = new.item_id);
  INSERT INTO search_feed SELECT i.project_id, 'todo', 3, i.id, i.created_at, i.title, coalesce(i.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(i.tags)), '') || coalesce((SELECT ' ' || group_concat(text, ' ') FROM (SELECT c.text FROM todo_checklist_entries c WHERE c.item_id = i.id ORDER BY c.id)), '') FROM todo_items i WHERE i.id = new.item_id;
END;
CREATE TRIGGER search_checklist_delete AFTER DELETE ON todo_checklist_entries
WHEN EXISTS (SELECT 1 FROM todo_items i JOIN projects p ON p.id = i.project_id
  WHERE i.id = old.item_id AND i.deleted_at IS NULL AND p.deleted_at IS NULL) BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = old.item_id);
  INSERT INTO search_feed SELECT i.project_id, 'todo', 3, i.id, i.created_at, i.title, coalesce(i.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(i.tags)), '') || coalesce((SELECT ' ' || group_concat(text, ' ') FROM (SELECT c.text FROM todo_checklist_entries c WHERE c.item_id = i.id ORDER BY c.id)), '') FROM todo_items i WHERE i.id = old.item_id;
END;
