/** A project's event stream read in process (`app.request`), for tests of when it ends. */
import assert from "node:assert/strict";
import type { TestApp } from "./app.ts";

/**
 * Opens `GET /api/projects/{projectId}/chat/stream` in process with `headers` (a cookie or a
 * Bearer token), checks its first frame, and answers the reader.
 */
export async function openStreamInProcess(
  t: TestApp,
  headers: Record<string, string>,
  projectId: number,
): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const res = await t.app.request(`/api/projects/${projectId}/chat/stream`, { headers });
  if (res.status !== 200) assert.fail(`stream: ${res.status} ${await res.text()}`);
  const reader = res.body!.getReader();
  const first = await reader.read();
  assert.equal(new TextDecoder().decode(first.value), "retry: 3000\n\n");
  return reader;
}

/** Whether the stream has ended (reads what is queued; false if it is still open). */
export async function streamEnded(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<boolean> {
  const next = await Promise.race([
    reader.read(),
    new Promise<"open">((r) => setTimeout(() => r("open"), 0)),
  ]);
  return next !== "open" && next.done;
}
