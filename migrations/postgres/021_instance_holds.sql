-- PostgreSQL: the change of ../021_instance_holds.sql for this engine (same version, same tables,
-- columns and index names; SQLite INTEGER is bigint here, TEXT text, REAL double precision).
--
-- Who holds what, with several instances on one database (PostgreSQL; on SQLite, with one
-- instance, these stay NULL or go unread). An instance marks what it takes with its number,
-- which it holds as an advisory lock while it runs (db/presence.ts): when it stops, however it
-- stops, the others see the number free and may take over what it marked.
--
-- An import: `import_owner` is the instance writing the hidden project (see 014), or removing
-- it as a leftover; `import_lease_until` is when its hold runs out even while the owner runs
-- (the owner moves it on with each batch, so it lapses only when the owner stalled). Another
-- instance takes the project over, in one statement, only when the owner is gone or the lease
-- lapsed: an instance that starts leaves alone the imports others are writing, and two never
-- remove the same leftover. Both NULL outside imports.
ALTER TABLE projects ADD COLUMN import_owner bigint;
ALTER TABLE projects ADD COLUMN import_lease_until text;

-- A webhook delivery claimed by an instance (its `next_attempt_at` then holds the lease): the
-- instance's number, so that the claim can be taken over at once when that instance is gone,
-- instead of when the lease runs out. NULL when unclaimed.
ALTER TABLE webhook_deliveries ADD COLUMN claimed_by bigint;
