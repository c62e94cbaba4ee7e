/** After login the user returns to `next` only when it is a path on this site. */
import assert from "node:assert/strict";
import { safeNext } from "../../routes/pages/context.ts";
import { testApp } from "../helpers/app.ts";
import { PASSWORD, signUp } from "../helpers/api.ts";

Deno.test("safeNext keeps local paths and refuses anything a browser could take off-site", () => {
  for (const ok of ["/", "/projects/3", "/projects/3/chat?before=10#m5", "/search?q=%E8%AD%B0"]) {
    assert.equal(safeNext(ok), ok);
  }
  const refused = [
    undefined,
    null,
    "",
    "projects",
    "https://evil.example/",
    "//evil.example",
    "/\\evil.example",
    "\\/evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "/ /evil.example",
    "/\u0000x",
    "/\u007fx",
  ];
  for (const bad of refused) assert.equal(safeNext(bad), "/", JSON.stringify(bad));
});

Deno.test("POST /login with a tab or line break in next redirects home, never off-site or 500", async () => {
  const t = await testApp();
  try {
    await signUp(t, "ann@example.com");
    for (
      const next of ["/\t/evil.example", "/\n/evil.example", "/\r/evil.example", "//evil.example"]
    ) {
      const res = await t.app.request("/login", {
        method: "POST",
        body: new URLSearchParams({ email: "ann@example.com", password: PASSWORD, next }),
      });
      assert.equal(res.status, 303, JSON.stringify(next));
      assert.equal(res.headers.get("location"), "/", JSON.stringify(next));
    }
    const home = await t.app.request("/login", {
      method: "POST",
      body: new URLSearchParams({
        email: "ann@example.com",
        password: PASSWORD,
        next: "/projects",
      }),
    });
    assert.equal(home.headers.get("location"), "/projects");
  } finally {
    await t.close();
  }
});
