/** A client gone while its request body was read: how to tell, and the status logged. */

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
