/** Page forms that cannot be read are a 400 that changes nothing; invalid UTF-8 is refused. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { api, PNG_BYTES, signUp } from "../helpers/api.ts";

Deno.test("a malformed multipart body on a page form is 400, logs no error and changes nothing", async () => {
  const t = await testApp();
  try {
    const ann = await signUp(t, "ann@example.com");
    const cases: Array<[string, string, string | undefined]> = [
      ["/login", "multipart/form-data", undefined],
      ["/register", "multipart/form-data; boundary=x", undefined],
      ["/projects", "multipart/form-data; boundary=x", ann.cookie],
    ];
    for (const [path, type, cookie] of cases) {
      const res = await api(t, "POST", path, {
        raw: "garbage",
        headers: { "content-type": type },
        ...(cookie ? { cookie } : {}),
      });
      assert.equal(res.status, 400, `${path}: ${res.text}`);
      assert.match(res.type, /^text\/html/);
    }
    assert.deepEqual(t.logs.filter((line) => line.startsWith("error")), []);
    const projects = await api(t, "GET", "/api/projects", { cookie: ann.cookie });
    assert.deepEqual(projects.json.items, []);
  } finally {
    await t.close();
  }
});

Deno.test("a urlencoded page form with invalid UTF-8 (percent-encoded or raw) is 400, never stored replaced", async () => {
  const t = await testApp();
  try {
    const ann = await signUp(t, "ann@example.com");
    const bodies: BodyInit[] = [
      "name=Caf%E9",
      "name=%FF%FE",
      Uint8Array.from([...new TextEncoder().encode("name=Caf"), 0xe9]),
    ];
    for (const raw of bodies) {
      const res = await api(t, "POST", "/projects", {
        cookie: ann.cookie,
        raw,
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      assert.equal(res.status, 400, res.text);
    }
    assert.deepEqual((await api(t, "GET", "/api/projects", { cookie: ann.cookie })).json.items, []);

    // Real UTF-8, percent-encoded or raw, and + for spaces, are read as before.
    const res = await api(t, "POST", "/projects", {
      cookie: ann.cookie,
      raw: `name=${encodeURIComponent("議事録")}+2026&description=caf%C3%A9+%2B+tea`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(res.status, 303, res.text);
    const [project] = (await api(t, "GET", "/api/projects", { cookie: ann.cookie })).json.items;
    assert.equal(project.name, "議事録 2026");
    assert.equal(project.description, "café + tea");
  } finally {
    await t.close();
  }
});

Deno.test("a lone % stands for itself, encoded UTF-8 of any length is read, and any field name works", async () => {
  const t = await testApp();
  try {
    const ann = await signUp(t, "ann@example.com");
    const res = await api(t, "POST", "/projects", {
      cookie: ann.cookie,
      raw: `constructor=x&name=100%25+sure+%&description=${
        encodeURIComponent("🚀 ½ 議事録 %zz")
      }%zz`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(res.status, 303, res.text);
    const [project] = (await api(t, "GET", "/api/projects", { cookie: ann.cookie })).json.items;
    assert.equal(project.name, "100% sure %");
    assert.equal(project.description, "🚀 ½ 議事録 %zz%zz");
    // Overlong and surrogate encodings are not UTF-8 either.
    for (const bad of ["name=%C0%AF", "name=%ED%A0%80"]) {
      const refused = await api(t, "POST", "/projects", {
        cookie: ann.cookie,
        raw: bad,
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      assert.equal(refused.status, 400, bad);
    }
  } finally {
    await t.close();
  }
});

/** A multipart body by hand, so a text part can carry any bytes. */
function multipart(
  boundary: string,
  parts: Array<[string, Uint8Array, string?]>,
): Uint8Array<ArrayBuffer> {
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  for (const [name, bytes, filename] of parts) {
    const disposition = filename === undefined
      ? `form-data; name="${name}"`
      : `form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream`;
    chunks.push(enc.encode(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    chunks.push(bytes, enc.encode("\r\n"));
  }
  chunks.push(enc.encode(`--${boundary}--\r\n`));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) out.set(c, (at += c.length) - c.length);
  return out;
}

Deno.test("a multipart page form with a text field that is not UTF-8 is 400; files may hold any bytes", async () => {
  const t = await testApp();
  try {
    const ann = await signUp(t, "ann@example.com");
    const project = (await api(t, "POST", "/api/projects", {
      cookie: ann.cookie,
      body: { name: "Chat" },
    })).json.project;
    const enc = new TextEncoder();
    const post = (parts: Array<[string, Uint8Array, string?]>) =>
      api(t, "POST", `/projects/${project.id}/chat`, {
        cookie: ann.cookie,
        raw: multipart("b0undary", parts),
        headers: { "content-type": "multipart/form-data; boundary=b0undary" },
      });
    const bad = await post([["text", Uint8Array.from([0x43, 0x61, 0x66, 0xe9])]]);
    assert.equal(bad.status, 400, bad.text);
    const none = await api(t, "GET", `/api/projects/${project.id}/chat/messages`, {
      cookie: ann.cookie,
    });
    assert.deepEqual(none.json.items, []);

    // UTF-8 text with a binary file (a PNG is not UTF-8) goes through.
    const ok = await post([
      ["text", enc.encode("議事録です")],
      ["file", PNG_BYTES, "logo.png"],
    ]);
    assert.equal(ok.status, 303, ok.text);
    const sent = await api(t, "GET", `/api/projects/${project.id}/chat/messages`, {
      cookie: ann.cookie,
    });
    assert.equal(sent.json.items[0].text, "議事録です");
  } finally {
    await t.close();
  }
});

Deno.test("a multipart page form with U+0000 in a text field is 400 naming the field; nothing changes", async () => {
  const t = await testApp();
  try {
    const ann = await signUp(t, "ann@example.com");
    const project = (await api(t, "POST", "/api/projects", {
      cookie: ann.cookie,
      body: { name: "Chat" },
    })).json.project;
    const enc = new TextEncoder();
    const cases: Array<[string, Array<[string, Uint8Array, string?]>, string]> = [
      // An upload form (read as it arrives) and an ordinary one.
      [`/projects/${project.id}/chat`, [["text", enc.encode("hi\u0000there")]], "text"],
      [
        `/projects/${project.id}/chat`,
        [["text", enc.encode("fine")], ["file", PNG_BYTES, "logo.png"], [
          "note",
          enc.encode("\u0000"),
        ]],
        "note",
      ],
      ["/projects", [["name", enc.encode("Evil\u0000Corp")]], "name"],
    ];
    for (const [path, parts, field] of cases) {
      const res = await api(t, "POST", path, {
        cookie: ann.cookie,
        raw: multipart("b0undary", parts),
        headers: { "content-type": "multipart/form-data; boundary=b0undary" },
      });
      assert.equal(res.status, 400, `${path}: ${res.text}`);
      assert.match(res.text, new RegExp(`The field <code>${field}</code>`));
    }
    const messages = await api(t, "GET", `/api/projects/${project.id}/chat/messages`, {
      cookie: ann.cookie,
    });
    assert.deepEqual(messages.json.items, []);
    const projects = await api(t, "GET", "/api/projects", { cookie: ann.cookie });
    assert.equal(projects.json.items.length, 1);
    const files = await api(t, "GET", `/api/projects/${project.id}/files`, { cookie: ann.cookie });
    assert.equal(files.json.total, 0);
    const left = await Array.fromAsync(Deno.readDir(`${t.dataDir}/files/tmp`)).catch(() => []);
    assert.deepEqual(left, [], "no temporary file is left");
    assert.deepEqual(t.logs.filter((line) => line.startsWith("error")), []);
  } finally {
    await t.close();
  }
});

Deno.test("the 400 page escapes the name of the field it names", async () => {
  const t = await testApp();
  try {
    const ann = await signUp(t, "ann@example.com");
    const res = await api(t, "POST", "/projects", {
      cookie: ann.cookie,
      raw: multipart("b0undary", [["<b>x</b>", Uint8Array.from([0xff])]]),
      headers: { "content-type": "multipart/form-data; boundary=b0undary" },
    });
    assert.equal(res.status, 400);
    assert.match(res.text, /<code>&lt;b&gt;x&lt;\/b&gt;<\/code>/);
  } finally {
    await t.close();
  }
});
