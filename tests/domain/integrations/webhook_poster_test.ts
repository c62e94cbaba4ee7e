/**
 * The poster that runs webhook attempts on a worker thread: it sends what the in-thread
 * poster sends, keeps the allow-list it was given, and cuts attempts short when told to.
 */
import assert from "node:assert/strict";
import { signature, signingKey } from "../../../domain/projects/webhook_outbox.ts";
import { type PostJob, WorkerPoster } from "../../../domain/integrations/webhook_poster.ts";
import { allowListText, parseAllowList } from "../../../domain/integrations/webhook_targets.ts";
import { receiver } from "../../helpers/receiver.ts";

function job(url: string, deliveryId = 7): PostJob {
  return {
    deliveryId,
    event: "chat.message.created",
    body: '{"id":1,"event":"chat.message.created","projectId":2,"data":{"text":"日本語"}}',
    url,
    secret: "whsec_test",
    unixSeconds: 1_790_000_000,
  };
}

Deno.test("a worker poster delivers the signed body with the contract's headers", async () => {
  const hook = receiver();
  const poster = new WorkerPoster({ allow: parseAllowList("127.0.0.1"), timeoutMs: 5000 });
  try {
    hook.answer = () => 204;
    const sent = job(hook.url);
    assert.deepEqual(await poster.post(sent), { kind: "succeeded", statusCode: 204 });
    const [got] = hook.received;
    assert.ok(got);
    assert.equal(got.method, "POST");
    assert.equal(got.body, sent.body);
    assert.equal(got.headers.get("x-collab-event"), "chat.message.created");
    assert.equal(got.headers.get("x-collab-delivery"), "7");
    assert.equal(got.headers.get("content-type"), "application/json");
    assert.equal(
      got.headers.get("x-collab-signature"),
      await signature(await signingKey(sent.secret), sent.unixSeconds, sent.body),
    );
  } finally {
    poster.abortAll();
    poster.close();
    await hook.close();
  }
});

Deno.test("a worker poster keeps the allow-list: loopback is refused when it is not allowed", async () => {
  const hook = receiver();
  const poster = new WorkerPoster({ allow: parseAllowList("10.0.0.0/8"), timeoutMs: 5000 });
  try {
    const outcome = await poster.post(job(hook.url));
    assert.equal(outcome.kind, "failed");
    assert.ok(outcome.kind === "failed" && outcome.final === true);
    assert.equal(hook.received.length, 0);
  } finally {
    poster.close();
    await hook.close();
  }
});

Deno.test("a worker poster reports a receiver's error status as a failed attempt", async () => {
  const hook = receiver();
  const poster = new WorkerPoster({ allow: parseAllowList("*"), timeoutMs: 5000 });
  try {
    hook.answer = () => 503;
    assert.deepEqual(await poster.post(job(hook.url)), {
      kind: "failed",
      statusCode: 503,
      error: "HTTP 503",
    });
  } finally {
    poster.close();
    await hook.close();
  }
});

Deno.test("abortAll ends an attempt to a receiver that never answers as abandoned, and refuses new ones", async () => {
  const hook = receiver();
  const poster = new WorkerPoster({ allow: parseAllowList("127.0.0.1"), timeoutMs: 60_000 });
  try {
    hook.answer = () => "hang";
    const attempt = poster.post(job(hook.url));
    await hook.waitFor(1);
    poster.abortAll();
    assert.deepEqual(await attempt, { kind: "abandoned" });
    assert.deepEqual(await poster.post(job(hook.url, 8)), { kind: "abandoned" });
    assert.equal(hook.received.length, 1);
  } finally {
    poster.close();
    await hook.close();
  }
});

Deno.test("closing a worker poster ends the attempts it still held as abandoned", async () => {
  const hook = receiver();
  const poster = new WorkerPoster({ allow: parseAllowList("127.0.0.1"), timeoutMs: 60_000 });
  try {
    hook.answer = () => "hang";
    const attempt = poster.post(job(hook.url));
    await hook.waitFor(1);
    poster.close();
    assert.deepEqual(await attempt, { kind: "abandoned" });
  } finally {
    await hook.close();
  }
});

Deno.test("an allow-list written back as text parses to the same list", () => {
  for (const raw of ["", "*", "hooks.internal,10.0.0.0/8,192.168.1.5", "::1,fd00::/8"]) {
    const list = parseAllowList(raw);
    assert.deepEqual(parseAllowList(allowListText(list)), list, raw);
  }
});
