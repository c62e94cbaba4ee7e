/**
 * The repository stands alone: a clone has no sibling folders, so no file may read or link
 * one (the SOAP reference exchanges the tests need live in `tests/fixtures/`).
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname!, "..", "..");
const SKIP = new Set([".git", "node_modules", "data", "dist"]);
// Built from parts so that this file does not match itself.
const SIBLING = ["..", "shared"].join("/");

function* files(dir: string): Generator<string> {
  for (const entry of Deno.readDirSync(dir)) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* files(path);
    else if (entry.isFile) yield path;
  }
}

Deno.test("no file in the repository reads or links a sibling shared folder", () => {
  const offenders: string[] = [];
  for (const path of files(ROOT)) {
    const text = new TextDecoder().decode(Deno.readFileSync(path));
    if (text.includes(SIBLING) || text.includes("/work/" + "shared")) {
      offenders.push(relative(ROOT, path));
    }
  }
  assert.deepEqual(offenders, []);
});

Deno.test("the SOAP reference exchanges are in the repository", () => {
  const dir = join(ROOT, "tests", "fixtures", "soap-reference");
  const names = [...Deno.readDirSync(dir)].map((e) => e.name);
  assert.ok(names.includes("hello.wsdl") && names.includes("loan.wsdl"));
  assert.ok(names.filter((n) => n.endsWith(".request")).length >= 10);
});
