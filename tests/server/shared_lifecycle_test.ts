/**
 * The isolates' shared shutting-down word (`server/isolate.ts`): each isolate holds its own
 * view of one SharedArrayBuffer, so a shutdown set through the primary's view makes every other
 * isolate's request gate (`routes/drain.ts`) refuse at once, with no message to wait for.
 */
import assert from "node:assert/strict";
import { drain } from "../../routes/drain.ts";
import { lifecycleBuffer, sharedLifecycle } from "../../server/isolate.ts";

const info = {
  remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 1 },
  completed: Promise.resolve(),
} as unknown as Deno.ServeHandlerInfo;

Deno.test("a shutdown set through one isolate's view refuses new requests through another's", async () => {
  const buffer = lifecycleBuffer();
  const primary = sharedLifecycle(buffer);
  const worker = sharedLifecycle(buffer);
  const gate = drain(() => new Response("served"), worker);
  const ask = () => gate.fetch(new Request("http://localhost/api/projects"), info);

  assert.equal(worker.shuttingDown, false);
  assert.equal((await ask()).status, 200);
  primary.shuttingDown = true;
  assert.equal(worker.shuttingDown, true);
  const refused = await ask();
  assert.equal(refused.status, 503);
  assert.equal((await refused.json()).error.code, "unavailable");
  // A view over another buffer (another process's server) is not touched.
  assert.equal(sharedLifecycle(lifecycleBuffer()).shuttingDown, false);
});
