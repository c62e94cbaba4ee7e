/** The configuration: parsing limits, and the README's table kept in step with the code. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CONFIG_VARIABLES, ConfigError, parseConfig } from "../../domain/config.ts";

const README = join(import.meta.dirname!, "..", "..", "README.md");

Deno.test("the README's configuration table lists exactly the variables the server reads, with their defaults", async () => {
  const text = await Deno.readTextFile(README);
  const rows = new Map<string, string>();
  for (const match of text.matchAll(/^\| `([A-Z][A-Z0-9_]+)` *\| ([^|]+?) *\|/gm)) {
    rows.set(match[1]!, match[2]!);
  }
  assert.deepEqual([...rows.keys()].sort(), CONFIG_VARIABLES.map(([name]) => name).sort());
  for (const [name, fallback] of CONFIG_VARIABLES) {
    const shown = rows.get(name)!.replaceAll("`", "");
    assert.ok(shown.startsWith(fallback), `${name}: README says ${shown}, code says ${fallback}`);
  }
});

Deno.test("the stream limits are read from the environment and checked", () => {
  const config = parseConfig({ SSE_MAX_STREAMS: "5000", SSE_MAX_STREAMS_PER_USER: "500" });
  assert.equal(config.sseMaxStreams, 5000);
  assert.equal(config.sseMaxStreamsPerUser, 500);
  const defaults = parseConfig({});
  assert.equal(defaults.sseMaxStreams, 1000);
  assert.equal(defaults.sseMaxStreamsPerUser, 10);
  assert.throws(
    () => parseConfig({ SSE_MAX_STREAMS: "0", SSE_MAX_STREAMS_PER_USER: "ten" }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.problems.length, 2);
      assert.match(error.problems[0]!, /SSE_MAX_STREAMS="0"/);
      assert.match(error.problems[1]!, /SSE_MAX_STREAMS_PER_USER="ten"/);
      return true;
    },
  );
});
