/** The README's webhook receiver example, run as written against real deliveries. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { api, expectJson, sendChat, team } from "../helpers/api.ts";
import { testApp } from "../helpers/app.ts";

const README = join(import.meta.dirname!, "..", "..", "README.md");

/** The first TypeScript block of the README's Webhooks section. */
async function receiverExample(): Promise<string> {
  const text = await Deno.readTextFile(README);
  const section = text.slice(text.indexOf("\n## Webhooks\n"));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  assert.ok(match, "the README's Webhooks section has a ts block");
  return match[1]!;
}

Deno.test("the README's receiver accepts a real delivery and refuses one signed with another secret", async () => {
  const dir = await Deno.makeTempDir({ prefix: "webhook-readme-" });
  // The example checks `t` against its own clock: the app's clock is now.
  const t = await testApp({
    env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" },
    now: new Date().toISOString(),
  });
  let child: Deno.ChildProcess | undefined;
  try {
    const { owner, alice, project } = await team(t);
    const path = `/api/projects/${project.id}/webhooks`;
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const url = `http://127.0.0.1:${port}/`;
    const good = expectJson(
      await api(t, "POST", path, { cookie: owner.cookie, body: { url, events: ["*"] } }),
      201,
    );
    const other = expectJson(
      await api(t, "POST", path, { cookie: owner.cookie, body: { url, events: ["*"] } }),
      201,
    );

    const file = join(dir, "receiver.ts");
    await Deno.writeTextFile(file, await receiverExample());
    child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-net", "--allow-env", file],
      env: { WEBHOOK_SECRET: good.secret, PORT: String(port), NO_COLOR: "1" },
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    for (let i = 0;; i++) {
      try {
        await (await fetch(url)).body?.cancel();
        break;
      } catch {
        assert.ok(i < 300, "the README receiver did not start");
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    await sendChat(t, alice.cookie, project.id, "for the README");
    await t.app.services.webhookSender.runOnce();
    const log = async (id: number) =>
      expectJson(await api(t, "GET", `${path}/${id}/deliveries`, { cookie: owner.cookie }), 200)
        .items[0];
    const accepted = await log(good.webhook.id);
    assert.equal(accepted.status, "succeeded");
    assert.equal(accepted.lastStatusCode, 204);
    const refused = await log(other.webhook.id);
    assert.equal(refused.status, "pending");
    assert.equal(refused.lastStatusCode, 401);
  } finally {
    if (child) {
      child.kill("SIGKILL");
      await child.status;
    }
    await t.close();
    await Deno.remove(dir, { recursive: true });
  }
});
