/**
 * Mail through a real SMTP server (tests/helpers/smtp.ts): the admin's test mail and list,
 * the retry schedule on an injected clock, refusals, a server that is down, a restart between
 * queueing and sending, header injection, and STARTTLS. The sender is driven tick by tick
 * (`runOnce`) with the clock moved in between: nothing sleeps.
 */
import assert from "node:assert/strict";
import { claimDueMails, findMail } from "../../db/mail/outbox.ts";
import { queueMail } from "../../domain/mail/outbox.ts";
import { MailSender, RETRY_DELAYS_MS } from "../../domain/mail/sender.ts";
import { smtpTransport } from "../../domain/mail/smtp_transport.ts";
import { type TestApp, testApp } from "../helpers/app.ts";
import { api, expectError, expectJson, signUp } from "../helpers/api.ts";
import { freePort, startSmtp, type TestSmtp, tlsCertificate } from "../helpers/smtp.ts";

const BASE_URL = "https://collab.example.org:8443";

async function mailApp(smtp: TestSmtp | string, extra: Record<string, string> = {}) {
  const url = typeof smtp === "string" ? smtp : smtp.url;
  return await testApp({
    env: { BASE_URL, SMTP_URL: url, ...extra },
    mail: { connectionTimeoutMs: 2_000, greetingTimeoutMs: 2_000, socketTimeoutMs: 5_000 },
  });
}

async function queueTest(t: TestApp, cookie: string, to = "ada@example.org"): Promise<number> {
  const res = await api(t, "POST", "/api/admin/mail/test", { cookie, body: { to } });
  return expectJson(res, 202).id;
}

/** How many stored contents mail `id` has (1 until its last attempt, then 0). */
async function bodies(t: TestApp, id: number): Promise<number> {
  const row = await t.engine.read((q) =>
    q.get<{ n: number | bigint }>("SELECT count(*) AS n FROM mail_bodies WHERE mail_id = ?", [id])
  );
  return Number(row!.n);
}

async function outbox(t: TestApp, cookie: string) {
  return expectJson(await api(t, "GET", "/api/admin/mail", { cookie }), 200);
}

Deno.test("a test mail through the API arrives with text and HTML parts, Message-ID on BASE_URL's host and Auto-Submitted", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    const admin = await signUp(t, "root@example.com");
    const id = await queueTest(t, admin.cookie);
    const queued = await outbox(t, admin.cookie);
    assert.equal(queued.total, 1);
    assert.equal(queued.items[0].status, "pending");
    assert.equal(await t.app.services.mailSender.runOnce(), 1);
    assert.equal(smtp.received.length, 1);
    const { parsed, rcptTo } = smtp.received[0]!;
    assert.deepEqual(rcptTo, ["ada@example.org"]);
    assert.match(parsed.text ?? "", /test mail from Collab/);
    assert.match(String(parsed.html), /<p>This is a test mail from Collab/);
    assert.match(parsed.messageId ?? "", /^<[0-9a-f]{32}@collab\.example\.org>$/);
    assert.equal(parsed.headers.get("auto-submitted"), "auto-generated");
    assert.equal(parsed.from?.value[0]?.address, "no-reply@collab.example.org");
    assert.equal(parsed.from?.value[0]?.name, "Collab");
    const page = await outbox(t, admin.cookie);
    assert.deepEqual(Object.keys(page).sort(), ["hasMore", "items", "page", "pageSize", "total"]);
    assert.deepEqual(page.items, [{
      id,
      to: "ada@example.org",
      kind: "test",
      subject: "Collab test mail",
      status: "sent",
      attempts: 1,
      lastError: null,
      createdAt: t.clock.now().toISOString(),
      sentAt: t.clock.now().toISOString(),
    }]);
    // The stored Message-ID is the one that went out.
    assert.equal((await findMail(t.engine, id))!.messageId, parsed.messageId);
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("the mail admin API: newest first, admins only (403), 400 for a malformed address, 409 conflict when mail is off", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  const off = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const member = await signUp(t, "bob@example.com");
    const first = await queueTest(t, admin.cookie, "a@example.org");
    const second = await queueTest(t, admin.cookie, "b@example.org");
    assert.deepEqual((await outbox(t, admin.cookie)).items.map((m: { id: number }) => m.id), [
      second,
      first,
    ]);
    expectError(
      await api(t, "GET", "/api/admin/mail", { cookie: member.cookie }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "POST", "/api/admin/mail/test", {
        cookie: member.cookie,
        body: { to: "x@example.org" },
      }),
      403,
      "forbidden",
    );
    for (
      const to of [
        "not an address",
        "a@example.org\r\nBcc: evil@example.net",
        "a@example.org, evil@example.net",
        "Ada <a@example.org>",
        "a@example.org\nX: y",
        "",
      ]
    ) {
      expectError(
        await api(t, "POST", "/api/admin/mail/test", { cookie: admin.cookie, body: { to } }),
        400,
        "validation",
      );
    }
    assert.equal((await outbox(t, admin.cookie)).total, 2, "a refused address queues nothing");
    // Mail off (no SMTP_URL): a clear conflict, nothing queued.
    const offAdmin = await signUp(off, "root@example.com");
    expectError(
      await api(off, "POST", "/api/admin/mail/test", {
        cookie: offAdmin.cookie,
        body: { to: "a@example.org" },
      }),
      409,
      "conflict",
    );
    assert.equal((await outbox(off, offAdmin.cookie)).total, 0);
  } finally {
    await off.close();
    await t.close();
    await smtp.close();
  }
});

Deno.test("a 4xx refusal is retried after a minute and the mail is sent once", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    const admin = await signUp(t, "root@example.com");
    let refusals = 1;
    smtp.refuse = () => refusals-- > 0 ? { code: 451, message: "Try again later" } : null;
    const id = await queueTest(t, admin.cookie);
    const sender = t.app.services.mailSender;
    assert.equal(await sender.runOnce(), 1);
    let mail = (await findMail(t.engine, id))!;
    assert.equal(mail.status, "pending");
    assert.equal(mail.attempts, 1);
    assert.match(mail.lastError ?? "", /451/);
    assert.equal(mail.nextAttemptAt, new Date(t.clock.now().getTime() + 60_000).toISOString());
    // Not due before its minute.
    t.clock.advance(59_000);
    assert.equal(await sender.runOnce(), 0);
    t.clock.advance(1_000);
    assert.equal(await sender.runOnce(), 1);
    mail = (await findMail(t.engine, id))!;
    assert.equal(mail.status, "sent");
    assert.equal(mail.attempts, 2);
    assert.equal(smtp.received.length, 1);
    assert.equal(smtp.attempts, 2);
    t.clock.advance(24 * 3_600_000);
    assert.equal(await sender.runOnce(), 0, "a sent mail is never sent again");
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("4xx refusals are retried after 1 min, 5 min, 15 min, 1 h, 3 h and 6 h, then the mail fails", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    const admin = await signUp(t, "root@example.com");
    smtp.refuse = () => ({ code: 421, message: "Service not available" });
    const id = await queueTest(t, admin.cookie);
    const sender = t.app.services.mailSender;
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 7; attempt++) {
      assert.equal(await sender.runOnce(), 1, `attempt ${attempt}`);
      const mail = (await findMail(t.engine, id))!;
      assert.equal(mail.attempts, attempt);
      if (attempt < 7) {
        assert.equal(mail.status, "pending");
        const wait = Date.parse(mail.nextAttemptAt!) - t.clock.now().getTime();
        waits.push(wait);
        t.clock.advance(wait);
      } else {
        assert.equal(mail.status, "failed");
        assert.equal(mail.nextAttemptAt, null);
      }
    }
    assert.deepEqual(waits, [60_000, 300_000, 900_000, 3_600_000, 10_800_000, 21_600_000]);
    assert.deepEqual(waits, RETRY_DELAYS_MS);
    assert.equal(smtp.received.length, 0);
    t.clock.advance(30 * 3_600_000);
    assert.equal(await sender.runOnce(), 0);
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("a 5xx refusal fails the mail at once with its reason, shown by the admin API and page state", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    const admin = await signUp(t, "root@example.com");
    smtp.refuse = () => ({ code: 550, message: "No such mailbox here" });
    const id = await queueTest(t, admin.cookie, "nobody@example.org");
    assert.equal(await t.app.services.mailSender.runOnce(), 1);
    const [item] = (await outbox(t, admin.cookie)).items;
    assert.equal(item.id, id);
    assert.equal(item.status, "failed");
    assert.equal(item.attempts, 1);
    assert.match(item.lastError, /550.*No such mailbox here/);
    assert.equal(item.sentAt, null);
    t.clock.advance(24 * 3_600_000);
    assert.equal(await t.app.services.mailSender.runOnce(), 0, "a failed mail is not retried");
    const state = await t.app.services.mail.state({ id: admin.user.id, role: "admin" });
    assert.equal(state.enabled, true);
    assert.equal(state.lastFailure?.id, id);
    assert.match(state.lastFailure?.lastError ?? "", /550/);
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("with the SMTP server down the request answers 202 at once and the mail stays pending, then goes when it is back", async () => {
  const port = freePort();
  const t = await mailApp(`smtp://127.0.0.1:${port}`);
  let smtp: TestSmtp | null = null;
  try {
    const admin = await signUp(t, "root@example.com");
    // The sender runs beside the requests, as in the server.
    t.app.services.mailSender.start();
    const id = await queueTest(t, admin.cookie);
    // A refused connection ends an attempt at once: the stop waits for it (bounded).
    await t.app.services.mailSender.stop(10_000);
    const sender = new MailSender({
      db: t.engine,
      clock: t.clock,
      presence: t.app.services.presence,
      smtp: t.config.smtp,
      from: t.config.mailFrom,
    }, { connectionTimeoutMs: 2_000, greetingTimeoutMs: 2_000 });
    // Whatever the loop did, a look now finds the server down: a network failure, retried.
    const before = (await findMail(t.engine, id))!;
    if (before.attempts === 0) assert.equal(await sender.runOnce(), 1);
    let mail = (await findMail(t.engine, id))!;
    assert.equal(mail.status, "pending");
    assert.equal(mail.attempts, 1);
    assert.match(mail.lastError ?? "", /ECONNREFUSED|connect/i);
    smtp = await startSmtp({ port });
    t.clock.advance(60_000);
    assert.equal(await sender.runOnce(), 1);
    mail = (await findMail(t.engine, id))!;
    assert.equal(mail.status, "sent");
    assert.equal(smtp.received.length, 1);
    await sender.stop();
  } finally {
    await t.close();
    await smtp?.close();
  }
});

Deno.test("a restart between queueing and sending: the mail, even one cut short mid-attempt, goes once with its Message-ID", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    const admin = await signUp(t, "root@example.com");
    const queuedOnly = await queueTest(t, admin.cookie, "a@example.org");
    const inFlight = await queueTest(t, admin.cookie, "b@example.org");
    // The first run claimed one mail for an attempt and died (on PostgreSQL: its instance
    // number is no longer held; on SQLite: one process, claims are let go at start).
    const dead = t.engine.kind === "postgres" ? 2_000_000_001 : null;
    await t.engine.transaction((tx) =>
      claimDueMails(tx, {
        now: t.clock.now().toISOString(),
        limit: 1,
        leaseUntil: new Date(t.clock.now().getTime() + 600_000).toISOString(),
        owner: dead,
      })
    );
    await t.app.services.mailSender.stop();
    // The next run: a new sender over the same database.
    const restarted = new MailSender({
      db: t.engine,
      clock: t.clock,
      presence: t.app.services.presence,
      smtp: t.config.smtp,
      from: t.config.mailFrom,
    });
    assert.equal(await restarted.runOnce(), 2);
    assert.equal(await restarted.runOnce(), 0);
    await restarted.stop();
    assert.deepEqual(smtp.received.map((r) => r.rcptTo[0]).sort(), [
      "a@example.org",
      "b@example.org",
    ]);
    for (const id of [queuedOnly, inFlight]) {
      const mail = (await findMail(t.engine, id))!;
      assert.equal(mail.status, "sent");
      const got = smtp.received.find((r) => r.rcptTo[0] === mail.to)!;
      assert.equal(got.parsed.messageId, mail.messageId);
    }
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("header injection: CR/LF in subjects and header values is flattened, bad names and addresses refused", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    const host = "collab.example.org";
    const now = t.clock.now();
    await t.engine.transaction((tx) =>
      queueMail(tx, {
        to: "ada@example.org",
        kind: "test\r\nBcc: evil@example.net",
        subject: "Hello\r\nBcc: evil@example.net\r\n\r\nInjected body",
        text: "body",
        html: "<p>body</p>",
        headers: { "In-Reply-To": "<x@y>\r\nBcc: evil@example.net" },
      }, { now, host })
    );
    for (const to of ["ada@example.org\r\nBcc: evil@example.net", "a@b,c@d", "x"]) {
      await assert.rejects(
        t.engine.transaction((tx) =>
          queueMail(tx, { to, kind: "test", subject: "s", text: "t", html: "h" }, { now, host })
        ),
        (e: { code?: string }) => e.code === "validation",
      );
    }
    for (const name of ["Bcc", "X-Evil\r\nBcc", "Bad Name", "Subject"]) {
      await assert.rejects(
        t.engine.transaction((tx) =>
          queueMail(tx, {
            to: "ada@example.org",
            kind: "test",
            subject: "s",
            text: "t",
            html: "h",
            headers: { [name]: "v" },
          }, { now, host })
        ),
        (e: { code?: string }) => e.code === "validation",
      );
    }
    assert.equal(await t.app.services.mailSender.runOnce(), 1);
    assert.equal(smtp.received.length, 1);
    const { parsed, rcptTo, raw } = smtp.received[0]!;
    assert.deepEqual(rcptTo, ["ada@example.org"]);
    assert.equal(parsed.headers.get("bcc"), undefined);
    assert.ok(!/^bcc:/im.test(raw));
    assert.equal(parsed.subject, "Hello Bcc: evil@example.net Injected body");
    assert.equal(parsed.text?.trim(), "body");
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("STARTTLS: the mail goes encrypted with a trusted certificate; requireTLS refuses a server without STARTTLS", async () => {
  const tls = await tlsCertificate();
  const secure = await startSmtp({ tls });
  const plain = await startSmtp();
  const t = await testApp({
    env: { BASE_URL, SMTP_URL: secure.url },
    mail: { ca: tls.cert, connectionTimeoutMs: 2_000, greetingTimeoutMs: 2_000 },
  });
  try {
    const admin = await signUp(t, "root@example.com");
    await queueTest(t, admin.cookie);
    assert.equal(await t.app.services.mailSender.runOnce(), 1);
    assert.equal(secure.received.length, 1);
    assert.equal(secure.received[0]!.secure, true, "upgraded with STARTTLS");
    // A non-loopback smtp:// server must upgrade (`requireTls`): one that offers no STARTTLS
    // gets no mail.
    const envelope = {
      from: "no-reply@collab.example.org",
      to: "ada@example.org",
      subject: "s",
      text: "t",
      html: "<p>h</p>",
      messageId: "<1@collab.example.org>",
      headers: {},
    };
    const required = {
      host: "127.0.0.1",
      secure: false,
      requireTls: true,
      user: null,
      password: null,
    };
    const toPlain = smtpTransport({ ...required, port: plain.port }, { ca: tls.cert });
    await assert.rejects(toPlain.send(envelope));
    toPlain.close();
    assert.equal(plain.received.length, 0);
    const toSecure = smtpTransport({ ...required, port: secure.port }, { ca: tls.cert });
    await toSecure.send(envelope);
    toSecure.close();
    assert.equal(secure.received.length, 2);
    assert.equal(secure.received[1]!.secure, true);
    // An untrusted certificate is refused.
    const untrusted = smtpTransport({ ...required, port: secure.port });
    await assert.rejects(untrusted.send(envelope));
    untrusted.close();
    assert.equal(secure.received.length, 2);
  } finally {
    await t.close();
    await secure.close();
    await plain.close();
  }
});

Deno.test("the admin page shows whether mail is on, the outbox and the last failure, in English and Japanese", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  const off = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    smtp.refuse = () => ({ code: 550, message: "Mailbox unavailable" });
    const failed = await queueTest(t, admin.cookie, "gone@example.org");
    assert.equal(await t.app.services.mailSender.runOnce(), 1);
    smtp.refuse = null;
    const pending = await queueTest(t, admin.cookie, "ada@example.org");
    const page = async (app: TestApp, cookie: string) => {
      const res = await app.app.request("/admin", { headers: { cookie } });
      assert.equal(res.status, 200);
      return await res.text();
    };
    let html = await page(t, admin.cookie);
    assert.match(html, /data-mail-enabled="true"/);
    assert.match(html, /Mail is on/);
    assert.match(html, new RegExp(`data-mail-last-failure="${failed}"`));
    assert.match(html, /gone@example\.org: 550[^<]*Mailbox unavailable/);
    assert.match(html, new RegExp(`data-mail="${failed}" data-mail-status="failed"`));
    assert.match(html, new RegExp(`data-mail="${pending}" data-mail-status="pending"`));
    assert.ok(html.indexOf(`data-mail="${pending}"`) < html.indexOf(`data-mail="${failed}"`));
    expectJson(
      await api(t, "PATCH", "/api/users/me", { cookie: admin.cookie, body: { locale: "ja" } }),
      200,
    );
    html = await page(t, admin.cookie);
    assert.match(html, /メール送信は有効です/);
    assert.match(html, /最後の送信失敗/);
    assert.match(html, /送信待ち/);
    const offAdmin = await signUp(off, "root@example.com");
    html = await page(off, offAdmin.cookie);
    assert.match(html, /data-mail-enabled="false"/);
    assert.match(html, /Mail is off/);
    assert.doesNotMatch(html, /data-mail-last-failure/);
  } finally {
    await off.close();
    await t.close();
    await smtp.close();
  }
});

Deno.test("two senders on one outbox (two instances) send each mail once", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    const now = t.clock.now();
    for (let i = 0; i < 12; i++) {
      await t.engine.transaction((tx) =>
        queueMail(tx, {
          to: `user${i}@example.org`,
          kind: "test",
          subject: `mail ${i}`,
          text: "t",
          html: "<p>h</p>",
        }, { now, host: "collab.example.org" })
      );
    }
    const sender = () =>
      new MailSender({
        db: t.engine,
        clock: t.clock,
        presence: t.app.services.presence,
        smtp: t.config.smtp,
        from: t.config.mailFrom,
      }, { batch: 4 });
    const [a, b] = [sender(), sender()];
    let total = 0;
    for (let round = 0; round < 3; round++) {
      const [x, y] = await Promise.all([a.runOnce(), b.runOnce()]);
      total += x + y;
    }
    await a.stop();
    await b.stop();
    assert.equal(total, 12);
    const to = smtp.received.map((r) => r.rcptTo[0]).sort();
    assert.equal(to.length, 12);
    assert.equal(new Set(to).size, 12, "no mail sent twice");
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("on its worker thread (as the server runs it) the sender sends, retries a 4xx, fails a 5xx with its reason, and stops", async () => {
  const smtp = await startSmtp();
  const t = await testApp({
    env: { BASE_URL, SMTP_URL: smtp.url },
    mail: {
      inWorker: true,
      connectionTimeoutMs: 2_000,
      greetingTimeoutMs: 2_000,
      socketTimeoutMs: 5_000,
    },
  });
  try {
    const admin = await signUp(t, "root@example.com");
    const sender = t.app.services.mailSender;
    const sent = await queueTest(t, admin.cookie);
    assert.equal(await sender.runOnce(), 1);
    assert.equal((await findMail(t.engine, sent))!.status, "sent");
    assert.equal(smtp.received.length, 1);
    assert.equal(smtp.received[0]!.parsed.messageId, (await findMail(t.engine, sent))!.messageId);
    assert.equal(await bodies(t, sent), 0, "a sent mail's contents are gone");

    smtp.refuse = () => ({ code: 451, message: "Greylisted, come back later" });
    const retried = await queueTest(t, admin.cookie);
    assert.equal(await sender.runOnce(), 1);
    const pending = (await findMail(t.engine, retried))!;
    assert.equal(pending.status, "pending");
    assert.match(pending.lastError ?? "", /451.*Greylisted/);
    assert.equal(await bodies(t, retried), 1, "a mail to retry keeps its contents");

    smtp.refuse = () => ({ code: 550, message: "No such mailbox here" });
    t.clock.advance(60_000);
    assert.equal(await sender.runOnce(), 1);
    const failed = (await findMail(t.engine, retried))!;
    assert.equal(failed.status, "failed", "the 5xx code crossed from the worker");
    assert.match(failed.lastError ?? "", /550.*No such mailbox here/);
    assert.equal(await bodies(t, retried), 0, "a mail failed for good keeps no contents");
  } finally {
    await t.close();
    await smtp.close();
  }
});
