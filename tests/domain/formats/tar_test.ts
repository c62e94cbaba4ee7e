/** The backups' tar format: what it writes, what it reads back, and what it refuses. */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  endOfArchive,
  entryHeader,
  padding,
  readTar,
  TarError,
} from "../../../domain/formats/tar.ts";

function archive(entries: Array<[string, Uint8Array]>, end = true): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [name, bytes] of entries) {
    parts.push(entryHeader({ name, size: bytes.length, mtime: 1_700_000_000, mode: 0o600 }));
    parts.push(bytes, padding(bytes.length));
  }
  if (end) parts.push(endOfArchive());
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** `bytes` as a stream of pieces of `size` bytes (entries straddle the pieces). */
async function* pieces(bytes: Uint8Array, size = 700): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}

async function readAll(bytes: Uint8Array): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for await (const entry of readTar(pieces(bytes))) {
    const parts: Uint8Array[] = [];
    for await (const piece of entry.body) parts.push(piece);
    out.push([
      entry.name,
      new TextDecoder().decode(
        new Uint8Array(await new Blob(parts as Uint8Array<ArrayBuffer>[]).arrayBuffer()),
      ),
    ]);
  }
  return out;
}

const LONG_NAME = `files/7/${"長い名前".repeat(10)}.txt`;
const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("entries written are read back, long and non-ASCII names through a pax header", async () => {
  const entries: Array<[string, string]> = [
    ["collab.db", "x".repeat(1500)],
    ["files/1/empty.txt", ""],
    [LONG_NAME, "日本語の本文"],
    ["manifest.json", "{}"],
  ];
  const bytes = archive(entries.map(([n, b]) => [n, enc(b)]));
  assert.equal(bytes.length % 512, 0);
  assert.deepEqual(await readAll(bytes), entries);
});

Deno.test("an entry left unread is skipped", async () => {
  const bytes = archive([["a", enc("a".repeat(2000))], ["b", enc("bee")]]);
  const names: string[] = [];
  let last = "";
  for await (const entry of readTar(pieces(bytes))) {
    names.push(entry.name);
    if (entry.name === "b") {
      for await (const piece of entry.body) last += new TextDecoder().decode(piece);
    }
  }
  assert.deepEqual(names, ["a", "b"]);
  assert.equal(last, "bee");
});

Deno.test("the system's tar reads what is written, long names included", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tar-test-" });
  try {
    await Deno.writeFile(
      join(dir, "a.tar"),
      archive([["collab.db", enc("database")], [LONG_NAME, enc("long")]]),
    );
    const out = await new Deno.Command("tar", { args: ["-xf", "a.tar"], cwd: dir }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(await Deno.readTextFile(join(dir, "collab.db")), "database");
    assert.equal(await Deno.readTextFile(join(dir, LONG_NAME)), "long");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a size beyond ustar's 8 GiB goes in a pax header", async () => {
  const size = 9 * 1024 ** 3;
  const header = entryHeader({ name: "collab.db", size, mtime: 0, mode: 0o600 });
  for await (const entry of readTar(pieces(header))) {
    assert.equal(entry.size, size);
    return;
  }
  assert.fail("no entry");
});

Deno.test("a damaged header, a cut archive, data after the end and links are refused", async () => {
  const good = archive([["a", enc("hello")]]);
  const damaged = good.slice();
  damaged[10]! ^= 0x01; // in the name: the header's checksum no longer matches
  const trailing = new Uint8Array(good.length + 512);
  trailing.set(good);
  trailing[good.length + 5] = 1;
  const link = archive([["files/link", new Uint8Array(0)]]);
  link[156] = "2".charCodeAt(0);
  // The checksum is recomputed, so only the type is wrong.
  link.fill(0x20, 148, 156);
  const sum = link.subarray(0, 512).reduce((a, b) => a + b, 0);
  link.set(enc(sum.toString(8).padStart(6, "0") + "\0 "), 148);
  const cases: Array<[Uint8Array, RegExp]> = [
    [damaged, /header is damaged/],
    [good.subarray(0, 600), /cut short/],
    [archive([["a", enc("hello")]], false), /cut short/],
    [trailing, /data follows the end/],
    [link, /files\/link is a symbolic link/],
  ];
  for (const [bytes, message] of cases) {
    await assert.rejects(() => readAll(bytes), (error: unknown) => {
      assert.ok(error instanceof TarError);
      assert.match(error.message, message);
      return true;
    });
  }
});
