/**
 * Getting back in: password reset (asked for by email address, no session; or made by an
 * admin) and email verification. The reset link's token is in the path; the request log
 * shows the route instead (`request_log.ts`).
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Services } from "../../domain/services.ts";
import { clientAddress, requestMeta } from "../client_address.ts";
import {
  actorOf,
  apiApp,
  errorCodes,
  errors,
  Id,
  jsonRequest,
  jsonResponse,
  TimestampOut,
} from "./openapi.ts";
import { NewEmailSchema, NewPasswordSchema } from "./schemas.ts";

/** Asking for a reset link (the forgot-password page's form too). */
export const ResetRequestSchema = z.object({ email: NewEmailSchema }).openapi(
  "PasswordResetRequest",
);
/** A new password through a reset link (the reset page's form too). */
export const ResetSchema = z.object({ password: NewPasswordSchema }).openapi("PasswordResetInput");
const ResetLinkSchema = z.object({
  url: z.string().openapi({ description: "The link to pass on: `…/reset-password/{token}`" }),
  expiresAt: TimestampOut,
}).openapi("PasswordResetLink");
const Token = z.string().openapi({ description: "The token of the link (its last segment)" });

const requestReset = createRoute({
  method: "post",
  path: "/api/auth/password-reset",
  tags: ["accounts"],
  summary: "Ask for a reset link by mail; the same answer whether or not the account exists",
  description: "Mails `BASE_URL/reset-password/{token}` (60 minutes, once) to an existing, " +
    "active account while mail is on; at most 3 mails per address and 20 requests per client " +
    "address within an hour, further requests answered alike without mail.",
  request: jsonRequest(ResetRequestSchema),
  responses: {
    202: jsonResponse(z.object({}), "Accepted (a mail is on its way if the account exists)"),
    ...errors(400),
  },
});

const reset = createRoute({
  method: "post",
  path: "/api/auth/password-reset/{token}",
  tags: ["accounts"],
  summary: "Set a new password through a reset link; ends every session and API token",
  request: { params: z.object({ token: Token }), ...jsonRequest(ResetSchema) },
  responses: {
    204: { description: "The password is set; sign in with it" },
    ...errors(400, 404),
  },
});

const issueReset = createRoute({
  method: "post",
  path: "/api/admin/users/{userId}/password-reset",
  tags: ["admin"],
  summary: "Make a reset link for a user to pass on (also mailed while mail is on)",
  request: { params: z.object({ userId: Id }) },
  responses: {
    201: jsonResponse(ResetLinkSchema, "The link; using it does not verify the address"),
    ...errors(401, 403, 404, 409),
  },
});

const requestVerification = createRoute({
  method: "post",
  path: "/api/auth/verify-email",
  tags: ["accounts"],
  summary: "Mail the caller a link that verifies their address (24 hours, once)",
  responses: {
    202: jsonResponse(z.object({}), "The mail is queued"),
    409: errorCodes(
      ["conflict", "mail_off"],
      "mail is off (`mail_off`), or the address is verified already (`conflict`)",
    ),
    ...errors(401, 429),
  },
});

/** The password reset and email verification routes. */
export function passwordResetRoutes(services: Services, options: { baseUrl: string | null }) {
  return apiApp()
    .openapi(requestReset, async (c) => {
      await services.passwordReset.request(c.req.valid("json").email, clientAddress(c));
      return c.json({}, 202);
    })
    .openapi(reset, async (c) => {
      await services.passwordReset.complete(
        c.req.valid("param").token,
        c.req.valid("json").password,
        requestMeta(c),
      );
      return c.body(null, 204);
    })
    .openapi(issueReset, async (c) => {
      const base = options.baseUrl ?? new URL(c.req.url).origin;
      const link = await services.passwordReset.issue(
        actorOf(c),
        c.req.valid("param").userId,
        base,
      );
      return c.json(link, 201);
    })
    .openapi(requestVerification, async (c) => {
      await services.emailVerification.request(actorOf(c));
      return c.json({}, 202);
    });
}
