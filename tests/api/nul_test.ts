/**
 * U+0000 in any text (JSON bodies, keys too, query strings, page forms) is refused with a 400
 * naming where it is, and nothing is stored: the database would read the text back cut short.
 */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  api,
  createProject,
  expectError,
  expectJson,
  getJson,
  type Json,
  PASSWORD,
  signUp,
  team,
} from "../helpers/api.ts";

const NUL = "\u0000";

function refusedAt(res: Awaited<ReturnType<typeof api>>, path: string, what: string): void {
  const error = expectError(res, 400, "validation");
  assert.deepEqual(Object.keys(error.details), [path], `${what}: ${res.text}`);
  assert.match(error.details[path], /U\+0000/, what);
}

function userCount(t: TestApp): Promise<number> {
  return t.sql.count("users");
}

Deno.test("a JSON body with U+0000 in any string is 400 naming its path, and nothing is stored", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const p = `/api/projects/${project.id}`;
    const cases: Array<[string, string, Json, string]> = [
      ["POST", "/api/projects", { name: `Apollo${NUL}11` }, "name"],
      ["PATCH", p, { description: `a${NUL}` }, "description"],
      ["POST", `${p}/board/threads`, { title: "T", body: `x${NUL}y`, category: "idea" }, "body"],
      ["POST", `${p}/notes`, { title: "N", body: "b", tags: ["ok", `x${NUL}`] }, "tags.1"],
      ["POST", `${p}/chat/messages`, { text: `${NUL}` }, "text"],
      ["POST", `${p}/todos/items`, { title: "I", description: `d${NUL}` }, "description"],
      ["PATCH", "/api/users/me", { displayName: `Al${NUL}ice` }, "displayName"],
      ["POST", `${p}/notes`, { title: "N", body: "b", [`ta${NUL}gs`]: [] }, "ta\\u0000gs"],
      [
        "POST",
        `${p}/notes`,
        { title: "N", body: "b", deep: [{ a: [1, { b: NUL }] }] },
        "deep.0.a.1.b",
      ],
      ["POST", `${p}/chat/messages`, `${NUL}`, "body"],
    ];
    for (const [method, path, body, at] of cases) {
      const res = await api(t, method, path, { cookie: alice.cookie, body });
      refusedAt(res, at, `${method} ${path}`);
    }
    // The first offending string is named, in document order.
    const both = await api(t, "POST", `${p}/notes`, {
      cookie: alice.cookie,
      body: { title: `a${NUL}`, body: `b${NUL}` },
    });
    refusedAt(both, "title", "two NULs");

    assert.deepEqual((await getJson(t, alice.cookie, "/api/projects")).items.length, 1);
    assert.equal((await getJson(t, alice.cookie, p)).project.description, "");
    assert.equal((await getJson(t, alice.cookie, `${p}/board/threads`)).total, 0);
    assert.equal((await getJson(t, alice.cookie, `${p}/notes`)).total, 0);
    assert.deepEqual((await getJson(t, alice.cookie, `${p}/chat/messages`)).items, []);
    assert.deepEqual((await getJson(t, alice.cookie, `${p}/todos/items`)).items, []);
    assert.equal((await getJson(t, alice.cookie, "/api/auth/me")).user.displayName, "alice");
    // A NUL written out as text (a backslash and u0000) is ordinary text.
    const literal = await api(t, "POST", `${p}/chat/messages`, {
      cookie: alice.cookie,
      body: { text: "\\u0000 is how JSON spells NUL" },
    });
    assert.equal(expectJson(literal, 201).message.text, "\\u0000 is how JSON spells NUL");
  } finally {
    await t.close();
  }
});

Deno.test("register and login refuse U+0000 in email, password or display name, creating nothing", async () => {
  const t = await testApp();
  try {
    const fields = { email: "ann@example.com", password: PASSWORD, displayName: "Ann" };
    for (const field of Object.keys(fields)) {
      const body = { ...fields, [field]: `${fields[field as keyof typeof fields]}${NUL}` };
      refusedAt(await api(t, "POST", "/api/auth/register", { body }), field, `register ${field}`);
    }
    assert.equal(await userCount(t), 0);
    await signUp(t, "ann@example.com");
    const res = await api(t, "POST", "/api/auth/login", {
      body: { email: "ann@example.com", password: `${PASSWORD}${NUL}tail` },
    });
    refusedAt(res, "password", "login password");
    assert.equal(res.cookies.length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("every JSON text field the OpenAPI document describes refuses U+0000 before anything else", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "root@example.com");
    await createProject(t, cookie, "Apollo");
    const doc = expectJson(await api(t, "GET", "/api/openapi.json"), 200);
    const resolve = (s: Json): Json =>
      s?.$ref ? doc.components.schemas[s.$ref.split("/").pop()] : s;
    let tried = 0;
    for (const [template, operations] of Object.entries<Json>(doc.paths)) {
      const path = template.replace(/\{\w+\}/g, "1");
      for (const [method, operation] of Object.entries<Json>(operations)) {
        const schema = resolve(operation.requestBody?.content?.["application/json"]?.schema);
        for (const [field, property] of Object.entries<Json>(schema?.properties ?? {})) {
          const types = [property.type].flat();
          if (!types.includes("string")) continue;
          const res = await api(t, method.toUpperCase(), path, {
            cookie,
            body: { [field]: `x${NUL}` },
          });
          refusedAt(res, field, `${method} ${template} ${field}`);
          tried++;
        }
      }
    }
    assert.ok(tried >= 30, `only ${tried} text fields found`);
  } finally {
    await t.close();
  }
});

Deno.test("a query string with U+0000 (%00) in a value or a name is 400 naming the parameter", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const p = `/api/projects/${project.id}`;
    const cases: Array<[string, string]> = [
      [`${p}/search?q=kick%00off`, "q"],
      [`${p}/notes?tag=%00`, "tag"],
      [`${p}/board/threads?page=1&category=idea%00`, "category"],
      [`${p}/notes?ta%00g=x`, "ta\\u0000g"],
    ];
    for (const [path, name] of cases) {
      refusedAt(await api(t, "GET", path, { cookie: alice.cookie }), name, path);
    }
    // Also on writes, before the body is read.
    const res = await api(t, "POST", `${p}/notes?x=%00`, {
      cookie: alice.cookie,
      body: { title: "N", body: "b" },
    });
    refusedAt(res, "x", "POST with a NUL in its query");
    assert.equal((await getJson(t, alice.cookie, `${p}/notes`)).total, 0);
  } finally {
    await t.close();
  }
});

Deno.test("a JSON body nested a hundred thousand deep with a NUL is refused, not a crash", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ann@example.com");
    const depth = 100_000;
    const raw = `{"a":${"[".repeat(depth)}"\\u0000"${"]".repeat(depth)}}`;
    const res = await api(t, "POST", "/api/projects", {
      cookie,
      raw,
      headers: { "content-type": "application/json" },
    });
    const error = expectError(res, 400, "validation");
    assert.equal(Object.keys(error.details)[0], `a${".0".repeat(depth)}`);
  } finally {
    await t.close();
  }
});

Deno.test("page forms refuse U+0000 in a field (name or value) with 400 and store nothing", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const post = (path: string, body: string, cookie?: string) =>
      t.app.request(path, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          ...(cookie ? { cookie } : {}),
        },
        body,
      });
    const cases: Array<[string, string, string | undefined]> = [
      ["/register", `displayName=Ann&email=ann%40example.com&password=${PASSWORD}%00`, undefined],
      ["/login", `email=alice%40example.com&password=x%00`, undefined],
      ["/projects", "name=Apollo%0011&description=", alice.cookie],
      [`/projects/${project.id}/board`, "title=T&body=a%00b&category=idea", alice.cookie],
      [`/projects/${project.id}/notes`, "title=N&body=b&ti%00=x", alice.cookie],
      ["/settings", "displayName=Al%00ice&theme=dark&locale=en", alice.cookie],
    ];
    for (const [path, body, cookie] of cases) {
      const res = await post(path, body, cookie);
      assert.equal(res.status, 400, `${path}: ${res.status}`);
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
      assert.equal(res.headers.getSetCookie().some((c) => c.startsWith("session=")), false);
      await res.body?.cancel();
    }
    assert.deepEqual(t.logs.filter((line) => line.startsWith("error")), []);
    assert.equal(await userCount(t), 6, "no account was registered");
    const p = `/api/projects/${project.id}`;
    assert.equal((await getJson(t, alice.cookie, "/api/projects")).items.length, 1);
    assert.equal((await getJson(t, alice.cookie, `${p}/board/threads`)).total, 0);
    assert.equal((await getJson(t, alice.cookie, `${p}/notes`)).total, 0);
    assert.equal((await getJson(t, alice.cookie, "/api/auth/me")).user.displayName, "alice");
  } finally {
    await t.close();
  }
});
