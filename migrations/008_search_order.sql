-- Search order and filters without reading or sorting the matches. Each indexed item gets
-- rowid = project_id * 2^40 + seq * 8 + (code - 1): seq counts up per project in the order
-- items are indexed (that is, created), code is the type (1 board .. 8 note). FTS5 then walks
-- a project's matches newest first and stops at the page (rowid range, ORDER BY rowid DESC,
-- LIMIT), the type is `rowid & 7`, and count(*) reads the doclists only. search_docs keeps
-- each item's rowid, so an edit keeps its place.
--
-- tail (the last two characters of title and of body, each followed by a space) makes every
-- occurrence of a two-character term the start of an indexed trigram, so such a term is the
-- OR of the trigrams search_vocab lists with that prefix, instead of a scan of every row.

DROP TABLE search_index;
CREATE VIRTUAL TABLE search_index USING fts5(
  project_id UNINDEXED,
  type UNINDEXED,
  item_id UNINDEXED,
  created_at UNINDEXED,
  title,
  body,
  tail,
  tokenize = 'trigram'
);
CREATE VIRTUAL TABLE search_vocab USING fts5vocab(search_index, row);

CREATE TABLE search_docs (
  id INTEGER PRIMARY KEY,
  type TEXT NOT NULL,
  item_id INTEGER NOT NULL,
  UNIQUE (type, item_id)
) STRICT;

-- The one place that numbers and indexes an item: the triggers below insert into this view.
CREATE VIEW search_feed (project_id, type, code, item_id, created_at, title, body) AS
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE 0;
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
END;

DROP TRIGGER search_threads_insert;
DROP TRIGGER search_threads_update;
DROP TRIGGER search_threads_delete;
DROP TRIGGER search_chat_messages_insert;
DROP TRIGGER search_chat_messages_update;
DROP TRIGGER search_chat_messages_delete;
DROP TRIGGER search_todo_items_insert;
DROP TRIGGER search_todo_items_update;
DROP TRIGGER search_todo_items_delete;
DROP TRIGGER search_files_insert;
DROP TRIGGER search_files_update;
DROP TRIGGER search_files_delete;
DROP TRIGGER search_calendar_events_insert;
DROP TRIGGER search_calendar_events_update;
DROP TRIGGER search_calendar_events_delete;
DROP TRIGGER search_meetings_insert;
DROP TRIGGER search_meetings_update;
DROP TRIGGER search_meetings_delete;
DROP TRIGGER search_milestones_insert;
DROP TRIGGER search_milestones_update;
DROP TRIGGER search_milestones_delete;
DROP TRIGGER search_notes_insert;
DROP TRIGGER search_notes_update;
DROP TRIGGER search_notes_delete;

-- board: threads
CREATE TRIGGER search_threads_insert AFTER INSERT ON threads WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_feed VALUES (new.project_id, 'board', 1, new.id, new.created_at, new.title, new.body);
END;
CREATE TRIGGER search_threads_update AFTER UPDATE OF title, body, deleted_at ON threads BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'board' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'board', 1, new.id, new.created_at, new.title, new.body WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_threads_delete AFTER DELETE ON threads BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'board' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'board' AND item_id = old.id;
END;
-- chat: chat_messages
CREATE TRIGGER search_chat_messages_insert AFTER INSERT ON chat_messages WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_feed VALUES (new.project_id, 'chat', 2, new.id, new.created_at, substr(new.text, 1, 80), new.text);
END;
CREATE TRIGGER search_chat_messages_update AFTER UPDATE OF text, deleted_at ON chat_messages BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'chat' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'chat', 2, new.id, new.created_at, substr(new.text, 1, 80), new.text WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_chat_messages_delete AFTER DELETE ON chat_messages BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'chat' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'chat' AND item_id = old.id;
END;
-- todo: todo_items
CREATE TRIGGER search_todo_items_insert AFTER INSERT ON todo_items WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_feed VALUES (new.project_id, 'todo', 3, new.id, new.created_at, new.title, coalesce(new.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(new.tags)), ''));
END;
CREATE TRIGGER search_todo_items_update AFTER UPDATE OF title, description, tags, deleted_at ON todo_items BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'todo', 3, new.id, new.created_at, new.title, coalesce(new.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(new.tags)), '') WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_todo_items_delete AFTER DELETE ON todo_items BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'todo' AND item_id = old.id;
END;
-- file: files
CREATE TRIGGER search_files_insert AFTER INSERT ON files WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_feed VALUES (new.project_id, 'file', 4, new.id, new.created_at, new.name, '');
END;
CREATE TRIGGER search_files_update AFTER UPDATE OF name, deleted_at ON files BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'file' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'file', 4, new.id, new.created_at, new.name, '' WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_files_delete AFTER DELETE ON files BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'file' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'file' AND item_id = old.id;
END;
-- event: calendar_events
CREATE TRIGGER search_calendar_events_insert AFTER INSERT ON calendar_events WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_feed VALUES (new.project_id, 'event', 5, new.id, new.created_at, new.title, coalesce(new.description, ''));
END;
CREATE TRIGGER search_calendar_events_update AFTER UPDATE OF title, description, deleted_at ON calendar_events BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'event' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'event', 5, new.id, new.created_at, new.title, coalesce(new.description, '') WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_calendar_events_delete AFTER DELETE ON calendar_events BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'event' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'event' AND item_id = old.id;
END;
-- meeting: meetings
CREATE TRIGGER search_meetings_insert AFTER INSERT ON meetings WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_feed VALUES (new.project_id, 'meeting', 6, new.id, new.created_at, new.title, coalesce(new.minutes, '') || ' ' || coalesce(new.location, ''));
END;
CREATE TRIGGER search_meetings_update AFTER UPDATE OF title, minutes, location, deleted_at ON meetings BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'meeting' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'meeting', 6, new.id, new.created_at, new.title, coalesce(new.minutes, '') || ' ' || coalesce(new.location, '') WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_meetings_delete AFTER DELETE ON meetings BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'meeting' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'meeting' AND item_id = old.id;
END;
-- milestone: milestones
CREATE TRIGGER search_milestones_insert AFTER INSERT ON milestones WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_feed VALUES (new.project_id, 'milestone', 7, new.id, new.created_at, new.title, coalesce(new.description, ''));
END;
CREATE TRIGGER search_milestones_update AFTER UPDATE OF title, description, deleted_at ON milestones BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'milestone' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'milestone', 7, new.id, new.created_at, new.title, coalesce(new.description, '') WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_milestones_delete AFTER DELETE ON milestones BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'milestone' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'milestone' AND item_id = old.id;
END;
-- note: notes
CREATE TRIGGER search_notes_insert AFTER INSERT ON notes WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_feed VALUES (new.project_id, 'note', 8, new.id, new.created_at, new.title, new.body || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(new.tags)), ''));
END;
CREATE TRIGGER search_notes_update AFTER UPDATE OF title, body, tags, deleted_at ON notes BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'note' AND item_id = old.id);
  INSERT INTO search_feed SELECT new.project_id, 'note', 8, new.id, new.created_at, new.title, new.body || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(new.tags)), '') WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_notes_delete AFTER DELETE ON notes BEGIN
  DELETE FROM search_index WHERE rowid = (SELECT id FROM search_docs WHERE type = 'note' AND item_id = old.id);
  DELETE FROM search_docs WHERE type = 'note' AND item_id = old.id;
END;

-- The live items, numbered per project by (created_at, code, id): the order search gave.
INSERT INTO search_feed
SELECT * FROM (
  SELECT n.project_id, 'board' AS type, 1 AS code, n.id, n.created_at, n.title, n.body
  FROM threads n WHERE n.deleted_at IS NULL
  UNION ALL
  SELECT n.project_id, 'chat' AS type, 2 AS code, n.id, n.created_at, substr(n.text, 1, 80), n.text
  FROM chat_messages n WHERE n.deleted_at IS NULL
  UNION ALL
  SELECT n.project_id, 'todo' AS type, 3 AS code, n.id, n.created_at, n.title, coalesce(n.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(n.tags)), '')
  FROM todo_items n WHERE n.deleted_at IS NULL
  UNION ALL
  SELECT n.project_id, 'file' AS type, 4 AS code, n.id, n.created_at, n.name, ''
  FROM files n WHERE n.deleted_at IS NULL
  UNION ALL
  SELECT n.project_id, 'event' AS type, 5 AS code, n.id, n.created_at, n.title, coalesce(n.description, '')
  FROM calendar_events n WHERE n.deleted_at IS NULL
  UNION ALL
  SELECT n.project_id, 'meeting' AS type, 6 AS code, n.id, n.created_at, n.title, coalesce(n.minutes, '') || ' ' || coalesce(n.location, '')
  FROM meetings n WHERE n.deleted_at IS NULL
  UNION ALL
  SELECT n.project_id, 'milestone' AS type, 7 AS code, n.id, n.created_at, n.title, coalesce(n.description, '')
  FROM milestones n WHERE n.deleted_at IS NULL
  UNION ALL
  SELECT n.project_id, 'note' AS type, 8 AS code, n.id, n.created_at, n.title, n.body || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(n.tags)), '')
  FROM notes n WHERE n.deleted_at IS NULL
) ORDER BY project_id, created_at, code, id;
