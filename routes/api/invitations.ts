/**
 * Invitations: a project's (owners), the server's (admins), and the link's own two routes
 * (no session needed): what it invites to, and accepting it. Links are absolute: from
 * `BASE_URL`, or else the request's origin.
 */
import { requestMeta } from "../client_address.ts";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import { isHttps, setPreferenceCookies, setSessionCookie } from "../cookies.ts";
import {
  actorOf,
  apiApp,
  errorCodes,
  errors,
  header,
  Id,
  IdOut,
  jsonRequest,
  jsonResponse,
  PageQuery,
  pageSchema,
  TimestampOut,
} from "./openapi.ts";
import { MemberSchema, ProjectRoleSchema, UserSchema } from "./schemas.ts";

/** An invitation: never its token. */
export const InvitationSchema = z.object({
  id: IdOut,
  email: z.string(),
  role: z.enum(["owner", "member", "viewer", "admin"]).openapi({
    description: "In a project: owner, member or viewer; to the server: admin or member",
  }),
  projectId: IdOut.nullable().openapi({ description: "null for an invitation to the server" }),
  invitedBy: IdOut.openapi({ description: "The user who invited" }),
  createdAt: TimestampOut,
  expiresAt: TimestampOut,
  acceptedAt: TimestampOut.nullable(),
  revokedAt: TimestampOut.nullable(),
}).openapi("Invitation");

const InviteEmail = z.string().trim().max(254).pipe(z.email()).openapi({
  type: "string",
  format: "email",
  maxLength: 254,
  description: "Trimmed and lower-cased before use",
});

const ExpiresInDays = z.number().int().min(1).max(30).optional().openapi({
  description: "Days the link works (1–30, default 7)",
});

/** An invitation to a project (the project page's invite form too). */
export const ProjectInvitationInput = z.object({
  email: InviteEmail,
  role: ProjectRoleSchema,
  expiresInDays: ExpiresInDays,
}).openapi("ProjectInvitationInput");

/** An invitation to the server (the admin page's invite form too). */
export const ServerInvitationInput = z.object({
  email: InviteEmail,
  role: z.enum(["admin", "member"]),
  expiresInDays: ExpiresInDays,
}).openapi("ServerInvitationInput");

/** What accepting sends: the new account's name and password, or `{}` when signed in. */
export const AcceptInvitationInput = z.object({
  displayName: z.string().trim().min(1, "Cannot be blank").max(100).optional(),
  password: z.string().min(8, "Use at least 8 characters").max(128, "Use at most 128 characters")
    .optional(),
}).openapi("AcceptInvitationInput", {
  description: "Both fields when not signed in; `{}` when signed in with the invited email",
});

const InvitationLink = z.object({
  invitation: InvitationSchema,
  url: z.string().openapi({
    description: "The link to pass on: `BASE_URL/invite/{token}`; shown only here",
    example: "https://collab.example.org/invite/3q2-7wEjlF…",
  }),
}).openapi("InvitationLink");

const ProjectParam = z.object({ projectId: Id });
const ProjectInvitationParam = z.object({ projectId: Id, id: Id });
const InvitationParam = z.object({ id: Id });
const TokenParam = z.object({
  // Any length: a token no link carries is the same 404 as an unknown one.
  token: z.string().openapi({ description: "The token from the invitation link" }),
});

const LIST_NOTE = "newest first (page object)";

const inviteToProject = createRoute({
  method: "post",
  path: "/api/projects/{projectId}/invitations",
  tags: ["invitations"],
  summary: "Invite by email (owner): an existing account joins at once (`{member}`, notified " +
    "and mailed), anyone else gets a link (`{invitation, url}`, mailed when mail is on); " +
    "409 `already_member`; 20 per inviter per hour (429)",
  request: { params: ProjectParam, ...jsonRequest(ProjectInvitationInput) },
  responses: {
    201: jsonResponse(
      z.union([z.object({ member: MemberSchema }), InvitationLink]),
      "Joined at once, or invited",
    ),
    ...errors(400, 401, 403, 404, 429),
    409: errorCodes(["already_member"], "The person is a member already"),
  },
});

const listProjectInvitations = createRoute({
  method: "get",
  path: "/api/projects/{projectId}/invitations",
  tags: ["invitations"],
  summary: `A project's invitations (owner), ${LIST_NOTE}`,
  request: { params: ProjectParam, query: PageQuery },
  responses: {
    200: jsonResponse(pageSchema(InvitationSchema), "A page of invitations"),
    ...errors(400, 401, 403, 404),
  },
});

const revokeProjectInvitation = createRoute({
  method: "delete",
  path: "/api/projects/{projectId}/invitations/{id}",
  tags: ["invitations"],
  summary: "Revoke an invitation (owner): its link stops working; an accepted one is 409",
  request: { params: ProjectInvitationParam },
  responses: { 204: { description: "Revoked" }, ...errors(401, 403, 404, 409) },
});

const resendProjectInvitation = createRoute({
  method: "post",
  path: "/api/projects/{projectId}/invitations/{id}/resend",
  tags: ["invitations"],
  summary: "Send an invitation again (owner): a new link working 7 days; the old one stops",
  request: { params: ProjectInvitationParam },
  responses: {
    200: jsonResponse(InvitationLink, "Sent again"),
    ...errors(401, 403, 404, 409, 429),
  },
});

const inviteToServer = createRoute({
  method: "post",
  path: "/api/admin/invitations",
  tags: ["admin"],
  summary: "Invite a person to the server without a project (admins); 409 `account_exists`",
  request: jsonRequest(ServerInvitationInput),
  responses: {
    201: jsonResponse(InvitationLink, "Invited"),
    ...errors(400, 401, 403, 429),
    409: errorCodes(["account_exists"], "An account has this email already"),
  },
});

const listAllInvitations = createRoute({
  method: "get",
  path: "/api/admin/invitations",
  tags: ["admin"],
  summary: `Every invitation (admins), ${LIST_NOTE}`,
  request: { query: PageQuery },
  responses: {
    200: jsonResponse(pageSchema(InvitationSchema), "A page of invitations"),
    ...errors(400, 401, 403),
  },
});

const revokeAnyInvitation = createRoute({
  method: "delete",
  path: "/api/admin/invitations/{id}",
  tags: ["admin"],
  summary: "Revoke any invitation (admins); an accepted one is 409",
  request: { params: InvitationParam },
  responses: { 204: { description: "Revoked" }, ...errors(401, 403, 404, 409) },
});

const resendAnyInvitation = createRoute({
  method: "post",
  path: "/api/admin/invitations/{id}/resend",
  tags: ["admin"],
  summary: "Send any invitation again (admins): a new link working 7 days; the old one stops",
  request: { params: InvitationParam },
  responses: {
    200: jsonResponse(InvitationLink, "Sent again"),
    ...errors(401, 403, 404, 409, 429),
  },
});

const viewInvitation = createRoute({
  method: "get",
  path: "/api/invitations/{token}",
  tags: ["invitations"],
  summary: "What a link invites to (no session needed); one 404 for an unknown, used, " +
    "revoked or expired link",
  request: { params: TokenParam },
  responses: {
    200: jsonResponse(
      z.object({
        email: z.string(),
        projectName: z.string().nullable().openapi({
          description: "null for an invitation to the server",
        }),
        invitedByName: z.string(),
        expiresAt: TimestampOut,
      }).openapi("InvitationView"),
      "The invitation",
    ),
    ...errors(404),
  },
});

const acceptInvitation = createRoute({
  method: "post",
  path: "/api/invitations/{token}/accept",
  tags: ["invitations"],
  summary: "Accept: a new account (email verified) joins and is signed in, whatever " +
    "REGISTRATION says; signed in with the invited email, `{}` joins",
  request: { params: TokenParam, ...jsonRequest(AcceptInvitationInput) },
  responses: {
    201: jsonResponse(z.object({ user: UserSchema }), "Accepted", {
      "Set-Cookie": header(
        "`session` (HttpOnly, SameSite=Lax, Secure over https), then `theme` and `locale`; " +
          "only for a new account",
        false,
      ),
    }),
    ...errors(400, 403, 404),
    409: errorCodes(
      ["account_exists"],
      "An account has the invited email: sign in with it, then accept",
    ),
  },
});

/** The origin links are built on when `BASE_URL` is unset. */
const originOf = (c: Context) => new URL(c.req.url).origin;

/** The invitation routes. */
export function invitationRoutes(services: Services, options: { baseUrl: string | null }) {
  const { invitations } = services;
  const maxAge = services.sessions.maxAgeSeconds;
  return apiApp()
    .openapi(inviteToProject, async (c) => {
      const { projectId } = c.req.valid("param");
      const result = await invitations.inviteToProject(
        actorOf(c),
        projectId,
        c.req.valid("json"),
        originOf(c),
        requestMeta(c),
      );
      return c.json(result, 201);
    })
    .openapi(listProjectInvitations, async (c) => {
      const scope = { projectId: c.req.valid("param").projectId };
      return c.json(
        await invitations.list(actorOf(c), scope, pageRequest(c.req.valid("query"))),
        200,
      );
    })
    .openapi(revokeProjectInvitation, async (c) => {
      const { projectId, id } = c.req.valid("param");
      await invitations.revoke(actorOf(c), { projectId }, id, requestMeta(c));
      return c.body(null, 204);
    })
    .openapi(resendProjectInvitation, async (c) => {
      const { projectId, id } = c.req.valid("param");
      return c.json(
        await invitations.resend(actorOf(c), { projectId }, id, originOf(c), requestMeta(c)),
        200,
      );
    })
    .openapi(inviteToServer, async (c) => {
      const result = await invitations.inviteToServer(
        actorOf(c),
        c.req.valid("json"),
        originOf(c),
        requestMeta(c),
      );
      return c.json(result, 201);
    })
    .openapi(
      listAllInvitations,
      async (c) =>
        c.json(await invitations.list(actorOf(c), null, pageRequest(c.req.valid("query"))), 200),
    )
    .openapi(revokeAnyInvitation, async (c) => {
      await invitations.revoke(actorOf(c), null, c.req.valid("param").id, requestMeta(c));
      return c.body(null, 204);
    })
    .openapi(resendAnyInvitation, async (c) =>
      c.json(
        await invitations.resend(
          actorOf(c),
          null,
          c.req.valid("param").id,
          originOf(c),
          requestMeta(c),
        ),
        200,
      ))
    .openapi(viewInvitation, async (c) => {
      const view = await invitations.view(c.req.valid("param").token);
      return c.json({
        email: view.email,
        projectName: view.projectName,
        invitedByName: view.invitedByName,
        expiresAt: view.expiresAt,
      }, 200);
    })
    .openapi(acceptInvitation, async (c) => {
      const session = c.get("session");
      const actor = session ? { id: session.user.id, role: session.user.role } : null;
      const { user, cookie } = await invitations.accept(
        c.req.valid("param").token,
        c.req.valid("json"),
        actor,
        requestMeta(c),
      );
      const secure = isHttps(c, options.baseUrl);
      if (cookie !== null) {
        setSessionCookie(c, cookie, { secure, maxAge });
        setPreferenceCookies(c, user, { secure });
      }
      return c.json({ user }, 201);
    });
}
