/**
 * Which instances are running, as PostgreSQL sees them. Each instance holds a session-level
 * advisory lock of class `PRESENCE_LOCK_CLASS` numbered by the instance, on a connection of its
 * own (domain/kernel/presence.ts), and marks what it takes over with that number (a claimed webhook
 * delivery, an import's hidden project). The lock goes when the instance's connections go: a
 * process that dies (kill -9, a lost host) lets go of it at once, so what it held can be taken
 * over at once instead of after a lease. SQLite has one instance and marks nothing.
 */

/** The advisory lock class of instance presence (the object id is the instance's number). */
export const PRESENCE_LOCK_CLASS = 7_301_100;

/**
 * A PostgreSQL condition: the instance numbered by `column` marked the row and no longer runs
 * (NULL, no mark, is not gone). Reads `pg_locks` of the current database.
 */
export function ownerGone(column: string): string {
  return `(${column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pg_locks presence
    WHERE presence.locktype = 'advisory' AND presence.classid = ${PRESENCE_LOCK_CLASS}
      AND presence.objsubid = 2
      AND presence.objid = (${column})::oid AND presence.granted
      AND presence.database = (SELECT oid FROM pg_database WHERE datname = current_database())))`;
}
