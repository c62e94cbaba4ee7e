/** Everyday page details: addresses with a trailing slash, table headers, distinct labels. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { api, createProject, signUp } from "../helpers/api.ts";
import { en } from "../../routes/i18n/en.ts";
import { ja } from "../../routes/i18n/ja.ts";

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

Deno.test("every table column and every labelled region has a name, in English and Japanese", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ann@example.com");
    const project = await createProject(t, cookie, "Launch");
    const upload = new FormData();
    upload.set("file", new File(["hello"], "hello.txt", { type: "text/plain" }));
    const uploaded = await t.app.request(`/api/projects/${project.id}/files`, {
      method: "POST",
      headers: { cookie },
      body: upload,
    });
    assert.equal(uploaded.status, 201);
    for (const locale of ["en", "ja"] as const) {
      const words = locale === "en" ? en : ja;
      await api(t, "PATCH", "/api/users/me", { cookie, body: { locale } });
      for (const path of ["", "/files"]) {
        const html = await (await t.app.request(`/projects/${project.id}${path}`, {
          headers: { cookie },
        })).text();
        assert.doesNotMatch(html, /<th><\/th>/, `${locale} ${path}: an empty column header`);
        assert.match(
          html,
          new RegExp(`<th><span class="visually-hidden">${words["content.actions"]}</span></th>`),
        );
      }
      const board = await (await t.app.request(`/projects/${project.id}/board`, {
        headers: { cookie },
      })).text();
      assert.match(board, new RegExp(`<nav[^>]*aria-label="${words["board.categoryFilter"]}"`));
      assert.match(board, new RegExp(`>${words["board.category"]}<`));
      assert.notEqual(words["board.categoryFilter"], words["board.category"]);
    }
  } finally {
    await t.close();
  }
});

Deno.test("after a create or a save the page says so once, in the reader's language", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ann@example.com");
    const project = await createProject(t, cookie, "Launch");
    await api(t, "PATCH", "/api/users/me", { cookie, body: { locale: "ja" } });
    const post = (path: string, fields: Record<string, string>) =>
      t.app.request(path, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
      });
    const base = `/projects/${project.id}`;
    const created = await post(`${base}/notes`, { title: "Plan", body: "x" });
    assert.equal(created.status, 303);
    const createdAt = created.headers.get("location")!;
    assert.match(createdAt, /^\/projects\/\d+\/notes\/\d+\?created=note-\d+$/);
    const notePath = createdAt.split("?")[0]!;
    const html = async (path: string) =>
      await (await t.app.request(path, { headers: { cookie } })).text();
    assert.match(await html(createdAt), /role="status"[^>]*>ノートを作成しました。</);
    const saved = await post(notePath, { title: "Plan 2", body: "y" });
    assert.equal(saved.headers.get("location"), `${notePath}?saved=${createdAt.split("=")[1]}`);
    assert.match(await html(saved.headers.get("location")!), />ノートを保存しました。</);
    // The plain address, or a notice naming nothing known, shows no message.
    assert.doesNotMatch(await html(notePath), /data-notice/);
    assert.doesNotMatch(await html(`${notePath}?created=bogus-1`), /data-notice/);
  } finally {
    await t.close();
  }
});
