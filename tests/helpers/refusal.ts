/** A rule the database enforces that the product does not know of, for all-or-none tests. */
import type { TestApp } from "./app.ts";

/**
 * Makes the database refuse `event` (e.g. `BEFORE INSERT ON activity`, `BEFORE UPDATE OF
 * deleted_at ON projects`) with a constraint error, on rows matching `when` (a condition on
 * `new`/`old`, or none), on either engine; resolves with what removes the rule again.
 */
export async function refuse(
  t: TestApp,
  event: string,
  options: { when?: string; message?: string } = {},
): Promise<() => Promise<void>> {
  const name = `refuse_${crypto.randomUUID().slice(0, 8)}`;
  const message = options.message ?? "refused: constraint failed";
  if (t.sql.kind === "sqlite") {
    const when = options.when ? ` WHEN ${options.when}` : "";
    await t.sql.run(`CREATE TRIGGER ${name} ${event}${when}
      BEGIN SELECT RAISE(ABORT, '${message}'); END`);
    return async () => void await t.sql.run(`DROP TRIGGER ${name}`);
  }
  // PostgreSQL: a trigger function raising check_violation, a constraint error as SQLite's is.
  await t.sql.run(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $body$
    BEGIN RAISE EXCEPTION '${message}' USING ERRCODE = 'check_violation'; END $body$`);
  const when = options.when ? ` WHEN (${options.when})` : "";
  await t.sql.run(`CREATE TRIGGER ${name} ${event} FOR EACH ROW${when} EXECUTE FUNCTION ${name}()`);
  return async () => {
    await t.sql.run(`DROP TRIGGER ${name} ON ${event.replace(/^.* ON /, "")}`);
    await t.sql.run(`DROP FUNCTION ${name}()`);
  };
}
