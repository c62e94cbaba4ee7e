/** A standard to-do column keeps its standard name until the project renames it. */
import assert from "node:assert/strict";
import { type Column, hasStandardName } from "../../../domain/planning/todos.ts";

Deno.test("a standard column has its standard name until it is renamed", () => {
  const column = (key: Column["key"], name: string) => ({ key, name }) as Column;
  assert.equal(hasStandardName(column("todo", "To Do")), true);
  assert.equal(hasStandardName(column("in_progress", "In Progress")), true);
  assert.equal(hasStandardName(column("done", "Done")), true);
  assert.equal(hasStandardName(column("todo", "Backlog")), false);
  assert.equal(hasStandardName(column("done", "To Do")), false);
  assert.equal(hasStandardName(column(null, "To Do")), false);
});
