/** Page forms that cannot be read are a 400 that changes nothing; invalid UTF-8 is refused. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { api, signUp } from "../helpers/api.ts";

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
