/**
 * The OpenAPI document says what the server does: stable operation ids, both security
 * schemes applied per operation, its own address as the server, exact types, every error
 * status with its code, and real media types. The response checker that every test app runs
 * (tests/helpers/openapi_validator.ts) is shown here to catch a response that disagrees.
 */
import assert from "node:assert/strict";
import { type App } from "../../routes/app.ts";
import { checkedApp, testApp } from "../helpers/app.ts";
import { api, expectJson, type Json, register } from "../helpers/api.ts";
import { OpenApiValidator } from "../helpers/openapi_validator.ts";

const METHODS = ["get", "put", "post", "delete", "patch"];

/** Every operation of the document with its method and path. */
function operations(document: Json): Array<{ method: string; path: string; op: Json }> {
  const found = [];
  for (const [path, item] of Object.entries<Json>(document.paths)) {
    for (const method of METHODS) {
      if (item[method]) found.push({ method, path, op: item[method] });
    }
  }
  return found;
}

/** The document as a test app serves it. */
async function documentOf(env: Record<string, string> = {}, url = "/api/openapi.json") {
  const t = await testApp({ env });
  try {
    return expectJson(await api(t, "GET", url), 200);
  } finally {
    await t.close();
  }
}

/** Every schema object in `node`, with the property name it is the value of. */
function* schemas(node: Json, name = ""): Generator<[string, Json]> {
  if (Array.isArray(node)) {
    for (const child of node) yield* schemas(child, name);
    return;
  }
  if (node === null || typeof node !== "object") return;
  yield [name, node];
  for (const [key, value] of Object.entries<Json>(node)) {
    if (key === "properties") {
      for (const [prop, schema] of Object.entries<Json>(value)) yield* schemas(schema, prop);
    } else if (key !== "example" && key !== "examples") {
      yield* schemas(value, key === "items" || key === "anyOf" ? name : "");
    }
  }
}

Deno.test("Every operation has a unique, readable operationId", async () => {
  const document = await documentOf();
  const ids = operations(document).map(({ op }) => op.operationId);
  assert.ok(ids.length >= 100, `only ${ids.length} operations`);
  for (const id of ids) assert.match(id ?? "", /^[a-z][A-Za-z]+$/);
  assert.equal(new Set(ids).size, ids.length, "operationIds are unique");
  const byPath = (method: string, path: string) => document.paths[path][method].operationId;
  assert.equal(byPath("get", "/api/projects/{projectId}/board/threads"), "listThreads");
  assert.equal(byPath("post", "/api/projects/{projectId}/board/threads"), "createThread");
  assert.equal(byPath("post", "/api/auth/login"), "login");
});

Deno.test("The document declares the cookie and bearer schemes and applies them per operation", async () => {
  const document = await documentOf();
  const schemes = document.components.securitySchemes;
  assert.deepEqual(
    { type: schemes.session.type, in: schemes.session.in, name: schemes.session.name },
    { type: "apiKey", in: "cookie", name: "session" },
  );
  assert.deepEqual({ type: schemes.bearer.type, scheme: schemes.bearer.scheme }, {
    type: "http",
    scheme: "bearer",
  });
  const security = (method: string, path: string) => document.paths[path][method].security;
  for (const path of ["/api/auth/register", "/api/auth/login", "/api/openapi.json"]) {
    assert.deepEqual(security(path === "/api/openapi.json" ? "get" : "post", path), [], path);
  }
  assert.deepEqual(security("get", "/ics/{token}/all.ics"), []);
  assert.deepEqual(security("post", "/unsubscribe/{token}"), []);
  assert.deepEqual(security("get", "/api/projects"), [{ session: [] }, { bearer: [] }]);
  assert.deepEqual(security("post", "/api/tokens"), [{ session: [] }]);
  for (const { path, op } of operations(document)) {
    assert.ok(Array.isArray(op.security), `${path} states its security`);
  }
});

Deno.test("servers is BASE_URL when set, else the request's origin; info has a license", async () => {
  const configured = await documentOf({ BASE_URL: "https://collab.example.org/" });
  assert.deepEqual(configured.servers.map((s: Json) => s.url), ["https://collab.example.org"]);
  const fromRequest = await documentOf({}, "http://10.0.0.7:8123/api/openapi.json");
  assert.deepEqual(fromRequest.servers.map((s: Json) => s.url), ["http://10.0.0.7:8123"]);
  assert.equal(typeof configured.info.license.name, "string");
  assert.ok(configured.info.license.identifier || configured.info.license.url);
});

Deno.test("Timestamps are date-time, dates are date, ids start at 1, and only nextMeeting may be a null meeting", async () => {
  const document = await documentOf();
  // Answers: the response schemas, inline or named (inputs may take other spellings).
  const answers = [
    ...Object.entries<Json>(document.components.schemas)
      .filter(([name]) => !/(Input|Patch)$/.test(name)).map(([, schema]) => schema),
    ...operations(document).map(({ op }) =>
      Object.entries<Json>(op.responses).filter(([status]) => status < "300").map(([, r]) => r)
    ),
  ];
  let timestamps = 0;
  for (const [name, schema] of schemas(answers)) {
    if (/At$/.test(name) && [schema.type].flat().includes("string")) {
      timestamps++;
      assert.equal(schema.format, "date-time", `${name}: ${JSON.stringify(schema)}`);
    }
  }
  for (const [name, schema] of schemas(document)) {
    const types = [schema.type].flat();
    if (/^(startDate|dueDate)$/.test(name)) assert.equal(schema.format, "date", name);
    if (/^(id|\w+Id)$/.test(name) && types.includes("integer")) {
      assert.equal(schema.minimum, 1, `${name}: ${JSON.stringify(schema)}`);
    }
  }
  assert.ok(timestamps > 30, `${timestamps} timestamps seen`);
  for (const [name, schema] of Object.entries<Json>(document.components.schemas)) {
    assert.ok(![schema.type].flat().includes("null"), `${name} is not nullable as a whole`);
  }
  assert.deepEqual(document.components.schemas.ProjectDashboard.properties.nextMeeting.anyOf, [
    { $ref: "#/components/schemas/Meeting" },
    { type: "null" },
  ]);
  // A project's description is a string in answers; null is accepted as input (meaning "").
  assert.deepEqual(document.components.schemas.Project.properties.description.type, "string");
  assert.deepEqual(document.components.schemas.ProjectInput.properties.description.type, [
    "string",
    "null",
  ]);
});

Deno.test("Query parameters the server requires are required in the document", async () => {
  const document = await documentOf();
  const required = (path: string) =>
    document.paths[path].get.parameters.filter((p: Json) => p.in === "query" && p.required)
      .map((p: Json) => p.name).sort();
  assert.deepEqual(required("/api/projects/{projectId}/calendar"), ["from", "to"]);
  assert.deepEqual(required("/api/projects/{projectId}/meetings/check"), ["endAt", "startAt"]);
});

/** The codes besides each status's own that some routes answer (routes/api/errors.ts). */
const OWN_CODES: Record<string, string[]> = {
  403: ["registration_closed", "registration_domain", "local_login_off"],
  409: ["already_member", "account_exists", "mail_off", "last_sign_in"],
};

Deno.test("Every error response names its code, and 401 and 429 their headers", async () => {
  const document = await documentOf();
  const codes: Record<string, string> = {
    400: "validation",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    500: "internal",
    503: "unavailable",
    507: "insufficient_storage",
  };
  for (const { method, path, op } of operations(document)) {
    if (!path.startsWith("/api/")) continue;
    for (const status of ["400", "401", "500"]) {
      assert.ok(op.responses[status], `${method} ${path} lists ${status}`);
    }
    if (method !== "get") assert.ok(op.responses["403"], `${method} ${path}: CSRF is 403`);
    for (const [status, response] of Object.entries<Json>(op.responses)) {
      if (Number(status) < 400) continue;
      const code = codes[status];
      assert.ok(code, `${method} ${path}: unexpected status ${status}`);
      const ref = response.content["application/json"].schema.$ref.split("/").pop();
      const schema = document.components.schemas[ref];
      const named = schema.allOf[1].properties.error.properties.code;
      // Routes whose logic answers codes of their own name them, first, in their description
      // and schema: registration's refusals (403), invitations' conflicts and a verification
      // mail asked of a server without mail (409).
      const listed: string[] = named.enum ?? [named.const];
      if (listed.some((c) => (OWN_CODES[status] ?? []).includes(c))) {
        if (path === "/api/auth/verify-email") assert.deepEqual(listed, ["conflict", "mail_off"]);
        assert.ok(listed.every((c) => c === code || OWN_CODES[status]!.includes(c)), ref);
        assert.ok(response.description.startsWith(`\`${listed[0]}\``), `${path} ${status}`);
        continue;
      }
      assert.ok(response.description.startsWith(`\`${code}\``), `${path} ${status}`);
      // The one exception: the to-do list, whole only up to 1,000 items, is 400 too_many above.
      if (
        status === "400" && path === "/api/projects/{projectId}/todos/items" && method === "get"
      ) {
        assert.deepEqual(named.enum, ["validation", "too_many"]);
        continue;
      }
      assert.equal(named.const, code);
    }
    if (op.responses["429"]) assert.ok(op.responses["429"].headers["Retry-After"]);
    assert.ok(op.responses["401"].headers["WWW-Authenticate"]);
  }
  const login = document.paths["/api/auth/login"].post.responses;
  assert.ok(login["429"] && login["200"].headers["Set-Cookie"]);
});

Deno.test("Downloads, exports, backups and feeds are described in the media types they are sent in", async () => {
  const document = await documentOf();
  const ok = (path: string) => document.paths[path].get.responses["200"];
  const download = ok("/api/files/{fileId}/download");
  assert.deepEqual(Object.keys(download.content), ["*/*"]);
  assert.ok(download.headers["Content-Disposition"]);
  assert.deepEqual(Object.keys(ok("/api/projects/{projectId}/export").content), [
    "application/zip",
  ]);
  assert.ok(ok("/api/projects/{projectId}/export").headers["Content-Disposition"]);
  assert.deepEqual(Object.keys(ok("/api/admin/backup").content), ["application/gzip"]);
  const feed = ok("/ics/{token}/all.ics");
  assert.deepEqual(Object.keys(feed.content), ["text/calendar"]);
  assert.ok(feed.headers.ETag.required);
  assert.ok(document.paths["/ics/{token}/all.ics"].get.responses["304"]);
  // The one-click unsubscribe of notification mail (RFC 8058); its GET is a page, not the API.
  const unsubscribe = document.paths["/unsubscribe/{token}"];
  assert.deepEqual(Object.keys(unsubscribe), ["post"]);
  assert.deepEqual(Object.keys(unsubscribe.post.responses["200"].content), ["text/html"]);
  assert.ok(unsubscribe.post.responses["403"]);
  const created = document.paths["/api/projects/{projectId}/board/threads"].post.responses["201"];
  assert.deepEqual(
    Object.keys(created.content["application/json"].schema.properties).sort(),
    ["attachments", "thread"],
  );
});

Deno.test("The response checker catches bodies, statuses, media types and headers the document does not allow", async () => {
  const document = await documentOf();
  const validator = new OpenApiValidator(document);
  const json = new Headers({ "content-type": "application/json" });
  const project = {
    id: 1,
    name: "Apollo",
    description: "",
    archived: false,
    archivedAt: null,
    createdBy: 1,
    createdAt: "2026-11-22T08:30:00.000Z",
    updatedAt: "2026-11-22T08:30:00.000Z",
    myRole: "owner",
  };
  const check = (x: Partial<Parameters<typeof validator.check>[0]>) =>
    validator.check({
      method: "GET",
      path: "/api/projects/1",
      status: 200,
      headers: json,
      body: null,
      ...x,
    });
  const good = JSON.stringify({ project, members: [] });
  assert.deepEqual(check({ body: good }), [], "a right answer passes");

  const cases: Array<[string, Json, RegExp]> = [
    [
      "a wrong type",
      { body: JSON.stringify({ project: { ...project, id: "1" }, members: [] }) },
      /\/project\/id must be integer/,
    ],
    [
      "a missing field",
      { body: JSON.stringify({ project }) },
      /must have required property 'members'/,
    ],
    ["a timestamp without a date", {
      body: JSON.stringify({ project: { ...project, createdAt: "yesterday" }, members: [] }),
    }, /must match format "date-time"/],
    [
      "an id of 0",
      { body: JSON.stringify({ project: { ...project, id: 0 }, members: [] }) },
      /must be >= 1/,
    ],
    [
      "an undocumented status",
      { status: 418, body: good },
      /status 418 is not documented for getProject/,
    ],
    ["an unknown operation", { method: "PUT", body: good }, /no operation in the document/],
    [
      "another media type",
      { headers: new Headers({ "content-type": "text/html" }), body: "<p>" },
      /content type "text\/html"/,
    ],
    ["an error with another status's code", {
      status: 404,
      body: JSON.stringify({ error: { code: "forbidden", message: "No" } }),
    }, /code must be equal to constant/],
    ["a 401 without its challenge", {
      status: 401,
      body: JSON.stringify({ error: { code: "unauthenticated", message: "Log in" } }),
    }, /required header WWW-Authenticate is missing/],
    ["a sign-in without its cookie", {
      method: "POST",
      path: "/api/auth/login",
      body: JSON.stringify({ user: {} }),
    }, /Set-Cookie is missing/],
  ];
  for (const [what, exchange, problem] of cases) {
    const found = check(exchange);
    assert.ok(found.some((p) => problem.test(p)), `${what}: ${JSON.stringify(found)}`);
  }
  // The most literal path wins: /meetings/check is not a meeting called "check".
  assert.equal(
    validator.template("/api/projects/1/meetings/check"),
    "/api/projects/{projectId}/meetings/check",
  );
  assert.equal(
    validator.template("/ics/abc/projects/7.ics"),
    "/ics/{token}/projects/{projectId}.ics",
  );
});

Deno.test("A test app fails a request whose answer disagrees with the document, and records served ones", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    // An app that answers one route wrongly: a project whose id is text.
    const wrong: App = {
      ...t.app,
      request: async (input, init) => {
        const res = await t.app.request(input, init);
        if (String(input) !== "/api/projects" || init?.method !== "POST") return res;
        const body = await res.json();
        return Response.json({ project: { ...body.project, id: String(body.project.id) } }, {
          status: res.status,
        });
      },
    };
    wrong.fetch = (req) => wrong.request(new URL(req.url).pathname, req);
    const problems: string[] = [];
    const checked = checkedApp(wrong, problems);
    await assert.rejects(
      () =>
        Promise.resolve(checked.request("/api/projects", {
          method: "POST",
          headers: { cookie, "content-type": "application/json" },
          body: JSON.stringify({ name: "Apollo" }),
        })),
      /disagrees with the OpenAPI document[\s\S]*\/project\/id must be integer/,
    );
    const served = await checked.fetch(
      new Request("http://localhost/api/projects", {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify({ name: "Gemini" }),
      }),
    );
    assert.equal(served.status, 201, "a served answer still reaches its client");
    await served.body?.cancel();
    assert.equal(problems.length, 2);
    assert.match(problems[1]!, /POST \/api\/projects → 201: the body disagrees/);
    // A right answer passes through untouched.
    const fine = await checked.request("/api/projects", { headers: { cookie } });
    assert.equal(fine.status, 200);
  } finally {
    await t.close();
  }
});
