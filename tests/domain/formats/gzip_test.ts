/** The backups' gzip writer: deflated and stored pieces in one stream any gzip reader reads. */
import assert from "node:assert/strict";
import { GzipWriter } from "../../../domain/formats/gzip.ts";

function random(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i += 65536) {
    crypto.getRandomValues(bytes.subarray(i, Math.min(size, i + 65536)));
  }
  return bytes;
}

function join(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** A stream of deflated text, stored random bytes, random bytes offered for deflating, text. */
function sample(): { gz: Uint8Array; plain: Uint8Array; shrank: boolean[] } {
  const text = new TextEncoder().encode("minutes of the weekly meeting\n".repeat(5000));
  const noise = random(200_000);
  const more = random(70_000);
  const w = new GzipWriter();
  const parts = [w.start()];
  const shrank: boolean[] = [];
  for (
    const [piece, how] of [[text, "deflate"], [noise, "store"], [more, "deflate"], [
      text,
      "deflate",
    ]] as const
  ) {
    if (how === "store") parts.push(...w.store(piece));
    else {
      const r = w.compress(piece);
      parts.push(...r.bytes);
      shrank.push(r.shrank);
    }
  }
  parts.push(w.finish());
  return { gz: join(parts), plain: join([text, noise, more, text]), shrank };
}

Deno.test("deflated and stored pieces make one gzip stream that DecompressionStream reads", async () => {
  const { gz, plain, shrank } = sample();
  assert.deepEqual(shrank, [true, false, true]);
  // Random bytes offered for deflating were stored, so the stream is barely larger than them.
  assert.ok(gz.length < 270_000 + 10_000, `${gz.length} bytes`);
  const stream = new Blob([gz as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new DecompressionStream("gzip"),
  );
  assert.deepEqual(new Uint8Array(await new Response(stream).arrayBuffer()), plain);
});

Deno.test("the system's gzip reads the stream and finds its CRC and size right", async () => {
  const { gz, plain } = sample();
  const child = new Deno.Command("gzip", { args: ["-dc"], stdin: "piped", stdout: "piped" })
    .spawn();
  const writer = child.stdin.getWriter();
  await writer.write(gz);
  await writer.close();
  const out = await child.output();
  assert.equal(out.code, 0);
  assert.deepEqual(out.stdout, plain);
});
