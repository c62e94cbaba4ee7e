-- Checklists on to-do items: ordered entries, each with its text and whether it is done.
-- An entry belongs to its item (gone with it when the item is purged) and names its project
-- too, so a project's purge deletes them table by table like its other rows. A trashed item
-- keeps its entries: restoring it brings them back as they were.
--
-- Search finds an item by its entries' text: the item's indexed body gains the entries (by
-- id, so reordering or checking one never touches the index), re-indexed when an entry is
-- added, renamed or removed while its item is live in a live project. A purge (the project
-- deleted, the item trashed) or a hidden import row skips that work.

CREATE TABLE todo_checklist_entries (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  item_id INTEGER NOT NULL REFERENCES todo_items (id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
  position INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX todo_checklist_entries_item ON todo_checklist_entries (item_id, position);
CREATE INDEX todo_checklist_entries_project ON todo_checklist_entries (project_id);

-- todo: todo_items, with the checklist's text after the description and tags.
DROP TRIGGER search_todo_items_insert;
DROP TRIGGER search_todo_items_update;
CREATE TRIGGER search_todo_items_insert AFTER INSERT ON todo_items WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_feed VALUES (new.project_id, 'todo', 3, new.id, new.created_at, new.title, coalesce(new.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(new.tags)), '') || coalesce((SELECT ' ' || group_concat(c.text, ' ' ORDER BY c.id) FROM todo_checklist_entries c WHERE c.item_id = new.id), ''));
END;
CREATE TRIGGER search_todo_items_update AFTER UPDATE OF title, description, tags, deleted_at ON todo_items BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'todo', 3, new.id, new.created_at, new.title, coalesce(new.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(new.tags)), '') || coalesce((SELECT ' ' || group_concat(c.text, ' ' ORDER BY c.id) FROM todo_checklist_entries c WHERE c.item_id = new.id), '') WHERE new.deleted_at IS NULL;
END;

-- An entry added, renamed or removed re-indexes its item.
CREATE TRIGGER search_checklist_insert AFTER INSERT ON todo_checklist_entries
WHEN EXISTS (SELECT 1 FROM todo_items i JOIN projects p ON p.id = i.project_id
  WHERE i.id = new.item_id AND i.deleted_at IS NULL AND p.deleted_at IS NULL) BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = new.item_id);
  INSERT INTO search_feed SELECT i.project_id, 'todo', 3, i.id, i.created_at, i.title, coalesce(i.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(i.tags)), '') || coalesce((SELECT ' ' || group_concat(c.text, ' ' ORDER BY c.id) FROM todo_checklist_entries c WHERE c.item_id = i.id), '') FROM todo_items i WHERE i.id = new.item_id;
END;
CREATE TRIGGER search_checklist_update AFTER UPDATE OF text ON todo_checklist_entries
WHEN EXISTS (SELECT 1 FROM todo_items i JOIN projects p ON p.id = i.project_id
  WHERE i.id = new.item_id AND i.deleted_at IS NULL AND p.deleted_at IS NULL) BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = new.item_id);
  INSERT INTO search_feed SELECT i.project_id, 'todo', 3, i.id, i.created_at, i.title, coalesce(i.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(i.tags)), '') || coalesce((SELECT ' ' || group_concat(c.text, ' ' ORDER BY c.id) FROM todo_checklist_entries c WHERE c.item_id = i.id), '') FROM todo_items i WHERE i.id = new.item_id;
END;
CREATE TRIGGER search_checklist_delete AFTER DELETE ON todo_checklist_entries
WHEN EXISTS (SELECT 1 FROM todo_items i JOIN projects p ON p.id = i.project_id
  WHERE i.id = old.item_id AND i.deleted_at IS NULL AND p.deleted_at IS NULL) BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = old.item_id);
  INSERT INTO search_feed SELECT i.project_id, 'todo', 3, i.id, i.created_at, i.title, coalesce(i.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(i.tags)), '') || coalesce((SELECT ' ' || group_concat(c.text, ' ' ORDER BY c.id) FROM todo_checklist_entries c WHERE c.item_id = i.id), '') FROM todo_items i WHERE i.id = old.item_id;
END;
