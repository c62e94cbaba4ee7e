/**
 * The mail and webhook worker threads run at a lower priority than the requests' thread
 * (Linux, where a thread's nice value is its own): read from /proc, as `ps -L` shows it.
 */
import assert from "node:assert/strict";
import { BACKGROUND_NICE } from "../../../domain/kernel/thread_priority.ts";
import { WorkerTransport } from "../../../domain/mail/smtp_transport.ts";
import { WorkerPoster } from "../../../domain/integrations/webhook_poster.ts";
import { parseAllowList } from "../../../domain/integrations/webhook_targets.ts";
import { receiver } from "../../helpers/receiver.ts";

/** The nice value of each thread of this process, by thread id. */
function niceByThread(): Map<number, number> {
  const nice = new Map<number, number>();
  for (const entry of Deno.readDirSync("/proc/self/task")) {
    let stat: string;
    try {
      stat = Deno.readTextFileSync(`/proc/self/task/${entry.name}/stat`);
    } catch {
      continue; // the thread ended meanwhile
    }
    // Fields after the command's closing parenthesis: state is the 3rd field, nice the 19th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    nice.set(Number(entry.name), Number(fields[16]));
  }
  return nice;
}

/**
 * Waits (polling, at most 10 s) for a thread that was not in `before` to run at the
 * background priority; whether one did.
 */
async function newThreadAtBackground(before: Map<number, number>): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    for (const [tid, nice] of niceByThread()) {
      if (!before.has(tid) && nice === BACKGROUND_NICE) return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

Deno.test({
  name: "the mail worker's thread steps aside (nice 10); the requests' thread keeps its priority",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const before = niceByThread();
    const transport = new WorkerTransport({
      host: "127.0.0.1",
      port: 9,
      secure: false,
      requireTls: false,
      user: null,
      password: null,
    });
    try {
      assert.ok(await newThreadAtBackground(before), "a new thread at nice 10");
      assert.equal(niceByThread().get(Deno.pid), 0, "the main thread is not lowered");
    } finally {
      transport.close();
    }
  },
});

Deno.test({
  name:
    "the webhook worker's thread steps aside (nice 10); the requests' thread keeps its priority",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const before = niceByThread();
    const hook = receiver();
    const poster = new WorkerPoster({ allow: parseAllowList("127.0.0.1"), timeoutMs: 5000 });
    try {
      // The poster starts its thread with its first attempt.
      hook.answer = () => 204;
      const job = {
        deliveryId: 1,
        event: "chat.message.created",
        body: "{}",
        url: hook.url,
        secret: "whsec_test",
        unixSeconds: 1_790_000_000,
      };
      assert.deepEqual(await poster.post(job), { kind: "succeeded", statusCode: 204 });
      assert.ok(await newThreadAtBackground(before), "a new thread at nice 10");
      assert.equal(niceByThread().get(Deno.pid), 0, "the main thread is not lowered");
    } finally {
      poster.close();
      await hook.close();
    }
  },
});
