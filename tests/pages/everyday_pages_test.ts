/** Everyday page details: addresses with a trailing slash, table headers, distinct labels. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { signUp } from "../helpers/api.ts";

Deno.test("a page address with a trailing slash redirects to the address without it", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ann@example.com");
    const cases: Array<[string, string]> = [
      ["/projects/1/", "/projects/1"],
      ["/projects/", "/projects"],
      ["/projects/1/board/?tag=x", "/projects/1/board?tag=x"],
      ["//evil.example/", "/"],
    ];
    for (const [path, location] of cases) {
      const res = await t.app.request(path, { headers: { cookie } });
      assert.equal(res.status, 301, path);
      assert.equal(res.headers.get("location"), location, path);
    }
    // The API keeps its own answer: a JSON 404, no redirect.
    const api = await t.app.request("/api/projects/", { headers: { cookie } });
    assert.equal(api.status, 404);
    assert.equal((await api.json()).error.code, "not_found");
  } finally {
    await t.close();
  }
});
