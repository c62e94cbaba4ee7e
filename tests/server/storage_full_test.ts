/**
 * A full disk: writes answer 507 (API), a `S:Server` fault (SOAP) or a 507 page, reads keep
 * working, and the cause is logged once rather than once per failed request.
 */
import assert from "node:assert/strict";
import { sqliteOf, type TestApp, testApp } from "../helpers/app.ts";
import {
  api,
  createProject,
  expectError,
  expectJson,
  getJson,
  PNG_BYTES,
  postFile,
  signUp,
  storedFiles,
} from "../helpers/api.ts";
import { faultCode, faultString, post, registration } from "../helpers/soap.ts";
import { ON_POSTGRES } from "../helpers/test_database.ts";

/**
 * Caps the database file at its current pages (or lifts the cap): SQLite then answers
 * SQLITE_FULL to any write needing a new page, exactly as on a full disk.
 */
function diskFull(t: TestApp, full: boolean): void {
  if (full) sqliteOf(t).sql.exec("VACUUM"); // no free pages left to reuse
  const { page_count } = sqliteOf(t).sql.prepare("PRAGMA page_count").get() as {
    page_count: number;
  };
  sqliteOf(t).sql.exec(`PRAGMA max_page_count = ${full ? page_count : 1_000_000_000}`);
}

/** A description long enough to need new pages. */
const LONG = "x".repeat(10_000);

const errorLines = (t: TestApp) => t.logs.filter((line) => line.startsWith("error"));

Deno.test({
  name:
    "on a full disk API writes answer 507 insufficient_storage, reads work, and the cause is logged once",
  ignore: ON_POSTGRES, // SQLite's page cap stands in for a full disk
}, async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ann@example.com");
    const kept = await createProject(t, cookie, "Kept");
    diskFull(t, true);
    for (const name of ["One", "Two", "Three"]) {
      const res = await api(t, "POST", "/api/projects", {
        cookie,
        body: { name, description: LONG },
      });
      const error = expectError(res, 507, "insufficient_storage");
      assert.match(error.message, /disk is full/);
    }
    // Reads go on as before.
    const list = await getJson(t, cookie, "/api/projects");
    assert.deepEqual(list.items.map((p: { id: number }) => p.id), [kept.id]);
    // One line, naming the real cause, not one per request.
    assert.equal(errorLines(t).length, 1, errorLines(t).join("\n"));
    assert.match(errorLines(t)[0]!, /disk is full.*database or disk is full/);
    assert.ok(!t.logs.some((line) => line.includes("cannot rollback")));

    // Space is freed: writes work again, and a new shortage is logged again.
    diskFull(t, false);
    await createProject(t, cookie, "Four", LONG);
    diskFull(t, true);
    const again = await api(t, "POST", "/api/projects", {
      cookie,
      body: { name: "Five", description: LONG },
    });
    expectError(again, 507, "insufficient_storage");
    assert.equal(errorLines(t).length, 2, errorLines(t).join("\n"));
  } finally {
    await t.close();
  }
});

Deno.test({
  name: "on a full disk a SOAP registration is a S:Server fault and getHelloWorld still answers",
  ignore: ON_POSTGRES, // SQLite's page cap stands in for a full disk
}, async () => {
  const t = await testApp();
  try {
    diskFull(t, true);
    const failed = await post(t, "/loan", registration("N".repeat(10_000)));
    assert.equal(failed.status, 500);
    assert.match(faultCode(failed.text) ?? "", /:Server$/);
    assert.equal(faultString(failed.text), "Cannot save: the server's disk is full");
    const hello = await post(
      t,
      "/hello",
      '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
        'xmlns:soap="http://soap.example.com/"><soapenv:Body><soap:getHelloWorld>' +
        "<arg0>Ann</arg0></soap:getHelloWorld></soapenv:Body></soapenv:Envelope>",
    );
    assert.equal(hello.status, 200, hello.text);
    assert.equal(errorLines(t).length, 1, errorLines(t).join("\n"));
    assert.match(errorLines(t)[0]!, /database or disk is full/);
  } finally {
    await t.close();
  }
});

Deno.test({
  name: "on a full disk a page form answers a 507 page saying so, in the user's language",
  ignore: ON_POSTGRES, // SQLite's page cap stands in for a full disk
}, async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ann@example.com");
    diskFull(t, true);
    const headers = { "content-type": "application/x-www-form-urlencoded", cookie };
    const res = await t.app.request("/projects", {
      method: "POST",
      headers,
      body: new URLSearchParams({ name: "Plan", description: LONG }).toString(),
    });
    assert.equal(res.status, 507);
    const page = await res.text();
    assert.match(page, /<h1>The server&#39;s disk is full<\/h1>/);
    assert.match(page, /Your change was not saved/);
    // The list page still renders.
    const list = await t.app.request("/projects", { headers: { cookie } });
    assert.equal(list.status, 200);
    await list.body?.cancel();
    // In Japanese for a user who chose it.
    diskFull(t, false);
    const ja = await api(t, "PATCH", "/api/users/me", { cookie, body: { locale: "ja" } });
    assert.equal(ja.status, 200, ja.text);
    diskFull(t, true);
    const again = await t.app.request("/projects", {
      method: "POST",
      headers,
      body: new URLSearchParams({ name: "Plan", description: LONG }).toString(),
    });
    assert.equal(again.status, 507);
    assert.match(await again.text(), /<h1>サーバーのディスクがいっぱいです<\/h1>/);
  } finally {
    await t.close();
  }
});

Deno.test("an upload whose bytes meet a full disk (ENOSPC) answers 507 and leaves nothing", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ann@example.com");
    const project = await createProject(t, cookie, "Files");
    const store = t.app.services.fileStore;
    const spool = store.spool;
    // The file store's writes fail as on a full disk: /dev/full answers every write ENOSPC.
    store.spool = async (chunks) => {
      const file = await Deno.open("/dev/full", { write: true });
      try {
        for await (const chunk of chunks) await file.write(chunk);
      } finally {
        file.close();
      }
      throw new Error("Cannot happen: /dev/full accepted the bytes");
    };
    for (let i = 0; i < 2; i++) {
      const res = await postFile(
        t,
        cookie,
        `/api/projects/${project.id}/files`,
        "a.png",
        PNG_BYTES,
      );
      expectError(res, 507, "insufficient_storage");
    }
    assert.deepEqual(await storedFiles(t), []);
    const listed = await getJson(t, cookie, `/api/projects/${project.id}/files`);
    assert.deepEqual(listed.items, []);
    assert.equal(errorLines(t).length, 1, errorLines(t).join("\n"));
    assert.match(errorLines(t)[0]!, /No space left on device/);

    // Space is freed: an upload works again, and a new shortage is logged again.
    const full = store.spool;
    store.spool = spool;
    const path = `/api/projects/${project.id}/files`;
    expectJson(await postFile(t, cookie, path, "a.png", PNG_BYTES), 201);
    store.spool = full;
    expectError(await postFile(t, cookie, path, "b.png", PNG_BYTES), 507, "insufficient_storage");
    assert.equal(errorLines(t).length, 2, errorLines(t).join("\n"));
  } finally {
    await t.close();
  }
});
