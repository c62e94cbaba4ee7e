-- PostgreSQL: the change of ../021_import_lease.sql for this engine (same version, same tables,
-- columns and index names; SQLite INTEGER is bigint here, TEXT text, REAL double precision).
--
-- Whose import is still running: with several instances on one database, an instance that
-- starts must not take an import another instance is writing for a leftover of a crash.
-- `import_owner` names the instance writing an import's hidden project (see 014), or removing
-- it as a leftover (a random id each instance draws at start), and `import_lease_until` is
-- when its hold runs out: the owner moves it on with each batch it commits, so it lapses only
-- when the owner stopped (its process died). Only then may another instance take the project
-- over to remove it, and it takes it in one statement, so two never remove the same one, and
-- the stalled owner, if it wakes, finds it is no longer its own. Both NULL outside imports.
ALTER TABLE projects ADD COLUMN import_owner text;
ALTER TABLE projects ADD COLUMN import_lease_until text;
