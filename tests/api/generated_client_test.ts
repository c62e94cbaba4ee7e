/**
 * A client generated from the OpenAPI document calls the API with an API token: types are
 * generated from a running server's `/api/openapi.json` with openapi-typescript, a small
 * openapi-fetch client is type-checked against them and run in its own process (a real
 * server, a real `Authorization: Bearer` header), and a client that misuses the types is
 * refused by the type checker, so the check means something.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { testServer } from "../helpers/app.ts";
import { api, expectJson, register } from "../helpers/api.ts";

const CONFIG = join(import.meta.dirname!, "..", "..", "deno.json");

const CLIENT = `
import createClient from "openapi-fetch";
import type { paths } from "./api.ts";

const [baseUrl = "", secret = ""] = Deno.args;
const client = createClient<paths>({
  baseUrl,
  headers: { Authorization: \`Bearer \${secret}\` },
});
const created = await client.POST("/api/projects", {
  body: { name: "Generated", description: "made by a generated client" },
});
if (!created.data) throw new Error(\`create: \${created.response.status}\`);
const id: number = created.data.project.id;
const read = await client.GET("/api/projects/{projectId}", {
  params: { path: { projectId: id } },
});
if (!read.data) throw new Error(\`read: \${read.response.status}\`);
const name: string = read.data.project.name;
const me = await client.GET("/api/auth/me");
const email: string | undefined = me.data?.user.email;
const refused = await client.GET("/api/tokens");
const code: string | undefined = refused.error?.error.code;
console.log(JSON.stringify({ id, name, email, refused: refused.response.status, code }));
`;

/** The same calls with the types misused: a number read as a string, a missing body field. */
const MISUSED = `
import createClient from "openapi-fetch";
import type { paths } from "./api.ts";

const client = createClient<paths>({ baseUrl: "http://127.0.0.1:1" });
const created = await client.POST("/api/projects", { body: { description: "no name" } });
const id: string = created.data!.project.id;
console.log(id);
`;

/** Runs `deno` with the project's configuration, offline and with the lockfile frozen. */
async function deno(args: string[], cwd: string) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [args[0]!, "--config", CONFIG, "--frozen", "--cached-only", ...args.slice(1)],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  return {
    code,
    out: new TextDecoder().decode(stdout),
    err: new TextDecoder().decode(stderr),
  };
}

Deno.test("A client generated from /api/openapi.json (openapi-typescript + openapi-fetch) works with a bearer token", async () => {
  const t = await testServer();
  const dir = await Deno.makeTempDir({ prefix: "generated-client-" });
  try {
    const cookie = await register(t, "ada@example.com");
    const { secret } = expectJson(
      await api(t, "POST", "/api/tokens", { cookie, body: { name: "generated", scope: "write" } }),
      201,
    );
    const document = await (await fetch(`${t.baseUrl}/api/openapi.json`)).json();
    const types = astToString(await openapiTS(document));
    assert.match(types, /"\/api\/projects\/\{projectId\}": \{/);
    await Deno.writeTextFile(join(dir, "api.ts"), types);
    await Deno.writeTextFile(join(dir, "client.ts"), CLIENT);
    await Deno.writeTextFile(join(dir, "misused.ts"), MISUSED);

    const misused = await deno(["check", "misused.ts"], dir);
    assert.notEqual(misused.code, 0, "the type checker refuses a misused client");
    // Both misuses are caught: the missing `name` (line 6) and the number read as a string (7).
    assert.match(misused.err, /TS\d+ \[ERROR\]/, misused.err);
    assert.match(misused.err, /misused\.ts:6:\d+/, misused.err);
    assert.match(misused.err, /misused\.ts:7:\d+/, misused.err);

    const run = await deno(
      ["run", "--check", `--allow-net=127.0.0.1`, "client.ts", t.baseUrl, secret],
      dir,
    );
    assert.equal(run.code, 0, `client.ts failed:\n${run.out}\n${run.err}`);
    const result = JSON.parse(run.out);
    assert.equal(result.name, "Generated");
    assert.equal(result.email, "ada@example.com");
    assert.equal(result.refused, 403, "a token may not list tokens");
    assert.equal(result.code, "forbidden");
    const project = expectJson(await api(t, "GET", `/api/projects/${result.id}`, { cookie }), 200);
    assert.equal(project.project.description, "made by a generated client");
  } finally {
    await Deno.remove(dir, { recursive: true });
    await t.close();
  }
});
