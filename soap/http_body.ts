/** Reading a request body with a size limit enforced while reading (chunked bodies too). */

/**
 * Whether `error`, thrown while reading a request body, means the client went away: Deno's
 * HTTP server then fails the read with `BadResource` ("...body as underlying resource
 * unavailable"), whether the client closed the connection mid-body or sent something the
 * HTTP layer dropped the connection for. Nobody is left to answer; it is not a server error.
 */
export function isClientGone(error: unknown): boolean {
  return error instanceof Deno.errors.BadResource && /\bbody\b/.test(error.message);
}

/**
 * The status logged for a request whose client went away before it was answered (nginx's
 * "client closed request"); no client ever reads it.
 */
export const CLIENT_GONE_STATUS = 499;

/** Reads `request`'s body, or returns null as soon as it exceeds `limit` bytes. */
export async function readBodyLimited(request: Request, limit: number): Promise<Uint8Array | null> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    const length = Number(declared);
    if (length > limit) {
      await request.body?.cancel();
      return null;
    }
    // A declared length is enforced by the HTTP layer (a body cannot run past it), so the
    // whole body can be taken at once: Deno's fast path, much cheaper than a stream reader.
    // With a Transfer-Encoding the length does not apply: that body is read as a stream.
    if (
      Number.isSafeInteger(length) && length >= 0 &&
      request.headers.get("transfer-encoding") === null
    ) {
      const body = await request.bytes();
      if (body.byteLength <= limit) return body;
      return null;
    }
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
