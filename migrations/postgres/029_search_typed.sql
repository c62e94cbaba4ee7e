-- PostgreSQL: the searchable text of each type in a partition of its own (the SQLite counterpart,
-- ../029_search_typed.sql, gives each type a rowid range of its own in a second FTS5 index).
--
-- Why: a search with a type filter reads that type's rows only, but in one table they lie among
-- every other type's, one or two to a page: counting the to-dos that hold 'project' in a million
-- items read a page of the table for nearly every row it checked (976 ms at p95, bench/search.md,
-- section G). `search_text` (022) is now partitioned by type (LIST): a type's rows fill their own
-- pages, a search with a type reads one partition, and one without reads them all, merged newest
-- first by `seq` (each partition has its `(project_id, seq)` index). The columns, the trigram and
-- pair indexes and what the table holds are those of 022; the trigger that keeps it in step
-- names the type with the `seq` (the key of a partitioned table holds its partition's column).

ALTER TABLE search_text RENAME TO search_text_022;

CREATE TABLE search_text (
  seq bigint NOT NULL,
  project_id bigint NOT NULL,
  type text NOT NULL,
  created_at text NOT NULL,
  doc text NOT NULL,
  PRIMARY KEY (type, seq)
) PARTITION BY LIST (type);
CREATE TABLE search_text_board PARTITION OF search_text FOR VALUES IN ('board');
CREATE TABLE search_text_chat PARTITION OF search_text FOR VALUES IN ('chat');
CREATE TABLE search_text_todo PARTITION OF search_text FOR VALUES IN ('todo');
CREATE TABLE search_text_file PARTITION OF search_text FOR VALUES IN ('file');
CREATE TABLE search_text_event PARTITION OF search_text FOR VALUES IN ('event');
CREATE TABLE search_text_meeting PARTITION OF search_text FOR VALUES IN ('meeting');
CREATE TABLE search_text_milestone PARTITION OF search_text FOR VALUES IN ('milestone');
CREATE TABLE search_text_note PARTITION OF search_text FOR VALUES IN ('note');
-- A type no migration knows yet still has a place.
CREATE TABLE search_text_other PARTITION OF search_text DEFAULT;

INSERT INTO search_text (seq, project_id, type, created_at, doc)
SELECT seq, project_id, type, created_at, doc FROM search_text_022 ORDER BY seq;
DROP TABLE search_text_022;

CREATE INDEX search_text_order ON search_text (project_id, seq);
CREATE INDEX search_text_doc ON search_text USING gin (doc gin_trgm_ops);
CREATE INDEX search_text_pairs ON search_text USING gin (search_pairs(doc));

CREATE OR REPLACE FUNCTION search_text_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Gone, trashed, or renumbered: its text under the old number goes.
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND (NOT new.live OR new.seq <> old.seq
      OR new.type <> old.type)) THEN
    DELETE FROM search_text WHERE type = old.type AND seq = old.seq;
  END IF;
  IF TG_OP <> 'DELETE' AND new.live THEN
    INSERT INTO search_text (seq, project_id, type, created_at, doc)
    VALUES (new.seq, new.project_id, new.type, new.created_at,
      lower(new.title || E'\n' || new.body))
    ON CONFLICT (type, seq) DO UPDATE SET project_id = excluded.project_id,
      created_at = excluded.created_at, doc = excluded.doc;
  END IF;
  RETURN NULL;
END $$;

COMMENT ON TABLE search_text IS
  'Searchable text of each live item (migrations 022, 029), a partition per type: found by LIKE '
  'on doc (pg_trgm index search_text_doc) or search_pairs(doc) (search_text_pairs), newest '
  'first by seq.';
