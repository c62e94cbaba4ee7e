/**
 * Backup and restore as commands of main.ts (`backup`, `backup --verify`, `restore`), run as
 * processes next to a real server that keeps writing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { endOfArchive, entryHeader, padding } from "../../domain/formats/tar.ts";
import { type Finished, runMain, spawnMain, startServer } from "../helpers/main_process.ts";
import { ON_POSTGRES } from "../helpers/test_database.ts";

const PASSWORD = "correct horse battery";
const NS = 'xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
  'xmlns:soap="http://soap.example.com/"';

/** A signed-in caller of a server process. */
interface Caller {
  baseUrl: string;
  cookie: string;
}

// deno-lint-ignore no-explicit-any
type Json = any;

async function call(
  c: Caller,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Json }> {
  const res = await fetch(c.baseUrl + path, {
    method,
    headers: {
      cookie: c.cookie,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** Registers the first account (a system admin) and returns it as a caller. */
async function signUpAdmin(baseUrl: string): Promise<Caller> {
  const res = await fetch(`${baseUrl}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "root@example.com", password: PASSWORD, displayName: "Root" }),
  });
  const text = await res.text();
  assert.equal(res.status, 201, text);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("session="))!.split(";")[0]!;
  return { baseUrl, cookie };
}

/** Text for the type check's first 8 KiB, then random bytes (which gzip cannot shrink). */
function fileBytes(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  const head = new TextEncoder().encode(`file ${seed}\n`.repeat(2000));
  bytes.set(head.subarray(0, Math.min(size, 8192)));
  for (let i = 8192; i < size; i += 65536) {
    crypto.getRandomValues(bytes.subarray(i, Math.min(size, i + 65536)));
  }
  return bytes;
}

/** Uploads `bytes` as `name` to the project; returns the file id. */
async function upload(c: Caller, projectId: number, name: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append("file", new File([bytes as Uint8Array<ArrayBuffer>], name));
  const res = await fetch(`${c.baseUrl}/api/projects/${projectId}/files`, {
    method: "POST",
    headers: { cookie: c.cookie },
    body: form,
  });
  const json = await res.json();
  assert.equal(res.status, 201, JSON.stringify(json));
  return json.file.id as number;
}

async function download(c: Caller, fileId: number): Promise<{ status: number; bytes: Uint8Array }> {
  const res = await fetch(`${c.baseUrl}/api/files/${fileId}/download`, {
    headers: { cookie: c.cookie },
  });
  return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** Every chat message id of the project, paging back through the history. */
async function chatIds(c: Caller, projectId: number): Promise<Set<number>> {
  const ids = new Set<number>();
  let before = "";
  for (;;) {
    const page = await call(
      c,
      "GET",
      `/api/projects/${projectId}/chat/messages?limit=200${before}`,
    );
    assert.equal(page.status, 200);
    for (const m of page.json.items) ids.add(m.id);
    if (!page.json.hasMore) return ids;
    before = `&before=${page.json.items[0].id}`;
  }
}

/** One SOAP loan decision; true when it was answered (and so stored). */
async function loan(baseUrl: string, applicant: string): Promise<boolean> {
  const res = await fetch(`${baseUrl}/loan`, {
    method: "POST",
    headers: { "content-type": "text/xml; charset=utf-8", soapaction: '""' },
    body: `<soapenv:Envelope ${NS}><soapenv:Body><soap:processLoanApplication><arg0>` +
      `<applicantName>${applicant}</applicantName><requestedAmount>1000</requestedAmount>` +
      "</arg0></soap:processLoanApplication></soapenv:Body></soapenv:Envelope>",
  });
  const text = await res.text();
  return res.status === 200 && text.includes("<approved>true</approved>");
}

function integrity(dbPath: string): string {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string })
      .integrity_check;
  } finally {
    db.close();
  }
}

async function listDir(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** A failed command: non-zero, nothing on standard error but one line matching `pattern`. */
function assertFailedInOneLine(result: Finished, pattern: RegExp, code = 1): void {
  assert.equal(result.code, code, [...result.stdout, ...result.stderr].join("\n"));
  assert.equal(result.stderr.length, 1, result.stderr.join("\n"));
  assert.match(result.stderr[0]!, pattern);
}

/** A temporary folder for one test, removed afterwards. */
async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "backup-test-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A stopped server's data: an admin, a project, three files and chat messages. */
interface Fixture {
  dataDir: string;
  cookie: string;
  projectId: number;
  files: Array<{ id: number; name: string; bytes: Uint8Array }>;
}

/** Fills `dataDir` through a server process, then stops it. */
async function makeFixture(dataDir: string, bigFiles = 0): Promise<Fixture> {
  const server = await startServer(dataDir);
  try {
    const admin = await signUpAdmin(server.baseUrl);
    const project = await call(admin, "POST", "/api/projects", { name: "Apollo" });
    const projectId = project.json.project.id as number;
    const files = [];
    const uploads: Array<[string, Uint8Array]> = [
      ["notes.txt", fileBytes(1_500_000, 1)],
      ["議事録 2026.csv", new TextEncoder().encode("a,b\n日本語,2\n")],
      ["empty.md", new Uint8Array(0)],
    ];
    for (let i = 0; i < bigFiles; i++) uploads.push([`big-${i}.txt`, fileBytes(20 << 20, 10 + i)]);
    for (const [name, bytes] of uploads) {
      files.push({ id: await upload(admin, projectId, name, bytes), name, bytes });
    }
    for (const text of ["hello", "こんにちは"]) {
      const res = await call(admin, "POST", `/api/projects/${projectId}/chat/messages`, { text });
      assert.equal(res.status, 201);
    }
    return { dataDir, cookie: admin.cookie, projectId, files };
  } finally {
    await server.stop();
  }
}

let shared: Promise<Fixture> | undefined;

/**
 * A copy of one fixture made once for this file (a server process, a sign-up and uploads
 * take seconds), at `<dir>/data`.
 */
async function copyOfFixture(dir: string): Promise<Fixture> {
  shared ??= (async () => {
    const root = await Deno.makeTempDir({ prefix: "backup-test-shared-" });
    globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));
    return await makeFixture(join(root, "data"));
  })();
  const fixture = await shared;
  const dataDir = join(dir, "data");
  const cp = await new Deno.Command("cp", { args: ["-a", fixture.dataDir, dataDir] }).output();
  assert.equal(cp.code, 0, new TextDecoder().decode(cp.stderr));
  return { ...fixture, dataDir };
}

Deno.test({
  name:
    "a backup taken while chat messages, to-dos and loan decisions are written keeps every write acknowledged before it began",
  ignore: ON_POSTGRES, // backup and restore of SQLite's file (on PostgreSQL: pg_dump)
}, async () => {
  await withTempDir(async (dir) => {
    const fixture = await copyOfFixture(dir);
    const dataDir = fixture.dataDir;
    const server = await startServer(dataDir);
    const admin: Caller = { baseUrl: server.baseUrl, cookie: fixture.cookie };
    const p = fixture.projectId;

    // Writers that keep going until told to stop; each acknowledgement is recorded with when.
    const acked = {
      chat: [] as Array<{ id: number; at: number }>,
      todo: [] as Array<{ id: number; at: number }>,
      loan: [] as Array<{ id: string; at: number }>,
    };
    const failures: string[] = [];
    let stop = false;
    const writers = [
      (async () => {
        for (let n = 0; !stop; n++) {
          const res = await call(admin, "POST", `/api/projects/${p}/chat/messages`, {
            text: `message ${n}`,
          });
          if (res.status !== 201) failures.push(`chat ${res.status}`);
          else acked.chat.push({ id: res.json.message.id, at: performance.now() });
        }
      })(),
      (async () => {
        for (let n = 0; !stop; n++) {
          const res = await call(admin, "POST", `/api/projects/${p}/todos/items`, {
            title: `to-do ${n}`,
          });
          if (res.status !== 201) failures.push(`todo ${res.status}`);
          else acked.todo.push({ id: res.json.item.id, at: performance.now() });
        }
      })(),
      (async () => {
        for (let n = 0; !stop; n++) {
          const name = `Applicant${n}`;
          if (await loan(server.baseUrl, name)) {
            acked.loan.push({ id: name, at: performance.now() });
          } else failures.push(`loan ${name}`);
        }
      })(),
    ];
    try {
      while (acked.chat.length < 10 || acked.todo.length < 10 || acked.loan.length < 10) {
        await new Promise((r) => setTimeout(r, 20));
      }
      // Everything acknowledged by now must be in the backup.
      const before = {
        chat: acked.chat.map((a) => a.id),
        todo: acked.todo.map((a) => a.id),
        loan: acked.loan.map((a) => a.id),
      };
      const started = performance.now();
      const backup = await runMain(["backup", join(dir, "out.tar.gz")], { DATA_DIR: dataDir });
      const ended = performance.now();
      stop = true;
      await Promise.all(writers);
      assert.equal(backup.code, 0, [...backup.stdout, ...backup.stderr].join("\n"));
      assert.deepEqual(failures, []);
      const during = [...acked.chat, ...acked.todo, ...acked.loan]
        .filter((a) => a.at > started && a.at < ended).length;
      assert.ok(during > 0, "writes were acknowledged while the backup ran");
      assert.ok(backup.stdout.some((l) => /^snapshot: .* integrity check ok$/.test(l)));
      assert.ok(backup.stdout.some((l) => /^ok: wrote .*out\.tar\.gz/.test(l)));
      await server.stop();

      const restoredDir = join(dir, "restored");
      const restore = await runMain([
        "restore",
        join(dir, "out.tar.gz"),
        "--data-dir",
        restoredDir,
      ]);
      assert.equal(restore.code, 0, [...restore.stdout, ...restore.stderr].join("\n"));
      assert.equal(integrity(join(restoredDir, "collab.db")), "ok");
      const db = new DatabaseSync(join(restoredDir, "collab.db"), { readOnly: true });
      const applicants = new Set(
        (db.prepare("SELECT applicant_name FROM loan_history").all() as Array<
          { applicant_name: string }
        >).map((r) => r.applicant_name),
      );
      db.close();
      assert.deepEqual(before.loan.filter((name) => !applicants.has(name)), []);

      // The restored server serves them; the old session works, since the secret came along.
      const restored = await startServer(restoredDir);
      try {
        const caller: Caller = { baseUrl: restored.baseUrl, cookie: fixture.cookie };
        const messages = await chatIds(caller, p);
        assert.deepEqual(before.chat.filter((id) => !messages.has(id)), []);
        for (const id of before.todo) {
          const item = await call(caller, "GET", `/api/projects/${p}/todos/items/${id}`);
          assert.equal(item.status, 200, `to-do ${id}`);
        }
        for (const file of fixture.files) {
          const got = await download(caller, file.id);
          assert.equal(got.status, 200, file.name);
          assert.deepEqual(got.bytes, file.bytes, file.name);
        }
      } finally {
        await restored.stop();
      }
    } finally {
      stop = true;
      await Promise.allSettled(writers);
      await server.stop().catch(() => {});
    }
  });
});

Deno.test({
  name:
    "backup --verify accepts a sound archive and refuses a damaged or cut one in one line; restoring it writes nothing",
  ignore: ON_POSTGRES, // backup and restore of SQLite's file (on PostgreSQL: pg_dump)
}, async () => {
  await withTempDir(async (dir) => {
    const fixture = await copyOfFixture(dir);
    const archive = join(dir, "good.tar.gz");
    const made = await runMain(["backup", archive], { DATA_DIR: fixture.dataDir });
    assert.equal(made.code, 0, made.stderr.join("\n"));

    const verified = await runMain(["backup", "--verify", archive]);
    assert.equal(verified.code, 0, verified.stderr.join("\n"));
    assert.deepEqual(verified.stderr, []);
    assert.match(
      verified.stdout.at(-1)!,
      /^ok: .*good\.tar\.gz is a sound backup made \S+ \(5 entries/,
    );

    const good = await Deno.readFile(archive);
    const flipped = good.slice();
    flipped[Math.floor(flipped.length / 2)]! ^= 0x01;
    await Deno.writeFile(join(dir, "flipped.tar.gz"), flipped);
    await Deno.writeFile(join(dir, "cut.tar.gz"), good.subarray(0, good.length - 100));
    for (const name of ["flipped.tar.gz", "cut.tar.gz"]) {
      const bad = join(dir, name);
      assertFailedInOneLine(
        await runMain(["backup", "--verify", bad]),
        /^Cannot verify .*: it is damaged: /,
      );
      const target = join(dir, `restored-${name}`);
      assertFailedInOneLine(
        await runMain(["restore", bad, "--data-dir", target]),
        /^Cannot restore: .* is damaged, nothing was restored: /,
      );
      assert.equal(await exists(target), false, "no data directory was made");
    }
    // Nothing half-extracted is left beside the targets either.
    assert.deepEqual(await listDir(dir), [
      "cut.tar.gz",
      "data",
      "flipped.tar.gz",
      "good.tar.gz",
    ]);
  });
});

Deno.test({
  name: "restore refuses a non-empty DATA_DIR; --force moves it aside and never deletes it",
  ignore: ON_POSTGRES, // backup and restore of SQLite's file (on PostgreSQL: pg_dump)
}, async () => {
  await withTempDir(async (dir) => {
    const fixture = await copyOfFixture(dir);
    const archive = join(dir, "b.tar.gz");
    assert.equal((await runMain(["backup", archive], { DATA_DIR: fixture.dataDir })).code, 0);
    const target = join(dir, "target");
    await Deno.mkdir(target);
    await Deno.writeTextFile(join(target, "keep.txt"), "old data");

    assertFailedInOneLine(
      await runMain(["restore", archive], { DATA_DIR: target }),
      /^Cannot restore: DATA_DIR .*target is not empty: .*--force/,
    );
    assert.deepEqual(await listDir(target), ["keep.txt"]);

    const forced = await runMain(["restore", archive, "--force"], { DATA_DIR: target });
    assert.equal(forced.code, 0, forced.stderr.join("\n"));
    const aside = (await listDir(dir)).filter((n) => n.startsWith("target.old-"));
    assert.equal(aside.length, 1);
    assert.equal(await Deno.readTextFile(join(dir, aside[0]!, "keep.txt")), "old data");
    assert.ok(forced.stdout.at(-1)!.endsWith(`the old data is in ${join(dir, aside[0]!)}`));
    assert.deepEqual(await listDir(target), ["collab.db", "files", "session_secret"]);

    // Again: the restored directory is moved aside in turn, under another name.
    assert.equal((await runMain(["restore", archive, "--force"], { DATA_DIR: target })).code, 0);
    assert.equal((await listDir(dir)).filter((n) => n.startsWith("target.old-")).length, 2);

    // An empty directory is simply used.
    const empty = join(dir, "empty");
    await Deno.mkdir(empty);
    assert.equal((await runMain(["restore", archive, "--data-dir", empty])).code, 0);
    assert.ok((await listDir(empty)).includes("collab.db"));
  });
});

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory) found.push(...await filesUnder(dir, path));
    else found.push(path);
  }
  return found.sort();
}

Deno.test({
  name:
    "with FILES_DIR set apart, the server, backup and restore keep the files there; restore refuses a non-empty one unless --force",
  ignore: ON_POSTGRES, // backup and restore of SQLite's file (on PostgreSQL: pg_dump)
}, async () => {
  await withTempDir(async (dir) => {
    const fixture = await copyOfFixture(dir);
    const apart = join(dir, "files-apart");
    await Deno.rename(join(fixture.dataDir, "files"), apart);
    const stored = await filesUnder(apart);
    assert.equal(stored.length, fixture.files.length);

    // The server reads and writes files in FILES_DIR only.
    const server = await startServer(fixture.dataDir, { FILES_DIR: apart });
    try {
      const c = { baseUrl: server.baseUrl, cookie: fixture.cookie };
      for (const f of fixture.files) assert.deepEqual((await download(c, f.id)).bytes, f.bytes);
      await upload(c, fixture.projectId, "late.txt", fileBytes(10_000, 7));
    } finally {
      await server.stop();
    }
    assert.equal((await filesUnder(apart)).length, fixture.files.length + 1);
    assert.equal(await exists(join(fixture.dataDir, "files")), false, "nothing in DATA_DIR/files");

    // The backup takes them from FILES_DIR; the restore puts them into another FILES_DIR.
    const archive = join(dir, "b.tar.gz");
    const made = await runMain(["backup", archive], {
      DATA_DIR: fixture.dataDir,
      FILES_DIR: apart,
    });
    assert.equal(made.code, 0, made.stderr.join("\n"));
    const target = join(dir, "target");
    const targetFiles = join(dir, "target-files");
    const restored = await runMain(["restore", archive], {
      DATA_DIR: target,
      FILES_DIR: targetFiles,
    });
    assert.equal(restored.code, 0, restored.stderr.join("\n"));
    assert.deepEqual(await listDir(target), ["collab.db", "session_secret"]);
    assert.deepEqual(await filesUnder(targetFiles), await filesUnder(apart));
    const again = await startServer(target, { FILES_DIR: targetFiles });
    try {
      const c = { baseUrl: again.baseUrl, cookie: fixture.cookie };
      for (const f of fixture.files) assert.deepEqual((await download(c, f.id)).bytes, f.bytes);
    } finally {
      await again.stop();
    }

    // A FILES_DIR with entries is refused before anything is placed, the data directory too.
    const other = join(dir, "other");
    assertFailedInOneLine(
      await runMain(["restore", archive], { DATA_DIR: other, FILES_DIR: targetFiles }),
      /^Cannot restore: FILES_DIR .*target-files is not empty: .*--force/,
    );
    assert.equal(await exists(other), false);
    assert.deepEqual(
      (await listDir(dir)).filter((n) => n.includes(".restore-")),
      [],
      "no work folder is left",
    );

    // --force moves the old FILES_DIR aside, never deleting it.
    await Deno.writeTextFile(join(targetFiles, "keep.txt"), "old file");
    const forced = await runMain(["restore", archive, "--force"], {
      DATA_DIR: other,
      FILES_DIR: targetFiles,
    });
    assert.equal(forced.code, 0, forced.stderr.join("\n"));
    const aside = (await listDir(dir)).filter((n) => n.startsWith("target-files.old-"));
    assert.equal(aside.length, 1);
    assert.equal(await Deno.readTextFile(join(dir, aside[0]!, "keep.txt")), "old file");
    assert.ok(forced.stdout.at(-1)!.endsWith(`the old files are in ${join(dir, aside[0]!)}`));
    assert.deepEqual(await filesUnder(targetFiles), await filesUnder(apart));
  });
});

Deno.test({
  name: "a backup killed midway leaves no archive, and an interrupted one leaves nothing at all",
  ignore: ON_POSTGRES, // backup and restore of SQLite's file (on PostgreSQL: pg_dump)
}, async () => {
  await withTempDir(async (dir) => {
    const fixture = await makeFixture(join(dir, "data"), 6);
    for (const [signal, code] of [["SIGKILL", 137], ["SIGTERM", 143]] as const) {
      const out = join(dir, `${signal}.tar.gz`);
      const running = spawnMain(["backup", out], { DATA_DIR: fixture.dataDir });
      await running.waitFor(/^archive: /);
      running.child.kill(signal);
      const result = await running.done;
      assert.equal(await exists(out), false, `${signal}: no archive`);
      const leftovers = (await listDir(dir)).filter((n) => n.startsWith(`.${signal}.tar.gz`));
      if (signal === "SIGKILL") {
        // Nothing can clean up after SIGKILL: what is left is named for what it was.
        assert.equal(leftovers.length, 1);
        assert.match(leftovers[0]!, /^\.SIGKILL\.tar\.gz\.backup-/);
      } else {
        assertFailedInOneLine(
          result,
          /^Cannot back up: interrupted by SIGTERM; nothing was written$/,
          code,
        );
        assert.deepEqual(leftovers, []);
      }
    }
  });
});

Deno.test({
  name:
    "a backup fails in one line and leaves nothing when OUT exists, there is no database, or the disk fills",
  ignore: ON_POSTGRES, // backup and restore of SQLite's file (on PostgreSQL: pg_dump)
}, async () => {
  await withTempDir(async (dir) => {
    const fixture = await copyOfFixture(dir);
    const taken = join(dir, "taken.tar.gz");
    await Deno.writeTextFile(taken, "an older backup");
    assertFailedInOneLine(
      await runMain(["backup", taken], { DATA_DIR: fixture.dataDir }),
      /^Cannot back up: .*taken\.tar\.gz already exists/,
    );
    assert.equal(await Deno.readTextFile(taken), "an older backup");

    await Deno.mkdir(join(dir, "nothing"));
    assertFailedInOneLine(
      await runMain(["backup", join(dir, "none.tar.gz"), "--data-dir", join(dir, "nothing")]),
      /^Cannot back up: there is no database in /,
    );

    // No file it writes may grow past 100 KB, as on a full disk.
    const full = join(dir, "full.tar.gz");
    const child = await new Deno.Command("sh", {
      args: [
        "-c",
        `trap '' XFSZ; exec prlimit --fsize=100000 "$@"`,
        "sh",
        Deno.execPath(),
        "run",
        "--no-code-cache",
        "--allow-all",
        join(import.meta.dirname!, "..", "..", "main.ts"),
        "backup",
        full,
      ],
      env: { DATA_DIR: fixture.dataDir, NO_COLOR: "1" },
    }).output();
    const stderr = new TextDecoder().decode(child.stderr).trim().split("\n");
    assert.notEqual(child.code, 0);
    assert.equal(stderr.length, 1, stderr.join("\n"));
    assert.match(stderr[0]!, /^Cannot back up: /);
    assert.deepEqual(await listDir(dir), ["data", "nothing", "taken.tar.gz"]);
  });
});

Deno.test({
  name: "a stored file deleted between the snapshot and its copy is left out and named",
  ignore: ON_POSTGRES, // backup and restore of SQLite's file (on PostgreSQL: pg_dump)
}, async () => {
  await withTempDir(async (dir) => {
    const fixture = await copyOfFixture(dir);
    // As if the file were deleted right after the snapshot: its row is live, its bytes gone.
    const db = new DatabaseSync(join(fixture.dataDir, "collab.db"), { readOnly: true });
    const { stored_name } = db.prepare("SELECT stored_name FROM files WHERE id = ?").get(
      fixture.files[0]!.id,
    ) as { stored_name: string };
    db.close();
    await Deno.remove(join(fixture.dataDir, "files", stored_name));

    const archive = join(dir, "b.tar.gz");
    const made = await runMain(["backup", archive], { DATA_DIR: fixture.dataDir });
    assert.equal(made.code, 0, made.stderr.join("\n"));
    assert.ok(
      made.stdout.includes(
        `note: files/${stored_name} was deleted after the snapshot was taken: left out`,
      ),
      made.stdout.join("\n"),
    );
    const restoredDir = join(dir, "restored");
    assert.equal((await runMain(["restore", archive, "--data-dir", restoredDir])).code, 0);
    const server = await startServer(restoredDir);
    try {
      const caller = { baseUrl: server.baseUrl, cookie: fixture.cookie };
      assert.equal((await download(caller, fixture.files[0]!.id)).status, 404);
      assert.deepEqual(
        (await download(caller, fixture.files[1]!.id)).bytes,
        fixture.files[1]!.bytes,
      );
    } finally {
      await server.stop();
    }
  });
});

/** Writes a tar.gz of `entries` (name and bytes) with the backup's own tar writer. */
async function craftArchive(path: string, entries: Array<[string, Uint8Array]>): Promise<void> {
  const parts: Uint8Array[] = [];
  for (const [name, bytes] of entries) {
    parts.push(entryHeader({ name, size: bytes.length, mtime: 0, mode: 0o600 }), bytes);
    parts.push(padding(bytes.length));
  }
  parts.push(endOfArchive());
  const gz = new Blob(parts as Uint8Array<ArrayBuffer>[]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  await Deno.writeFile(path, gz);
}

Deno.test("restore refuses entries that would land outside the data directory, and links", async () => {
  await withTempDir(async (dir) => {
    const hostile = join(dir, "hostile.tar.gz");
    for (const name of ["../escaped.txt", "/tmp/absolute.txt", "files/../../x.txt", ".hidden"]) {
      await craftArchive(hostile, [["collab.db", new Uint8Array(10)], [name, new Uint8Array(3)]]);
      assertFailedInOneLine(
        await runMain(["restore", hostile, "--data-dir", join(dir, "target")]),
        /^Cannot restore: .* is damaged, nothing was restored: it holds an entry that no backup has: /,
      );
      await Deno.remove(hostile);
    }
    // A symbolic link, written by the system's tar.
    await Deno.mkdir(join(dir, "src", "files"), { recursive: true });
    await Deno.symlink("/etc/passwd", join(dir, "src", "files", "link"));
    const tar = await new Deno.Command("tar", {
      args: ["-czf", hostile, "-C", join(dir, "src"), "files/link"],
    }).output();
    assert.equal(tar.code, 0);
    assertFailedInOneLine(
      await runMain(["restore", hostile, "--data-dir", join(dir, "target")]),
      /^Cannot restore: .* is damaged, nothing was restored: files\/link is a symbolic link$/,
    );
    assert.deepEqual(await listDir(dir), ["hostile.tar.gz", "src"]);
    assert.equal(await exists(join(dir, "..", "escaped.txt")), false);
  });
});

Deno.test({
  name: "restore refuses a backup from a newer server, whose migrations this one lacks",
  ignore: ON_POSTGRES, // backup and restore of SQLite's file (on PostgreSQL: pg_dump)
}, async () => {
  await withTempDir(async (dir) => {
    const fixture = await copyOfFixture(dir);
    const db = new DatabaseSync(join(fixture.dataDir, "collab.db"));
    db.prepare(
      "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
    ).run(999, "from_the_future", "0".repeat(64), "2030-01-01T00:00:00.000Z");
    db.close();
    const archive = join(dir, "future.tar.gz");
    assert.equal((await runMain(["backup", archive], { DATA_DIR: fixture.dataDir })).code, 0);
    assert.equal((await runMain(["backup", "--verify", archive])).code, 0);
    assertFailedInOneLine(
      await runMain(["restore", archive, "--data-dir", join(dir, "target")]),
      /^Cannot restore: the backup was made by a newer server \(migration 999_from_the_future is unknown here\)/,
    );
    assert.equal(await exists(join(dir, "target")), false);
  });
});

Deno.test("the commands explain a wrong command line and exit 2", async () => {
  for (
    const [args, pattern] of [
      [["frobnicate"], /^Cannot run "frobnicate": there is no such command$/],
      [["backup"], /^Cannot run backup: name exactly one file/],
      [["restore", "a.tar.gz", "--verify"], /^Cannot run restore: unknown option --verify$/],
      [["backup", "--verify", "a", "--data-dir", "d"], /^Cannot run backup --verify: /],
    ] as const
  ) {
    const result = await runMain([...args]);
    assert.equal(result.code, 2, result.stderr.join("\n"));
    assert.equal(result.stderr.length, 1, result.stderr.join("\n"));
    assert.match(result.stderr[0]!, pattern);
    assert.match(result.stdout.join("\n"), /usage: main\.ts/);
  }
});
