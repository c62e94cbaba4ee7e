/** The pacing of young collections while an export streams file pieces. */
import assert from "node:assert/strict";
import { garbagePacer } from "../../../domain/kernel/garbage.ts";
import { FILE_PIECE_BYTES, fileChunks } from "../../../domain/archives/project_export.ts";

Deno.test("garbagePacer collects once per `everyBytes` handed on, counting across calls", () => {
  let collections = 0;
  const sent = garbagePacer(100, () => collections++);
  sent(40);
  sent(40);
  assert.equal(collections, 0);
  sent(40); // 120
  assert.equal(collections, 1);
  sent(99);
  assert.equal(collections, 1, "the count starts again after a collection");
  sent(1);
  assert.equal(collections, 2);
  sent(1_000);
  assert.equal(collections, 3, "one collection however far past the mark");
});

Deno.test("fileChunks reads a file in pieces of its size, the bytes unchanged, each piece counted", async () => {
  const path = await Deno.makeTempFile();
  try {
    const bytes = new Uint8Array(2 * FILE_PIECE_BYTES + 123);
    for (let i = 0; i < bytes.length; i += 65_536) {
      crypto.getRandomValues(bytes.subarray(i, i + 65_536));
    }
    await Deno.writeFile(path, bytes);
    const counted: number[] = [];
    const file = await Deno.open(path);
    const pieces: Uint8Array[] = [];
    try {
      for await (const piece of fileChunks(file, (n) => counted.push(n))) pieces.push(piece);
    } finally {
      file.close();
    }
    assert.deepEqual(pieces.map((p) => p.byteLength), [FILE_PIECE_BYTES, FILE_PIECE_BYTES, 123]);
    assert.deepEqual(counted, [FILE_PIECE_BYTES, FILE_PIECE_BYTES, 123]);
    assert.equal(new Set(pieces.map((p) => p.buffer)).size, 3, "each piece a buffer of its own");
    const joined = new Uint8Array(bytes.length);
    let at = 0;
    for (const p of pieces) {
      joined.set(p, at);
      at += p.byteLength;
    }
    assert.deepEqual(joined, bytes);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("the start and compile tasks run V8 with --expose-gc, so the export's collections happen", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../../../deno.json", import.meta.url)),
  ) as { tasks: Record<string, string> };
  for (const task of ["start", "compile"]) {
    const flags = config.tasks[task]!.match(/--v8-flags=(\S+)/)?.[1]?.split(",") ?? [];
    assert.ok(flags.includes("--expose-gc"), `${task}: ${config.tasks[task]}`);
  }
});
