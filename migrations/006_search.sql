-- Full-text search over the eight searchable types of a project: SQLite FTS5 with the
-- trigram tokenizer, so Japanese text and any substring of three or more characters are
-- found. Triggers keep the index in step inside the same transaction as every create,
-- update and (soft) delete; a soft-deleted row leaves the index. The rowid encodes the
-- type and the item id (code * 2^40 + id) so a change touches exactly one index row; only
-- changes to indexed columns (or deletion) touch the index, not reordering or completion.

CREATE VIRTUAL TABLE search_index USING fts5(
  project_id UNINDEXED,
  type UNINDEXED,
  item_id UNINDEXED,
  created_at UNINDEXED,
  title,
  body,
  tokenize = 'trigram'
);

-- board: threads
CREATE TRIGGER search_threads_insert AFTER INSERT ON threads WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  VALUES (1 * 1099511627776 + new.id, new.project_id, 'board', new.id, new.created_at, new.title, new.body);
END;
CREATE TRIGGER search_threads_update AFTER UPDATE OF title, body, deleted_at ON threads BEGIN
  DELETE FROM search_index WHERE rowid = 1 * 1099511627776 + old.id;
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  SELECT 1 * 1099511627776 + new.id, new.project_id, 'board', new.id, new.created_at, new.title, new.body WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_threads_delete AFTER DELETE ON threads BEGIN
  DELETE FROM search_index WHERE rowid = 1 * 1099511627776 + old.id;
END;
INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
SELECT 1 * 1099511627776 + threads.id, threads.project_id, 'board', threads.id, threads.created_at, threads.title, threads.body FROM threads WHERE threads.deleted_at IS NULL;

-- chat: chat_messages
CREATE TRIGGER search_chat_messages_insert AFTER INSERT ON chat_messages WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  VALUES (2 * 1099511627776 + new.id, new.project_id, 'chat', new.id, new.created_at, substr(new.text, 1, 80), new.text);
END;
CREATE TRIGGER search_chat_messages_update AFTER UPDATE OF text, deleted_at ON chat_messages BEGIN
  DELETE FROM search_index WHERE rowid = 2 * 1099511627776 + old.id;
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  SELECT 2 * 1099511627776 + new.id, new.project_id, 'chat', new.id, new.created_at, substr(new.text, 1, 80), new.text WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_chat_messages_delete AFTER DELETE ON chat_messages BEGIN
  DELETE FROM search_index WHERE rowid = 2 * 1099511627776 + old.id;
END;
INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
SELECT 2 * 1099511627776 + chat_messages.id, chat_messages.project_id, 'chat', chat_messages.id, chat_messages.created_at, substr(chat_messages.text, 1, 80), chat_messages.text FROM chat_messages WHERE chat_messages.deleted_at IS NULL;

-- todo: todo_items
CREATE TRIGGER search_todo_items_insert AFTER INSERT ON todo_items WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  VALUES (3 * 1099511627776 + new.id, new.project_id, 'todo', new.id, new.created_at, new.title, coalesce(new.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(new.tags)), ''));
END;
CREATE TRIGGER search_todo_items_update AFTER UPDATE OF title, description, tags, deleted_at ON todo_items BEGIN
  DELETE FROM search_index WHERE rowid = 3 * 1099511627776 + old.id;
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  SELECT 3 * 1099511627776 + new.id, new.project_id, 'todo', new.id, new.created_at, new.title, coalesce(new.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(new.tags)), '') WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_todo_items_delete AFTER DELETE ON todo_items BEGIN
  DELETE FROM search_index WHERE rowid = 3 * 1099511627776 + old.id;
END;
INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
SELECT 3 * 1099511627776 + todo_items.id, todo_items.project_id, 'todo', todo_items.id, todo_items.created_at, todo_items.title, coalesce(todo_items.description, '') || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(todo_items.tags)), '') FROM todo_items WHERE todo_items.deleted_at IS NULL;

-- file: files
CREATE TRIGGER search_files_insert AFTER INSERT ON files WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  VALUES (4 * 1099511627776 + new.id, new.project_id, 'file', new.id, new.created_at, new.name, '');
END;
CREATE TRIGGER search_files_update AFTER UPDATE OF name, deleted_at ON files BEGIN
  DELETE FROM search_index WHERE rowid = 4 * 1099511627776 + old.id;
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  SELECT 4 * 1099511627776 + new.id, new.project_id, 'file', new.id, new.created_at, new.name, '' WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_files_delete AFTER DELETE ON files BEGIN
  DELETE FROM search_index WHERE rowid = 4 * 1099511627776 + old.id;
END;
INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
SELECT 4 * 1099511627776 + files.id, files.project_id, 'file', files.id, files.created_at, files.name, '' FROM files WHERE files.deleted_at IS NULL;

-- event: calendar_events
CREATE TRIGGER search_calendar_events_insert AFTER INSERT ON calendar_events WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  VALUES (5 * 1099511627776 + new.id, new.project_id, 'event', new.id, new.created_at, new.title, coalesce(new.description, ''));
END;
CREATE TRIGGER search_calendar_events_update AFTER UPDATE OF title, description, deleted_at ON calendar_events BEGIN
  DELETE FROM search_index WHERE rowid = 5 * 1099511627776 + old.id;
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  SELECT 5 * 1099511627776 + new.id, new.project_id, 'event', new.id, new.created_at, new.title, coalesce(new.description, '') WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_calendar_events_delete AFTER DELETE ON calendar_events BEGIN
  DELETE FROM search_index WHERE rowid = 5 * 1099511627776 + old.id;
END;
INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
SELECT 5 * 1099511627776 + calendar_events.id, calendar_events.project_id, 'event', calendar_events.id, calendar_events.created_at, calendar_events.title, coalesce(calendar_events.description, '') FROM calendar_events WHERE calendar_events.deleted_at IS NULL;

-- meeting: meetings
CREATE TRIGGER search_meetings_insert AFTER INSERT ON meetings WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  VALUES (6 * 1099511627776 + new.id, new.project_id, 'meeting', new.id, new.created_at, new.title, coalesce(new.minutes, '') || ' ' || coalesce(new.location, ''));
END;
CREATE TRIGGER search_meetings_update AFTER UPDATE OF title, minutes, location, deleted_at ON meetings BEGIN
  DELETE FROM search_index WHERE rowid = 6 * 1099511627776 + old.id;
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  SELECT 6 * 1099511627776 + new.id, new.project_id, 'meeting', new.id, new.created_at, new.title, coalesce(new.minutes, '') || ' ' || coalesce(new.location, '') WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_meetings_delete AFTER DELETE ON meetings BEGIN
  DELETE FROM search_index WHERE rowid = 6 * 1099511627776 + old.id;
END;
INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
SELECT 6 * 1099511627776 + meetings.id, meetings.project_id, 'meeting', meetings.id, meetings.created_at, meetings.title, coalesce(meetings.minutes, '') || ' ' || coalesce(meetings.location, '') FROM meetings WHERE meetings.deleted_at IS NULL;

-- milestone: milestones
CREATE TRIGGER search_milestones_insert AFTER INSERT ON milestones WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  VALUES (7 * 1099511627776 + new.id, new.project_id, 'milestone', new.id, new.created_at, new.title, coalesce(new.description, ''));
END;
CREATE TRIGGER search_milestones_update AFTER UPDATE OF title, description, deleted_at ON milestones BEGIN
  DELETE FROM search_index WHERE rowid = 7 * 1099511627776 + old.id;
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  SELECT 7 * 1099511627776 + new.id, new.project_id, 'milestone', new.id, new.created_at, new.title, coalesce(new.description, '') WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_milestones_delete AFTER DELETE ON milestones BEGIN
  DELETE FROM search_index WHERE rowid = 7 * 1099511627776 + old.id;
END;
INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
SELECT 7 * 1099511627776 + milestones.id, milestones.project_id, 'milestone', milestones.id, milestones.created_at, milestones.title, coalesce(milestones.description, '') FROM milestones WHERE milestones.deleted_at IS NULL;

-- note: notes
CREATE TRIGGER search_notes_insert AFTER INSERT ON notes WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  VALUES (8 * 1099511627776 + new.id, new.project_id, 'note', new.id, new.created_at, new.title, new.body || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(new.tags)), ''));
END;
CREATE TRIGGER search_notes_update AFTER UPDATE OF title, body, tags, deleted_at ON notes BEGIN
  DELETE FROM search_index WHERE rowid = 8 * 1099511627776 + old.id;
  INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
  SELECT 8 * 1099511627776 + new.id, new.project_id, 'note', new.id, new.created_at, new.title, new.body || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(new.tags)), '') WHERE new.deleted_at IS NULL;
END;
CREATE TRIGGER search_notes_delete AFTER DELETE ON notes BEGIN
  DELETE FROM search_index WHERE rowid = 8 * 1099511627776 + old.id;
END;
INSERT INTO search_index (rowid, project_id, type, item_id, created_at, title, body)
SELECT 8 * 1099511627776 + notes.id, notes.project_id, 'note', notes.id, notes.created_at, notes.title, notes.body || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(notes.tags)), '') FROM notes WHERE notes.deleted_at IS NULL;
