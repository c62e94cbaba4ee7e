/**
 * Notification mail through a real SMTP server (tests/helpers/smtp.ts): the mail of a mention,
 * an assignment or an invitation still unread MAIL_DELAY_SECONDS later (headers, both parts,
 * threading, language and zone), one mail for the window, nothing for what was read or can no
 * longer be seen, never twice; the daily digest at the user's local hour, grouped by project;
 * the unsubscribe link; the settings' validation. The sender is driven tick by tick
 * (`runOnce`, which composes before it sends) with the injected clock moved in between.
 */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  addMember,
  api,
  createProject,
  createTodo,
  expectError,
  expectJson,
  getJson,
  sendChat,
  signUp,
} from "../helpers/api.ts";
import { type Received, startSmtp, type TestSmtp } from "../helpers/smtp.ts";

const BASE_URL = "https://collab.example.org:8443";
const HOST = "collab.example.org";

async function mailApp(smtp: TestSmtp) {
  return await testApp({
    env: { BASE_URL, SMTP_URL: smtp.url },
    mail: { connectionTimeoutMs: 2_000, greetingTimeoutMs: 2_000, socketTimeoutMs: 5_000 },
  });
}

/** One sender tick (composing first); returns the mails that arrived in it. */
async function tick(t: TestApp, smtp: TestSmtp): Promise<Received[]> {
  const before = smtp.received.length;
  await t.app.services.mailSender.runOnce();
  return smtp.received.slice(before);
}

const header = (mail: Received, name: string) => {
  const value = mail.parsed.headers.get(name);
  return typeof value === "string" ? value : JSON.stringify(value);
};

/** The raw header line's value (mailparser turns some headers into objects). */
function rawHeader(mail: Received, name: string): string | null {
  const head = mail.raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, " ");
  const line = head.split(/\r?\n/).find((l) =>
    l.toLowerCase().startsWith(`${name.toLowerCase()}:`)
  );
  return line === undefined ? null : line.slice(name.length + 1).trim();
}

async function patchMe(t: TestApp, cookie: string, body: Record<string, unknown>) {
  return await api(t, "PATCH", "/api/users/me", { cookie, body });
}

/** Olga owns Apollo; alice and bob are members. */
async function apollo(t: TestApp) {
  const olga = await signUp(t, "olga@example.com", { displayName: "Olga" });
  const alice = await signUp(t, "alice@example.com", { displayName: "Alice" });
  const bob = await signUp(t, "bob@example.com", { displayName: "Bob" });
  const project = await createProject(t, olga.cookie, "Apollo");
  await addMember(t, olga.cookie, project.id, "alice@example.com", "member");
  await addMember(t, olga.cookie, project.id, "bob@example.com", "member");
  return { olga, alice, bob, project };
}

Deno.test("a mention still unread after the delay is mailed once: both parts, list, unsubscribe and thread headers", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    const { olga, project } = await apollo(t);
    const message = await sendChat(
      t,
      olga.cookie,
      project.id,
      "Look @alice@example.com: **now** <script>alert(1)</script>",
    );
    t.clock.advance(119_000);
    assert.deepEqual(await tick(t, smtp), [], "not before MAIL_DELAY_SECONDS (120)");
    t.clock.advance(1_000);
    const [mail, ...more] = await tick(t, smtp);
    assert.equal(more.length, 0);
    assert.ok(mail);
    assert.deepEqual(mail.rcptTo, ["alice@example.com"]);
    assert.equal(mail.parsed.subject, "[Apollo] Olga mentioned you in chat");
    const link = `${BASE_URL}/projects/${project.id}/chat#message-${message.id}`;
    const text = mail.parsed.text ?? "";
    assert.match(text, /Olga mentioned you in chat — Nov 22, 2026, 8:30 AM \(UTC\)/);
    assert.ok(text.includes(link), text);
    assert.match(text, /now/);
    const html = String(mail.parsed.html);
    assert.ok(html.includes("<strong>now</strong>"), "Markdown rendered");
    assert.ok(!html.includes("<script>"), "raw HTML escaped");
    assert.ok(html.includes("&lt;script&gt;"));
    assert.ok(html.includes(`href="${link}"`));
    assert.equal(header(mail, "auto-submitted"), "auto-generated");
    assert.equal(rawHeader(mail, "In-Reply-To"), `<chat-${project.id}@${HOST}>`);
    assert.equal(rawHeader(mail, "References"), `<chat-${project.id}@${HOST}>`);
    assert.equal(rawHeader(mail, "List-Id"), `<project-${project.id}.${HOST}>`);
    const unsubscribe = rawHeader(mail, "List-Unsubscribe")!;
    assert.match(
      unsubscribe,
      /^<https:\/\/collab\.example\.org:8443\/unsubscribe\/[A-Za-z0-9_-]{43}>$/,
    );
    assert.equal(rawHeader(mail, "List-Unsubscribe-Post"), "List-Unsubscribe=One-Click");
    assert.ok(html.includes(unsubscribe.slice(1, -1)), "the HTML part links the unsubscribe page");
    assert.match(mail.parsed.messageId ?? "", new RegExp(`@${HOST.replace(/\./g, "\\.")}>$`));
    // Not repeated: later ticks send nothing more.
    t.clock.advance(3_600_000);
    assert.deepEqual(await tick(t, smtp), []);
    assert.equal(smtp.received.length, 1);
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("two recipients get their own language and zone; an assignment threads on its to-do; a title cannot add a header", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    const { olga, alice, bob, project } = await apollo(t);
    expectJson(await patchMe(t, alice.cookie, { locale: "ja", timeZone: "Asia/Tokyo" }), 200);
    expectJson(await patchMe(t, bob.cookie, { timeZone: "America/New_York" }), 200);
    const meeting = expectJson(
      await api(t, "POST", `/api/projects/${project.id}/meetings`, {
        cookie: olga.cookie,
        body: {
          title: "Sync",
          startAt: "2026-12-01T10:00:00Z",
          endAt: "2026-12-01T11:00:00Z",
          inviteeIds: [alice.user.id, bob.user.id],
        },
      }),
      201,
    ).meeting;
    t.clock.advance(120_000);
    const mails = await tick(t, smtp);
    assert.equal(mails.length, 2);
    const toAlice = mails.find((m) => m.rcptTo[0] === "alice@example.com")!;
    const toBob = mails.find((m) => m.rcptTo[0] === "bob@example.com")!;
    assert.equal(toAlice.parsed.subject, "[Apollo] Olga さんが「Sync」にあなたを招待しました");
    assert.equal(toBob.parsed.subject, "[Apollo] Olga invited you to Sync");
    // The meeting's time in each reader's zone, the zone named beside it.
    assert.match(toAlice.parsed.text ?? "", /日時: 2026\/12\/01 19:00 \(Asia\/Tokyo\)/);
    assert.match(toBob.parsed.text ?? "", /When: Dec 1, 2026, 5:00 AM \(America\/New_York\)/);
    assert.match(String(toAlice.parsed.html), /<html lang="ja">/);
    assert.match(toAlice.parsed.text ?? "", /通知メールを止める/);
    for (const mail of mails) {
      assert.equal(rawHeader(mail, "In-Reply-To"), `<item-meeting-${meeting.id}@${HOST}>`);
      assert.ok(
        (mail.parsed.text ?? "").includes(
          `${BASE_URL}/projects/${project.id}/meetings/${meeting.id}`,
        ),
      );
    }

    const evil = "Plan\r\nBcc: evil@example.net\r\nX-Injected: yes";
    const res = await api(t, "POST", `/api/projects/${project.id}/todos/items`, {
      cookie: olga.cookie,
      body: { title: evil, assigneeId: bob.user.id },
    });
    const item = res.status === 201 ? res.json.item : await createTodo(t, olga.cookie, project.id, {
      title: "Plan Bcc: evil@example.net",
      assigneeId: bob.user.id,
    });
    t.clock.advance(120_000);
    const [assigned, ...rest] = await tick(t, smtp);
    assert.equal(rest.length, 0);
    assert.deepEqual(assigned!.rcptTo, ["bob@example.com"], "no Bcc reached the envelope");
    assert.equal(rawHeader(assigned!, "Bcc"), null);
    assert.equal(rawHeader(assigned!, "X-Injected"), null);
    assert.match(assigned!.parsed.subject ?? "", /^\[Apollo\] Olga assigned you to Plan/);
    assert.equal(rawHeader(assigned!, "In-Reply-To"), `<item-todo-${item.id}@${HOST}>`);
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("the window: two mentions go in one mail, nothing for one read meanwhile or for a member removed meanwhile", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    const { olga, alice, bob, project } = await apollo(t);
    await sendChat(t, olga.cookie, project.id, "first @alice@example.com");
    t.clock.advance(30_000);
    await sendChat(t, olga.cookie, project.id, "second @alice@example.com");
    t.clock.advance(10_000);
    await sendChat(t, olga.cookie, project.id, "third @alice@example.com and @bob@example.com");
    // Alice reads the third; Bob is removed from the project before the delay is over.
    const unread = await getJson(t, alice.cookie, "/api/notifications");
    const third = unread.items.find((n: { text: string }) => n.text.startsWith("third"));
    expectJson(
      await api(t, "POST", `/api/notifications/${third.id}/read`, { cookie: alice.cookie }),
      200,
    );
    const removed = await api(t, "DELETE", `/api/projects/${project.id}/members/${bob.user.id}`, {
      cookie: olga.cookie,
    });
    assert.equal(removed.status, 204);
    t.clock.advance(79_000);
    assert.deepEqual(await tick(t, smtp), [], "the first is not due yet");
    t.clock.advance(1_000);
    const mails = await tick(t, smtp);
    assert.equal(mails.length, 1, "one mail, for Alice only");
    const [mail] = mails;
    assert.deepEqual(mail!.rcptTo, ["alice@example.com"]);
    assert.equal(mail!.parsed.subject, "[Apollo] 2 new notifications");
    const text = mail!.parsed.text ?? "";
    assert.match(text, /first/);
    assert.match(text, /second/);
    assert.doesNotMatch(text, /third/);
    t.clock.advance(600_000);
    assert.deepEqual(await tick(t, smtp), [], "nothing later either");
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("the daily digest comes at the user's local hour, grouped by project, without what was mailed at once, and not when empty", async () => {
  const smtp = await startSmtp();
  // 2026-11-22T08:30Z is 17:30 in Tokyo: the next 09:00 there is 2026-11-23T00:00Z.
  const t = await mailApp(smtp);
  try {
    const { olga, alice, bob, project } = await apollo(t);
    const beta = await createProject(t, olga.cookie, "Beta");
    expectJson(
      await patchMe(t, alice.cookie, {
        emailNotifications: "daily",
        digestHour: 9,
        timeZone: "Asia/Tokyo",
      }),
      200,
    );
    expectJson(await patchMe(t, bob.cookie, { timeZone: "Asia/Tokyo" }), 200);
    assert.deepEqual(await tick(t, smtp), [], "the first tick schedules the digests");
    t.clock.advance(60_000);
    // For both: a mention and an assignment in Apollo, being added to Beta (another kind).
    await sendChat(t, olga.cookie, project.id, "hi @alice@example.com @bob@example.com");
    await createTodo(t, olga.cookie, project.id, { title: "Alpha", assigneeId: alice.user.id });
    await createTodo(t, olga.cookie, project.id, { title: "Bravo", assigneeId: bob.user.id });
    await addMember(t, olga.cookie, beta.id, "alice@example.com", "member");
    await addMember(t, olga.cookie, beta.id, "bob@example.com", "member");
    t.clock.advance(120_000);
    const immediate = await tick(t, smtp);
    assert.deepEqual(immediate.map((m) => m.rcptTo[0]), ["bob@example.com"], "daily waits");
    assert.equal(immediate[0]!.parsed.subject, "[Apollo] 2 new notifications");

    t.clock.set("2026-11-22T23:59:00.000Z");
    assert.deepEqual(await tick(t, smtp), [], "08:59 in Tokyo: not yet");
    // A mention of Bob just before his digest is left to the immediate mail.
    t.clock.set("2026-11-22T23:59:30.000Z");
    await sendChat(t, olga.cookie, project.id, "late @bob@example.com");
    t.clock.set("2026-11-23T00:00:00.000Z");
    const digests = await tick(t, smtp);
    assert.equal(digests.length, 2);
    const toAlice = digests.find((m) => m.rcptTo[0] === "alice@example.com")!;
    const toBob = digests.find((m) => m.rcptTo[0] === "bob@example.com")!;
    assert.equal(toAlice.parsed.subject, "Daily digest: 3 unread notifications");
    const text = toAlice.parsed.text ?? "";
    const apolloAt = text.indexOf("== Apollo ==");
    const betaAt = text.indexOf("== Beta ==");
    assert.ok(apolloAt >= 0 && betaAt > apolloAt, text);
    assert.ok(text.indexOf("Olga mentioned you in chat") > apolloAt);
    assert.ok(text.indexOf("Olga assigned you to Alpha") > apolloAt);
    assert.ok(text.indexOf("You were added to a project") > betaAt);
    assert.match(text, /\(Asia\/Tokyo\)/);
    assert.match(String(toAlice.parsed.html), /<h2>Apollo<\/h2>/);
    assert.ok(rawHeader(toAlice, "List-Unsubscribe"));
    assert.equal(rawHeader(toAlice, "List-Unsubscribe-Post"), "List-Unsubscribe=One-Click");
    // Bob (immediate): only the kind not mailed at once.
    assert.equal(toBob.parsed.subject, "[Beta] Daily digest: 1 unread notification");
    assert.doesNotMatch(toBob.parsed.text ?? "", /Bravo|mentioned/);
    t.clock.set("2026-11-23T00:01:30.000Z");
    const late = await tick(t, smtp);
    assert.deepEqual(late.map((m) => m.rcptTo[0]), ["bob@example.com"]);
    assert.match(late[0]!.parsed.text ?? "", /late/);

    // The next day nothing new arrived: no digest.
    t.clock.set("2026-11-24T00:00:00.000Z");
    assert.deepEqual(await tick(t, smtp), []);
    // Then a notification Alice reads before the digest: still none.
    await createTodo(t, olga.cookie, project.id, { title: "Charlie", assigneeId: alice.user.id });
    expectJson(await api(t, "POST", "/api/notifications/read-all", { cookie: alice.cookie }), 200);
    t.clock.set("2026-11-25T00:00:00.000Z");
    assert.deepEqual(await tick(t, smtp), []);
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("the unsubscribe link: the GET page has the button, a one-click POST without a session turns mail off, any token gets the same answer, the log shows the route", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    const { olga, alice, project } = await apollo(t);
    await sendChat(t, olga.cookie, project.id, "ping @alice@example.com");
    t.clock.advance(120_000);
    const [mail] = await tick(t, smtp);
    const url = new URL(rawHeader(mail!, "List-Unsubscribe")!.slice(1, -1));
    const token = url.pathname.split("/")[2]!;

    const page = await api(t, "GET", url.pathname);
    assert.equal(page.status, 200);
    assert.ok(page.text.includes(`action="/unsubscribe/${token}"`), page.text);
    assert.match(page.text, /<button type="submit">Stop notification mail<\/button>/);
    const ja = await api(t, "GET", url.pathname, { headers: { "accept-language": "ja,en;q=0.5" } });
    assert.match(ja.text, /通知メールを停止する/);

    const unknownPath = "/unsubscribe/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    const unknown = await api(t, "POST", unknownPath, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      raw: "List-Unsubscribe=One-Click",
    });
    const post = await api(t, "POST", url.pathname, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      raw: "List-Unsubscribe=One-Click",
    });
    assert.equal(post.status, 200);
    assert.equal(unknown.status, post.status);
    assert.equal(unknown.text, post.text, "an unknown token gets the same answer");
    const me = expectJson(await api(t, "GET", "/api/auth/me", { cookie: alice.cookie }), 200);
    assert.equal(me.user.emailNotifications, "off");
    // The link keeps working, and nothing more is mailed.
    expectJson(await patchMe(t, alice.cookie, { emailNotifications: "immediate" }), 200);
    assert.equal((await api(t, "POST", url.pathname)).status, 200);
    assert.equal(
      expectJson(await api(t, "GET", "/api/auth/me", { cookie: alice.cookie }), 200).user
        .emailNotifications,
      "off",
    );
    await sendChat(t, olga.cookie, project.id, "again @alice@example.com");
    t.clock.advance(120_000);
    assert.deepEqual(await tick(t, smtp), []);
    // The request log names the route, never the token.
    assert.ok(t.logs.some((l) => l.startsWith("POST /unsubscribe/:token 200")), t.logs.join("\n"));
    assert.ok(t.logs.some((l) => l.startsWith("GET /unsubscribe/:token 200")));
    assert.ok(!t.logs.some((l) => l.includes(token)), "no token in the log");
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("PATCH /api/users/me: emailNotifications and digestHour default, change, and refuse bad values with 400 changing nothing", async () => {
  const t = await testApp();
  try {
    const ada = await signUp(t, "ada@example.com");
    assert.equal(ada.user.emailNotifications, "immediate");
    assert.equal(ada.user.digestHour, 9);
    for (
      const body of [
        { emailNotifications: "weekly" },
        { emailNotifications: null },
        { digestHour: 24 },
        { digestHour: -1 },
        { digestHour: 9.5 },
        { digestHour: "9" },
        { emailNotifications: "daily", digestHour: 30 },
      ]
    ) {
      expectError(await patchMe(t, ada.cookie, body), 400, "validation");
    }
    const me = expectJson(await api(t, "GET", "/api/auth/me", { cookie: ada.cookie }), 200).user;
    assert.equal(me.emailNotifications, "immediate", "nothing changed");
    assert.equal(me.digestHour, 9);
    const changed = expectJson(
      await patchMe(t, ada.cookie, { emailNotifications: "daily", digestHour: 0 }),
      200,
    ).user;
    assert.equal(changed.emailNotifications, "daily");
    assert.equal(changed.digestHour, 0);
    // The settings page shows and saves them (the hour comes as text from the form).
    const page = await api(t, "GET", "/settings", { cookie: ada.cookie });
    assert.match(page.text, /name="emailNotifications"/);
    assert.match(page.text, /name="digestHour"/);
  } finally {
    await t.close();
  }
});
