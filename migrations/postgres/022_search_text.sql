-- PostgreSQL: the searchable text of live items in a narrow table of its own (the SQLite
-- counterpart, ../022_search_text.sql, has nothing to do: FTS5 counts from its doclists).
--
-- Why: a search's total is exact, so a term found in half of a project's items makes PostgreSQL
-- check every candidate the trigram index yields against its text (LIKE rechecks what trigrams
-- only suggest). In `search_index` each row carried the title and body beside `doc`, so those
-- rechecks read twice the pages they needed: at 100,000 items the count of a term in 51,015 of
-- them took 31 ms there and 24 ms here (bench/search_pg_bench.ts, bench/README.md).
--
-- `search_index` stays the record of each item (title and body as shown, `live`, `seq`, written
-- by `search_put` of 006 and the triggers of 006 and 016); `search_text` holds, for each live row
-- of it, what a search reads to find and order matches: `doc` (title and body lower-cased and
-- joined by a newline, as in 006), the project, the type, the creation time and `seq`. One
-- trigger on `search_index` keeps it in step, in the same transaction, whoever writes the row.
-- A page of matches is found here and its titles and bodies read from `search_index` by `seq`.

CREATE UNIQUE INDEX search_index_seq ON search_index (seq);

CREATE TABLE search_text (
  seq bigint PRIMARY KEY,
  project_id bigint NOT NULL,
  type text NOT NULL,
  created_at text NOT NULL,
  doc text NOT NULL
);
INSERT INTO search_text (seq, project_id, type, created_at, doc)
SELECT seq, project_id, type, created_at, doc FROM search_index WHERE live ORDER BY seq;

-- The indexes move with the text (dropping `doc` drops the two built on it).
DROP INDEX search_index_order;
DROP INDEX search_index_type_order;
ALTER TABLE search_index DROP COLUMN doc;
CREATE INDEX search_text_order ON search_text (project_id, seq);
CREATE INDEX search_text_type_order ON search_text (project_id, type, seq);
CREATE INDEX search_text_doc ON search_text USING gin (doc gin_trgm_ops);
CREATE INDEX search_text_pairs ON search_text USING gin (search_pairs(doc));

CREATE FUNCTION search_text_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Gone, trashed, or renumbered: its text under the old number goes.
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND (NOT new.live OR new.seq <> old.seq)) THEN
    DELETE FROM search_text WHERE seq = old.seq;
  END IF;
  IF TG_OP <> 'DELETE' AND new.live THEN
    INSERT INTO search_text (seq, project_id, type, created_at, doc)
    VALUES (new.seq, new.project_id, new.type, new.created_at,
      lower(new.title || E'\n' || new.body))
    ON CONFLICT (seq) DO UPDATE SET project_id = excluded.project_id, type = excluded.type,
      created_at = excluded.created_at, doc = excluded.doc;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER search_text_sync AFTER INSERT OR UPDATE OR DELETE ON search_index
  FOR EACH ROW EXECUTE FUNCTION search_text_sync();

COMMENT ON TABLE search_index IS
  'Each item''s searchable title and body (migration 006); the text of its live rows, which '
  'a search reads, is in search_text (migration 022).';
COMMENT ON TABLE search_text IS
  'Searchable text of each live item (migration 022): found by LIKE on doc (pg_trgm index '
  'search_text_doc) or search_pairs(doc) (search_text_pairs), newest first by seq.';
