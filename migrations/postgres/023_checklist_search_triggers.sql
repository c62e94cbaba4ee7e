-- PostgreSQL: nothing to do. On SQLite this version rewrites the search triggers of 016 in
-- syntax that SQLite 3.40 reads, so that the operator's own `sqlite3` shell opens the file;
-- PostgreSQL's `string_agg(... ORDER BY ...)` has always been standard there. The file keeps
-- both engines' sequences at the same version numbers.
SELECT 1;
