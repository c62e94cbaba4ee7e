-- PostgreSQL: the search of ../006_search.sql and ../008_search_order.sql for this engine (same
-- version numbers). SQLite uses FTS5 with the trigram tokenizer; here one table holds each
-- item's indexed text, a pg_trgm GIN index finds any substring (Japanese included) with ILIKE,
-- and triggers keep it in step inside the same transaction as every create, update and (soft)
-- delete, as on SQLite.
--
-- Order: `seq` numbers items in the order they are indexed (created), from one sequence for all
-- projects; an edit, a soft delete and a restore keep it (the row stays, `live` false while the
-- item is in the trash), so "newest first" is `seq DESC` within a project, as SQLite's rowid is.
--
-- Matching: `doc` is title and body lower-cased and joined by a newline, which no search term
-- holds (terms are split on white space), so a term matches within one of them, as with FTS5's
-- columns; a term is `doc LIKE '%term%'`, found through the trigram index for three characters
-- or more. pg_trgm takes no trigram from a two-character term, so `search_pairs(doc)`, the
-- distinct two-character pieces of `doc`, has a GIN index of its own: a two-character term is
-- `search_pairs(doc) @> ARRAY[term]`, rechecked with LIKE (SQLite's 008 does this with its
-- trigram vocabulary).

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- The distinct two-character pieces of `t` that hold no newline.
CREATE FUNCTION search_pairs(t text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT p), '{}')
  FROM (SELECT substr(t, i, 2) AS p FROM generate_series(1, char_length(t) - 1) AS i) pieces
  WHERE strpos(p, E'\n') = 0
$$;

CREATE SEQUENCE search_seq;
CREATE TABLE search_index (
  type text NOT NULL,
  item_id bigint NOT NULL,
  project_id bigint NOT NULL,
  seq bigint NOT NULL,
  live boolean NOT NULL,
  created_at text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  doc text GENERATED ALWAYS AS (lower(title || E'\n' || body)) STORED,
  PRIMARY KEY (type, item_id)
);
CREATE INDEX search_index_order ON search_index (project_id, seq) WHERE live;
-- Newest first within one type: its items may all be old, and the index above would walk past
-- every newer item of the other types to reach a page of them.
CREATE INDEX search_index_type_order ON search_index (project_id, type, seq) WHERE live;
CREATE INDEX search_index_text ON search_index USING gin (doc gin_trgm_ops) WHERE live;
-- The pieces live in this index only, not in the rows: stored, they made each row about twice
-- as wide, and a count reads every matching row (bench/search.md).
CREATE INDEX search_index_pairs ON search_index USING gin (search_pairs(doc)) WHERE live;

-- The one place that indexes an item (a new one gets the next seq; a known one keeps its own).
CREATE FUNCTION search_put(p_project bigint, p_type text, p_item bigint, p_created text,
  p_title text, p_body text, p_live boolean) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_live THEN
    INSERT INTO search_index (type, item_id, project_id, seq, live, created_at, title, body)
    VALUES (p_type, p_item, p_project, nextval('search_seq'), true, p_created, p_title, p_body)
    ON CONFLICT (type, item_id) DO UPDATE SET live = true, project_id = excluded.project_id,
      created_at = excluded.created_at, title = excluded.title, body = excluded.body;
  ELSE
    UPDATE search_index SET live = false WHERE type = p_type AND item_id = p_item;
  END IF;
END $$;

-- A JSON array of tags as words.
CREATE FUNCTION search_tags(p_tags text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce((SELECT string_agg(value, ' ') FROM json_array_elements_text(p_tags::json)), '')
$$;

-- A to-do's body (migration 016 adds its checklist's entries).
CREATE FUNCTION search_todo_body(p_item bigint) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT coalesce(description, '') || ' ' || search_tags(tags) FROM todo_items WHERE id = p_item
$$;

-- One trigger function per table: what it indexes as title and body.
CREATE FUNCTION search_threads() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_index WHERE type = 'board' AND item_id = old.id;
  ELSE
    PERFORM search_put(new.project_id, 'board', new.id, new.created_at, new.title, new.body,
      new.deleted_at IS NULL);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER search_threads AFTER INSERT OR UPDATE OF title, body, deleted_at OR DELETE
  ON threads FOR EACH ROW EXECUTE FUNCTION search_threads();

CREATE FUNCTION search_chat_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_index WHERE type = 'chat' AND item_id = old.id;
  ELSE
    PERFORM search_put(new.project_id, 'chat', new.id, new.created_at, substr(new.text, 1, 80),
      new.text, new.deleted_at IS NULL);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER search_chat_messages AFTER INSERT OR UPDATE OF text, deleted_at OR DELETE
  ON chat_messages FOR EACH ROW EXECUTE FUNCTION search_chat_messages();

CREATE FUNCTION search_todo_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_index WHERE type = 'todo' AND item_id = old.id;
  ELSE
    PERFORM search_put(new.project_id, 'todo', new.id, new.created_at, new.title,
      search_todo_body(new.id), new.deleted_at IS NULL);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER search_todo_items AFTER INSERT OR UPDATE OF title, description, tags, deleted_at
  OR DELETE ON todo_items FOR EACH ROW EXECUTE FUNCTION search_todo_items();

CREATE FUNCTION search_files() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_index WHERE type = 'file' AND item_id = old.id;
  ELSE
    PERFORM search_put(new.project_id, 'file', new.id, new.created_at, new.name, '',
      new.deleted_at IS NULL);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER search_files AFTER INSERT OR UPDATE OF name, deleted_at OR DELETE
  ON files FOR EACH ROW EXECUTE FUNCTION search_files();

CREATE FUNCTION search_calendar_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_index WHERE type = 'event' AND item_id = old.id;
  ELSE
    PERFORM search_put(new.project_id, 'event', new.id, new.created_at, new.title,
      coalesce(new.description, ''), new.deleted_at IS NULL);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER search_calendar_events AFTER INSERT OR UPDATE OF title, description, deleted_at
  OR DELETE ON calendar_events FOR EACH ROW EXECUTE FUNCTION search_calendar_events();

CREATE FUNCTION search_meetings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_index WHERE type = 'meeting' AND item_id = old.id;
  ELSE
    PERFORM search_put(new.project_id, 'meeting', new.id, new.created_at, new.title,
      coalesce(new.minutes, '') || ' ' || coalesce(new.location, ''), new.deleted_at IS NULL);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER search_meetings AFTER INSERT OR UPDATE OF title, minutes, location, deleted_at
  OR DELETE ON meetings FOR EACH ROW EXECUTE FUNCTION search_meetings();

CREATE FUNCTION search_milestones() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_index WHERE type = 'milestone' AND item_id = old.id;
  ELSE
    PERFORM search_put(new.project_id, 'milestone', new.id, new.created_at, new.title,
      coalesce(new.description, ''), new.deleted_at IS NULL);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER search_milestones AFTER INSERT OR UPDATE OF title, description, deleted_at
  OR DELETE ON milestones FOR EACH ROW EXECUTE FUNCTION search_milestones();

CREATE FUNCTION search_notes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_index WHERE type = 'note' AND item_id = old.id;
  ELSE
    PERFORM search_put(new.project_id, 'note', new.id, new.created_at, new.title,
      new.body || ' ' || search_tags(new.tags), new.deleted_at IS NULL);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER search_notes AFTER INSERT OR UPDATE OF title, body, tags, deleted_at OR DELETE
  ON notes FOR EACH ROW EXECUTE FUNCTION search_notes();
