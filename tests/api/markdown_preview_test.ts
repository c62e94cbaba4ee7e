/**
 * POST /api/markdown/preview: the text boxes' preview, rendered by the pages' renderer;
 * mentions name the members of a project the caller can see; bad input is refused.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { addMember, api, createProject, expectError, expectJson, signUp } from "../helpers/api.ts";

const PREVIEW = "/api/markdown/preview";

async function setup() {
  const t = await testApp();
  await signUp(t, "root@example.com");
  const ann = await signUp(t, "ann@example.com", { displayName: "Ann Archer" });
  const ben = await signUp(t, "ben@example.com", { displayName: "Ben Baker" });
  const outsider = await signUp(t, "oscar@example.com");
  const project = await createProject(t, ann.cookie, "Apollo");
  await addMember(t, ann.cookie, project.id, "ben@example.com", "viewer");
  return { t, ann, ben, outsider, project };
}

Deno.test("POST /api/markdown/preview renders Markdown as a page shows it, raw HTML escaped", async () => {
  const { t, ann } = await setup();
  try {
    const body = expectJson(
      await api(t, "POST", PREVIEW, {
        cookie: ann.cookie,
        body: { text: "The **marketing** plan <script>alert(1)</script> [x](javascript:alert(1))" },
      }),
      200,
    );
    assert.deepEqual(Object.keys(body), ["html"]);
    assert.match(body.html, /<strong>marketing<\/strong>/);
    assert.match(body.html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.doesNotMatch(body.html, /<script|href="javascript:/);
    // An empty text is an empty preview.
    const empty = expectJson(
      await api(t, "POST", PREVIEW, { cookie: ann.cookie, body: { text: "" } }),
      200,
    );
    assert.equal(empty.html, "");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/markdown/preview with projectId names the project's members, the caller's own marked", async () => {
  const { t, ann, ben, project } = await setup();
  try {
    const text = "@ann@example.com, ask @ben@example.com or @zed@example.com";
    // Ben is a viewer: reading is enough to preview.
    const asBen = expectJson(
      await api(t, "POST", PREVIEW, { cookie: ben.cookie, body: { text, projectId: project.id } }),
      200,
    );
    assert.match(asBen.html, /<span class="mention"[^>]*>@Ann Archer<\/span>/);
    assert.match(asBen.html, /<span class="mention mention-me"[^>]*>@Ben Baker<\/span>/);
    assert.match(asBen.html, /or @zed@example.com<\/p>/, "an unknown mention stays as typed");
    const asAnn = expectJson(
      await api(t, "POST", PREVIEW, { cookie: ann.cookie, body: { text, projectId: project.id } }),
      200,
    );
    assert.match(asAnn.html, /<span class="mention mention-me"[^>]*>@Ann Archer<\/span>/);
    // Without a project, mentions stay as typed.
    const bare = expectJson(
      await api(t, "POST", PREVIEW, { cookie: ann.cookie, body: { text, projectId: null } }),
      200,
    );
    assert.doesNotMatch(bare.html, /class="mention/);
    assert.match(bare.html, /@ann@example.com/);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/markdown/preview: a project the caller cannot see is 404", async () => {
  const { t, outsider, project } = await setup();
  try {
    for (const projectId of [project.id, 999_999]) {
      expectError(
        await api(t, "POST", PREVIEW, {
          cookie: outsider.cookie,
          body: { text: "@ann@example.com", projectId },
        }),
        404,
        "not_found",
      );
    }
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/markdown/preview: too long, missing or mistyped input is 400", async () => {
  const { t, ann } = await setup();
  try {
    // The largest Markdown field (a note's body) is 100,000 characters: that much previews.
    const longest = "a".repeat(100_000);
    expectJson(await api(t, "POST", PREVIEW, { cookie: ann.cookie, body: { text: longest } }), 200);
    const tooLong = expectError(
      await api(t, "POST", PREVIEW, { cookie: ann.cookie, body: { text: `${longest}a` } }),
      400,
      "validation",
    );
    assert.equal(typeof tooLong.details?.text, "string");
    const bodies: unknown[] = [
      {},
      { text: 42 },
      { text: "x", projectId: 0 },
      { text: "x", projectId: "1" },
      { text: "x", projectId: 1.5 },
    ];
    for (const body of bodies) {
      expectError(
        await api(t, "POST", PREVIEW, { cookie: ann.cookie, body }),
        400,
        "validation",
      );
    }
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/markdown/preview needs a signed-in caller (401)", async () => {
  const { t } = await setup();
  try {
    expectError(
      await api(t, "POST", PREVIEW, { body: { text: "**hi**" } }),
      401,
      "unauthenticated",
    );
  } finally {
    await t.close();
  }
});
