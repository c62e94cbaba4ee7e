/**
 * Mail across a real restart of `main.ts`: a mail whose attempt is under way (the SMTP server
 * holds it without an answer) when the server gets SIGTERM is not lost, not counted as a
 * failure, and is sent once by the next start, with the Message-ID it was queued with.
 */
import assert from "node:assert/strict";
import { findMail } from "../../db/mail/outbox.ts";
import { removeDataDir, startServer, storedEngine } from "../helpers/main_process.ts";
import { freePort, startSmtp } from "../helpers/smtp.ts";

/** Waits (bounded) until `done()` holds; not a timing assertion, only a wait for work. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(done(), what);
}

Deno.test("a mail in flight at SIGTERM is sent once after the restart, with its Message-ID", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "mail-restart-" });
  const smtp = await startSmtp();
  const port = freePort();
  const env = {
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    SMTP_URL: smtp.url,
  };
  try {
    const first = await startServer(dataDir, env);
    const register = await fetch(`${first.baseUrl}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        email: "root@example.com",
        password: "correct horse battery",
        displayName: "Root",
      }),
    });
    assert.equal(register.status, 201, await register.text());
    const cookie = register.headers.getSetCookie()[0]!.split(";")[0]!;
    smtp.hold = true;
    const queued = await fetch(`${first.baseUrl}/api/admin/mail/test`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ to: "ada@example.org" }),
    });
    const body = await queued.text();
    assert.equal(queued.status, 202, body);
    const { id } = JSON.parse(body);
    // The attempt is under way: the server got the mail and holds its answer.
    await until(() => smtp.held === 1, "the first attempt reached the SMTP server");
    await first.stop();
    smtp.hold = false;
    const second = await startServer(dataDir, env);
    await until(() => smtp.received.length === 1, "the mail went after the restart");
    await second.stop();
    assert.equal(smtp.received.length, 1, "sent once");
    const engine = await storedEngine(dataDir);
    try {
      const mail = (await findMail(engine, id))!;
      assert.equal(mail.status, "sent");
      assert.equal(mail.attempts, 1, "the attempt cut short by the stop is not counted");
      assert.equal(smtp.received[0]!.parsed.messageId, mail.messageId);
      assert.match(mail.messageId, /@127\.0\.0\.1>$/);
    } finally {
      await engine.close();
    }
  } finally {
    await smtp.close();
    await removeDataDir(dataDir);
  }
});
