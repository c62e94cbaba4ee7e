-- PostgreSQL: the counterpart of ../008_search_order.sql (same version number). On SQLite that
-- file renumbers the FTS5 rows so that a project's matches come newest first from the index, and
-- indexes the last two characters of each text so that a two-character term needs no scan.
-- PostgreSQL's search (006) has both already: `seq` gives the order, and the index over
-- `search_pairs(doc)` finds a two-character term. What is left to do here is to say so.

COMMENT ON TABLE search_index IS
  'Searchable text of each item (migration 006): live rows are found by LIKE on doc (pg_trgm '
  'index search_index_text) or search_pairs(doc) (search_index_pairs), newest first by seq.';
