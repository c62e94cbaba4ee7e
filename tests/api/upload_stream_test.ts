/**
 * Multipart uploads read as they arrive: stored byte for byte however the body is cut up,
 * malformed bodies answered in our own words, temporary files never left behind, and the
 * OpenAPI document still describing the multipart bodies.
 */
import assert from "node:assert/strict";
import { type TestApp, testApp, testServer } from "../helpers/app.ts";
import {
  api,
  createThread,
  download,
  expectError,
  getJson,
  type Json,
  storedFiles,
  team,
} from "../helpers/api.ts";

const encoder = new TextEncoder();

/** A multipart body of text fields and files. */
function multipart(
  boundary: string,
  parts: Array<{ name: string; bytes: Uint8Array; filename?: string }>,
): Uint8Array<ArrayBuffer> {
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    const disposition = part.filename === undefined
      ? `form-data; name="${part.name}"`
      : `form-data; name="${part.name}"; filename="${part.filename}"\r\n` +
        "Content-Type: application/octet-stream";
    chunks.push(encoder.encode(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    chunks.push(part.bytes, encoder.encode("\r\n"));
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * Bytes that try the parser: random, and full of beginnings of the delimiter (`\r\n--` and
 * part of the boundary), each broken off before it is complete.
 */
function awkwardBytes(size: number, boundary: string, random: () => number): Uint8Array {
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  const out = new Uint8Array(size);
  let i = 0;
  while (i < size) {
    if (random() < 0.02) {
      const length = 1 + Math.floor(random() * (delimiter.length - 1));
      for (let j = 0; j < length && i < size; j++) out[i++] = delimiter[j]!;
      if (i < size) out[i++] = 0; // never the next byte of the delimiter
    } else {
      out[i++] = Math.floor(random() * 256);
    }
  }
  return out;
}

/** A small seeded generator, so a failure can be repeated. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Sends a raw HTTP/1.1 request in writes of random sizes; returns the status and body. */
async function sendRaw(
  baseUrl: string,
  head: string,
  body: Uint8Array,
  options: { chunked: boolean; random: () => number },
): Promise<{ status: number; text: string }> {
  const url = new URL(baseUrl);
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  try {
    const framing = options.chunked
      ? "Transfer-Encoding: chunked\r\n"
      : `Content-Length: ${body.length}\r\n`;
    const writeAll = async (bytes: Uint8Array) => {
      let written = 0;
      while (written < bytes.length) written += await conn.write(bytes.subarray(written));
    };
    await writeAll(encoder.encode(`${head}${framing}Connection: close\r\n\r\n`));
    let at = 0;
    while (at < body.length) {
      const size = 1 + Math.floor(options.random() * 70_000);
      const piece = body.subarray(at, at + size);
      at += piece.length;
      if (options.chunked) {
        await writeAll(encoder.encode(`${piece.length.toString(16)}\r\n`));
        await writeAll(piece);
        await writeAll(encoder.encode("\r\n"));
      } else {
        await writeAll(piece);
      }
    }
    if (options.chunked) await writeAll(encoder.encode("0\r\n\r\n"));
    const answer: Uint8Array[] = [];
    const buffer = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      answer.push(buffer.slice(0, n));
    }
    const text = new TextDecoder().decode(
      answer.reduce((all, c) => {
        const joined = new Uint8Array(all.length + c.length);
        joined.set(all);
        joined.set(c, all.length);
        return joined;
      }, new Uint8Array()),
    );
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
    return { status, text: text.slice(text.indexOf("\r\n\r\n") + 4) };
  } finally {
    conn.close();
  }
}

Deno.test("Uploads through a real server are stored byte for byte, however the body is cut up", async () => {
  const t = await testServer();
  try {
    const { alice, project } = await team(t);
    const host = new URL(t.baseUrl).host;
    for (const chunked of [false, true]) {
      for (let round = 0; round < 3; round++) {
        const random = seeded(round * 7 + (chunked ? 1 : 0));
        const boundary = `----bench${round}${chunked ? "c" : "l"}Boundary7MA4YWxkTrZu0gW`;
        // A .zip only needs its signature: the rest may be any bytes.
        const bytes = awkwardBytes(1_500_000 + Math.floor(random() * 900_000), boundary, random);
        bytes.set([0x50, 0x4b, 0x03, 0x04]);
        const head = `POST /api/projects/${project.id}/files HTTP/1.1\r\nHost: ${host}\r\n` +
          `Cookie: ${alice.cookie}\r\n` +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\n`;
        const body = multipart(boundary, [{ name: "file", filename: "data.zip", bytes }]);
        const res = await sendRaw(t.baseUrl, head, body, { chunked, random });
        assert.equal(res.status, 201, res.text);
        const file = JSON.parse(res.text).file;
        assert.equal(file.size, bytes.length);
        const got = await download(t, alice.cookie, file.id);
        assert.equal(got.status, 200);
        assert.ok(
          got.bytes.length === bytes.length && got.bytes.every((b, i) => b === bytes[i]),
          `round ${round} (${chunked ? "chunked" : "Content-Length"}): stored bytes differ`,
        );
      }
    }
    // A page form: text before and after the file, all of it read.
    const random = seeded(99);
    const boundary = "pageFormBoundary0123456789";
    const bytes = awkwardBytes(700_000, boundary, random);
    bytes.set([0x50, 0x4b, 0x05, 0x06]);
    const text = "議事録 — the notes\r\n--not a boundary";
    const head = `POST /projects/${project.id}/chat HTTP/1.1\r\nHost: ${host}\r\n` +
      `Cookie: ${alice.cookie}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n`;
    const body = multipart(boundary, [
      { name: "text", bytes: encoder.encode(text) },
      { name: "file", filename: "notes.zip", bytes },
      { name: "after", bytes: encoder.encode("ignored") },
    ]);
    const res = await sendRaw(t.baseUrl, head, body, { chunked: false, random });
    assert.equal(res.status, 303, res.text);
    const [message] = (await getJson(t, alice.cookie, `/api/projects/${project.id}/chat/messages`))
      .items;
    assert.equal(message.text, text);
    const got = await download(t, alice.cookie, message.attachments[0].id);
    assert.ok(got.bytes.every((b, i) => b === bytes[i]) && got.bytes.length === bytes.length);
    // Nothing is left in the temporary folder.
    assert.ok((await storedFiles(t)).every((path) => !path.startsWith("tmp/")));
  } finally {
    await t.close();
  }
});

/** POSTs `raw` as multipart with `boundary` to `path`. */
function postRaw(t: TestApp, cookie: string, path: string, raw: BodyInit, type: string) {
  return api(t, "POST", path, { cookie, raw, headers: { "content-type": type } });
}

Deno.test("A malformed multipart upload is 400 naming `body`, in our own words; nothing is kept", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const thread = await createThread(t, alice.cookie, project.id);
    const paths = [
      `/api/projects/${project.id}/files`,
      `/api/projects/${project.id}/board/threads/${thread.id}/attachments`,
    ];
    const cut = multipart("b0und", [{
      name: "file",
      filename: "a.txt",
      bytes: encoder.encode("x"),
    }])
      .slice(0, 70);
    const cases: Array<[BodyInit, string]> = [
      ["garbage", "multipart/form-data; boundary=b0und"],
      ["", "multipart/form-data; boundary=b0und"],
      ["--b0und\r\nContent-Disposition: form-data", "multipart/form-data; boundary=b0und"],
      [cut, "multipart/form-data; boundary=b0und"],
      ["--x\r\n\r\n--x--", "multipart/form-data"],
    ];
    for (const path of paths) {
      for (const [raw, type] of cases) {
        const res = await postRaw(t, alice.cookie, path, raw, type);
        const error = expectError(res, 400, "validation");
        assert.equal(error.message, "Cannot read the upload: the multipart body is malformed");
        assert.deepEqual(Object.keys(error.details), ["body"]);
      }
    }
    assert.deepEqual(await storedFiles(t), []);
    assert.deepEqual(t.logs.filter((line) => line.startsWith("error")), []);
  } finally {
    await t.close();
  }
});

Deno.test("An upload without a `file` part is 400 naming `file`; its other files are not kept", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const body = multipart("b0und", [
      { name: "note", bytes: encoder.encode("hello") },
      { name: "upload", filename: "a.txt", bytes: encoder.encode("a file in the wrong field") },
      { name: "file", filename: "", bytes: new Uint8Array() },
    ]);
    const res = await postRaw(
      t,
      alice.cookie,
      `/api/projects/${project.id}/files`,
      body,
      "multipart/form-data; boundary=b0und",
    );
    const error = expectError(res, 400, "validation");
    assert.deepEqual(Object.keys(error.details), ["file"]);
    assert.deepEqual(await storedFiles(t), []);
  } finally {
    await t.close();
  }
});

Deno.test("A refused upload (type, permission, missing project) leaves no temporary file", async () => {
  const t = await testApp();
  try {
    const { alice, viewer, project } = await team(t);
    const post = (cookie: string, path: string, name: string, bytes: Uint8Array) =>
      postRaw(
        t,
        cookie,
        path,
        multipart("b0und", [{ name: "file", filename: name, bytes }]),
        "multipart/form-data; boundary=b0und",
      );
    const files = `/api/projects/${project.id}/files`;
    expectError(
      await post(alice.cookie, files, "tool.exe", new Uint8Array(5000)),
      415,
      "unsupported_media_type",
    );
    expectError(await post(viewer.cookie, files, "a.txt", encoder.encode("a")), 403, "forbidden");
    expectError(
      await post(alice.cookie, "/api/projects/9999/files", "a.txt", encoder.encode("a")),
      404,
      "not_found",
    );
    assert.deepEqual(await storedFiles(t), []);
  } finally {
    await t.close();
  }
});

Deno.test("The OpenAPI document still describes the multipart bodies of the upload routes", async () => {
  const t = await testApp();
  try {
    const { alice } = await team(t);
    const doc = await getJson(t, alice.cookie, "/api/openapi.json");
    const resolve = (schema: Json) =>
      schema.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema;
    for (
      const path of [
        "/api/projects/{projectId}/files",
        "/api/projects/{projectId}/board/threads/{threadId}/attachments",
      ]
    ) {
      const content = doc.paths[path].post.requestBody.content;
      const schema = resolve(content["multipart/form-data"].schema);
      assert.equal(schema.type, "object", path);
      assert.deepEqual(schema.required, ["file"], path);
      assert.equal(schema.properties.file.format, "binary", path);
    }
  } finally {
    await t.close();
  }
});
