-- Search by type without reading past the other types (bench/search.md, section H).
--
-- Why: in `search_index` (008) a project's items are one rowid range, newest first, with the type
-- in the low three bits; a search with a type filter walks every match of the project and drops
-- those of other types. Counting the 10,001 to-dos that hold 'project' among a million items
-- read about 50,000 matches (141 ms at p95); a type with few matches read nearly all of them.
--
-- `search_typed` indexes the same title, body and tail (trigram, contentless: it holds the
-- index only, no second copy of the text) under another rowid: project_id * 2^40 +
-- (code - 1) * 2^37 + seq, where seq and code are those of the item's `search_index` rowid
-- (project_id * 2^40 + seq * 8 + code - 1). So a project's items of one type are one rowid range,
-- newest first, and FTS5 walks only their matches. Each search_index rowid maps to one
-- search_typed rowid and back by shifts and masks (db/content/search.ts).
--
-- A contentless FTS5 table forgets a row only when told its old values ('delete'), which live
-- in `search_index`: every trigger that removed a row from `search_index` now deletes it from the
-- view `search_entries` instead, whose INSTEAD OF trigger removes it from both. The feed (008)
-- adds it to both. Written for SQLite 3.40 (Debian 12's sqlite3 opens the database).

CREATE VIRTUAL TABLE search_typed USING fts5(
  title,
  body,
  tail,
  content = '',
  tokenize = 'trigram'
);
INSERT INTO search_typed (rowid, title, body, tail)
SELECT ((rowid >> 40) << 40) + ((rowid & 7) << 37) + ((rowid >> 3) & 137438953471),
  title, body, tail
FROM search_index;

CREATE VIEW search_entries (id, title, body, tail) AS
  SELECT rowid, title, body, tail FROM search_index;
CREATE TRIGGER search_entries_delete INSTEAD OF DELETE ON search_entries BEGIN
  INSERT INTO search_typed (search_typed, rowid, title, body, tail)
  VALUES ('delete', ((old.id >> 40) << 40) + ((old.id & 7) << 37) + ((old.id >> 3) & 137438953471),
    old.title, old.body, old.tail);
  DELETE FROM search_index WHERE rowid = old.id;
END;

DROP TRIGGER search_feed_insert;
CREATE TRIGGER search_feed_insert INSTEAD OF INSERT ON search_feed BEGIN
  INSERT OR IGNORE INTO search_docs (id, type, item_id)
  SELECT (coalesce(max(id) / 8 + 1, new.project_id * 137438953472)) * 8 + new.code - 1,
    new.type, new.item_id
  FROM search_docs
  WHERE id BETWEEN new.project_id * 1099511627776 AND new.project_id * 1099511627776 + 1099511627775;
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body, tail)
  SELECT id, new.project_id, new.type, new.item_id, new.created_at, new.title, new.body,
    substr(new.title, -2) || ' ' || substr(new.body, -2) || ' '
  FROM search_docs WHERE type = new.type AND item_id = new.item_id;
  INSERT INTO search_typed (rowid, title, body, tail)
  SELECT ((id >> 40) << 40) + ((id & 7) << 37) + ((id >> 3) & 137438953471),
    new.title, new.body, substr(new.title, -2) || ' ' || substr(new.body, -2) || ' '
  FROM search_docs WHERE type = new.type AND item_id = new.item_id;
END;

-- The triggers of 008, 016 and 023 that removed an item from search_index, each as it was with
-- `DELETE FROM search_entries WHERE id =` in place of `DELETE FROM search_index WHERE rowid =`.
DROP TRIGGER search_calendar_events_delete;
CREATE TRIGGER search_calendar_events_delete AFTER DELETE ON calendar_events BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'event' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'event' AND item_id = old.id;
END;
DROP TRIGGER search_calendar_events_update;
CREATE TRIGGER search_calendar_events_update AFTER UPDATE OF title, description, deleted_at ON calendar_events BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'event' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'event', 5, new.id, new.created_at, new.title, coalesce(new.description, '') WHERE new.deleted_at IS NULL;
END;
DROP TRIGGER search_chat_messages_delete;
CREATE TRIGGER search_chat_messages_delete AFTER DELETE ON chat_messages BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'chat' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'chat' AND item_id = old.id;
END;
DROP TRIGGER search_chat_messages_update;
CREATE TRIGGER search_chat_messages_update AFTER UPDATE OF text, deleted_at ON chat_messages BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'chat' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'chat', 2, new.id, new.created_at, substr(new.text, 1, 80), new.text WHERE new.deleted_at IS NULL;
END;
DROP TRIGGER search_checklist_delete;
CREATE TRIGGER search_checklist_delete AFTER DELETE ON todo_checklist_entries
WHEN EXISTS (SELECT 1 FROM todo_items i JOIN projects p ON p.id = i.project_id
  WHERE i.id = old.item_id AND i.deleted_at IS NULL AND p.deleted_at IS NULL) BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = old.item_id);
  INSERT INTO search_feed SELECT i.project_id, 'todo', 3, i.id, i.created_at, i.title, coalesce(i.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(i.tags)), '') || coalesce((SELECT ' ' || group_concat(text, ' ') FROM (SELECT c.text FROM todo_checklist_entries c WHERE c.item_id = i.id ORDER BY c.id)), '') FROM todo_items i WHERE i.id = old.item_id;
END;
DROP TRIGGER search_checklist_insert;
CREATE TRIGGER search_checklist_insert AFTER INSERT ON todo_checklist_entries
WHEN EXISTS (SELECT 1 FROM todo_items i JOIN projects p ON p.id = i.project_id
  WHERE i.id = new.item_id AND i.deleted_at IS NULL AND p.deleted_at IS NULL) BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = new.item_id);
  INSERT INTO search_feed SELECT i.project_id, 'todo', 3, i.id, i.created_at, i.title, coalesce(i.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(i.tags)), '') || coalesce((SELECT ' ' || group_concat(text, ' ') FROM (SELECT c.text FROM todo_checklist_entries c WHERE c.item_id = i.id ORDER BY c.id)), '') FROM todo_items i WHERE i.id = new.item_id;
END;
DROP TRIGGER search_checklist_update;
CREATE TRIGGER search_checklist_update AFTER UPDATE OF text ON todo_checklist_entries
WHEN EXISTS (SELECT 1 FROM todo_items i JOIN projects p ON p.id = i.project_id
  WHERE i.id = new.item_id AND i.deleted_at IS NULL AND p.deleted_at IS NULL) BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = new.item_id);
  INSERT INTO search_feed SELECT i.project_id, 'todo', 3, i.id, i.created_at, i.title, coalesce(i.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(i.tags)), '') || coalesce((SELECT ' ' || group_concat(text, ' ') FROM (SELECT c.text FROM todo_checklist_entries c WHERE c.item_id = i.id ORDER BY c.id)), '') FROM todo_items i WHERE i.id = new.item_id;
END;
DROP TRIGGER search_files_delete;
CREATE TRIGGER search_files_delete AFTER DELETE ON files BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'file' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'file' AND item_id = old.id;
END;
DROP TRIGGER search_files_update;
CREATE TRIGGER search_files_update AFTER UPDATE OF name, deleted_at ON files BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'file' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'file', 4, new.id, new.created_at, new.name, '' WHERE new.deleted_at IS NULL;
END;
DROP TRIGGER search_meetings_delete;
CREATE TRIGGER search_meetings_delete AFTER DELETE ON meetings BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'meeting' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'meeting' AND item_id = old.id;
END;
DROP TRIGGER search_meetings_update;
CREATE TRIGGER search_meetings_update AFTER UPDATE OF title, minutes, location, deleted_at ON meetings BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'meeting' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'meeting', 6, new.id, new.created_at, new.title, coalesce(new.minutes, '') || ' ' || coalesce(new.location, '') WHERE new.deleted_at IS NULL;
END;
DROP TRIGGER search_milestones_delete;
CREATE TRIGGER search_milestones_delete AFTER DELETE ON milestones BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'milestone' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'milestone' AND item_id = old.id;
END;
DROP TRIGGER search_milestones_update;
CREATE TRIGGER search_milestones_update AFTER UPDATE OF title, description, deleted_at ON milestones BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'milestone' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'milestone', 7, new.id, new.created_at, new.title, coalesce(new.description, '') WHERE new.deleted_at IS NULL;
END;
DROP TRIGGER search_notes_delete;
CREATE TRIGGER search_notes_delete AFTER DELETE ON notes BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'note' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'note' AND item_id = old.id;
END;
DROP TRIGGER search_notes_update;
CREATE TRIGGER search_notes_update AFTER UPDATE OF title, body, tags, deleted_at ON notes BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'note' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'note', 8, new.id, new.created_at, new.title, new.body || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(new.tags)), '') WHERE new.deleted_at IS NULL;
END;
DROP TRIGGER search_threads_delete;
CREATE TRIGGER search_threads_delete AFTER DELETE ON threads BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'board' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'board' AND item_id = old.id;
END;
DROP TRIGGER search_threads_update;
CREATE TRIGGER search_threads_update AFTER UPDATE OF title, body, deleted_at ON threads BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'board' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'board', 1, new.id, new.created_at, new.title, new.body WHERE new.deleted_at IS NULL;
END;
DROP TRIGGER search_todo_items_delete;
CREATE TRIGGER search_todo_items_delete AFTER DELETE ON todo_items BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'todo' AND item_id = old.id;
END;
DROP TRIGGER search_todo_items_update;
CREATE TRIGGER search_todo_items_update AFTER UPDATE OF title, description, tags, deleted_at ON todo_items BEGIN
  DELETE FROM search_entries WHERE id = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'todo', 3, new.id, new.created_at, new.title, coalesce(new.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(new.tags)), '') || coalesce((SELECT ' ' || group_concat(text, ' ') FROM (SELECT c.text FROM todo_checklist_entries c WHERE c.item_id = new.id ORDER BY c.id)), '') WHERE new.deleted_at IS NULL;
END;

