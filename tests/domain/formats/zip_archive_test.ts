/** The zip writer and reader: round trips, Zip64 end records, and the inflate budget. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type InflateBudget, openArchive, zipStream } from "../../../domain/formats/zip_archive.ts";

async function written(
  produce: Parameters<typeof zipStream>[0],
): Promise<{ bytes: Uint8Array; error: unknown }> {
  let error: unknown = "not done";
  const body = zipStream(produce, (e) => error = e);
  const bytes = new Uint8Array(await new Response(body).arrayBuffer());
  return { bytes, error };
}

const budget = (total: number): InflateBudget => ({ remaining: total, total });

Deno.test("zipStream writes stored, deflated and text entries that read back byte for byte", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const random = crypto.getRandomValues(new Uint8Array(60_000));
    const text = "設計 ".repeat(10_000);
    const at = new Date("2026-11-22T08:30:00.000Z");
    const { bytes, error } = await written(async (sink) => {
      await sink.add("files/1/random.bin", new Blob([random]).stream(), {
        store: true,
        modified: at,
      });
      await sink.add("project.json", new Blob([text]).stream(), { store: false, modified: at });
      await sink.addText("notes/1-a.md", "# A\n", at);
    });
    assert.equal(error, null);
    await Deno.writeFile(join(dir, "a.zip"), bytes);
    const archive = await openArchive(join(dir, "a.zip"), 10_000_000);
    try {
      assert.deepEqual([...archive.entries.keys()], [
        "files/1/random.bin",
        "project.json",
        "notes/1-a.md",
      ]);
      const b = budget(10_000_000);
      for (
        const [name, expected] of [
          ["files/1/random.bin", random],
          ["project.json", new TextEncoder().encode(text)],
          ["notes/1-a.md", new TextEncoder().encode("# A\n")],
        ] as const
      ) {
        const out = join(dir, name.replaceAll("/", "_"));
        await archive.inflate(archive.entries.get(name)!, out, b);
        assert.deepEqual(await Deno.readFile(out), expected, name);
      }
      const inflated = random.byteLength + new TextEncoder().encode(text).byteLength + 4;
      assert.equal(b.remaining, 10_000_000 - inflated);
    } finally {
      await archive.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("zipStream writes Zip64 end records past 65,535 entries, and they read back", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const at = new Date("2026-11-22T08:30:00.000Z");
    const count = 70_000;
    const { bytes, error } = await written(async (sink) => {
      for (let i = 0; i < count; i++) await sink.addText(`notes/${i}.md`, `${i}`, at);
    });
    assert.equal(error, null);
    // The Zip64 end of central directory record and its locator are there.
    const tail = bytes.subarray(bytes.byteLength - 22 - 20 - 56);
    assert.equal(new DataView(tail.buffer, tail.byteOffset).getUint32(0, true), 0x06064b50);
    await Deno.writeFile(join(dir, "many.zip"), bytes);
    // Read back by another implementation: Python's zipfile (it tests every CRC too).
    const script = "import sys, zipfile\n" +
      "z = zipfile.ZipFile(sys.argv[1])\n" +
      "print(len(z.namelist()), z.testzip(), z.read(sys.argv[2]).decode())";
    const out = await new Deno.Command("/usr/bin/python3", {
      args: ["-c", script, join(dir, "many.zip"), `notes/${count - 1}.md`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    assert.equal(new TextDecoder().decode(out.stdout).trim(), `${count} None ${count - 1}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("zipStream errors the stream when producing fails, so a cut-off archive is never whole", async () => {
  let done: unknown = "not done";
  const body = zipStream(async (sink) => {
    await sink.addText("a.md", "a", new Date(0));
    throw new Error("the disk went away");
  }, (error) => done = error);
  await assert.rejects(new Response(body).arrayBuffer());
  assert.match(String(done), /the disk went away/);
});
