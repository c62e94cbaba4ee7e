/** Changing the account's password (signed in with a session; never with an API token). */
import { createRoute, z } from "@hono/zod-openapi";
import type { Services } from "../../domain/services.ts";
import { requestMeta } from "../client_address.ts";
import { actorOf, apiApp, errors, jsonRequest } from "./openapi.ts";

const PasswordChangeSchema = z.object({
  currentPassword: z.string().max(1024),
  newPassword: z.string().min(8, "Use at least 8 characters").max(
    128,
    "Use at most 128 characters",
  ),
}).openapi("PasswordChangeInput");

const change = createRoute({
  method: "post",
  path: "/api/auth/password",
  tags: ["accounts"],
  summary: "Change the password; revokes every API token and ends the other sessions",
  request: jsonRequest(PasswordChangeSchema),
  responses: {
    204: { description: "Changed; this session stays signed in" },
    ...errors(400, 401, 403, 429),
  },
});

/** The password change route. */
export function passwordRoutes(services: Services) {
  return apiApp().openapi(change, async (c) => {
    // The bearer middleware refuses tokens here, so a session is present.
    await services.passwordChange.change(
      actorOf(c),
      c.get("session")!.idHash,
      c.req.valid("json"),
      requestMeta(c),
    );
    return c.body(null, 204);
  });
}
