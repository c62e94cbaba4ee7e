/** Accounts and sessions: register, login, logout, me, and the caller's profile. */
import { createRoute, z } from "@hono/zod-openapi";
import { DomainError } from "../../domain/kernel/errors.ts";
import type { Services } from "../../domain/services.ts";
import { clientAddress, requestMeta } from "../client_address.ts";
import { clearSessionCookie, isHttps, setPreferenceCookies, setSessionCookie } from "../cookies.ts";
import {
  actorOf,
  apiApp,
  errorCodes,
  errors,
  Id,
  IdOut,
  jsonRequest,
  jsonResponse,
  setCookie,
  TimestampOut,
} from "./openapi.ts";
import { LoginSchema, ProfileSchema, RegisterSchema, UserSchema } from "./schemas.ts";

const UserBody = z.object({ user: UserSchema });
const SIGNED_IN = setCookie(
  "`session` (HttpOnly, SameSite=Lax, Secure over https), then `theme` and `locale`",
);

const register = createRoute({
  method: "post",
  path: "/api/auth/register",
  tags: ["accounts"],
  summary: "Create an account and log in (the first account becomes admin); 403 " +
    "`registration_closed` unless REGISTRATION is open, `registration_domain` for an email " +
    "domain REGISTRATION_DOMAINS does not list",
  request: jsonRequest(RegisterSchema),
  responses: {
    201: jsonResponse(UserBody, "Created and logged in", SIGNED_IN),
    ...errors(400, 409, 429),
    403: errorCodes(
      ["forbidden", "registration_closed", "registration_domain"],
      "a cross-site request; registration by invitation only or closed (REGISTRATION); " +
        "an email domain REGISTRATION_DOMAINS does not list",
    ),
  },
});

const login = createRoute({
  method: "post",
  path: "/api/auth/login",
  tags: ["accounts"],
  summary: "Log in with a new session id; 403 `local_login_off` when LOCAL_LOGIN does not " +
    "let this account sign in with a password",
  request: jsonRequest(LoginSchema),
  responses: {
    200: jsonResponse(UserBody, "Logged in", SIGNED_IN),
    ...errors(400, 401, 429),
    403: errorCodes(
      ["forbidden", "local_login_off"],
      "a cross-site request; password sign-in is off (LOCAL_LOGIN=off), or for admins only " +
        "(LOCAL_LOGIN=admins)",
    ),
  },
});

const logout = createRoute({
  method: "post",
  path: "/api/auth/logout",
  tags: ["accounts"],
  summary: "Revoke the session; a session begun by single sign-on also signs out at the " +
    "provider when it offers that (200 with the address the browser goes to)",
  responses: {
    200: jsonResponse(
      z.object({
        endSessionUrl: z.string().openapi({
          description: "The provider's sign-out address (RP-initiated logout); the browser " +
            "goes there, and the provider sends it back to BASE_URL",
        }),
      }).openapi("EndSession"),
      "Logged out here; sign out at the provider next",
      setCookie("`session`, cleared"),
    ),
    204: { description: "Logged out", headers: setCookie("`session`, cleared") },
    ...errors(401, 403),
  },
});

/** An identity at the single sign-on provider, linked to the caller's account. */
export const IdentitySchema = z.object({
  id: IdOut,
  issuer: z.string(),
  subject: z.string(),
  email: z.string().nullable().openapi({ description: "What the provider said when linked" }),
  linkedAt: TimestampOut,
}).openapi("Identity");

const identities = createRoute({
  method: "get",
  path: "/api/users/me/identities",
  tags: ["accounts"],
  summary: "The caller's single sign-on identities, oldest link first",
  responses: {
    200: jsonResponse(z.object({ items: z.array(IdentitySchema) }), "The identities"),
    ...errors(401, 403),
  },
});

const unlink = createRoute({
  method: "delete",
  path: "/api/users/me/identities/{identityId}",
  tags: ["accounts"],
  summary: "Unlink one of the caller's identities; 409 `last_sign_in` when it is the only " +
    "way left to sign in (no other identity, no password LOCAL_LOGIN lets them use)",
  request: { params: z.object({ identityId: Id }) },
  responses: {
    204: { description: "Unlinked" },
    ...errors(400, 401, 403, 404),
    409: errorCodes(["last_sign_in"], "the only way left to sign in to this account"),
  },
});

/** What the sign-in and register pages offer. */
export const ProvidersSchema = z.object({
  registration: z.enum(["open", "invite", "closed"]).openapi({
    description: "`REGISTRATION`: anyone registers, only with an invitation, or nobody",
  }),
  localLogin: z.boolean().openapi({ description: "Whether email and password sign in" }),
  oidc: z.object({ buttonText: z.string(), startUrl: z.string() }).nullable().openapi({
    description: "The single sign-on button, or null when none is configured",
  }),
  passwordReset: z.boolean().openapi({ description: "Whether mail is on (resets are mailed)" }),
}).openapi("AuthProviders");

const providers = createRoute({
  method: "get",
  path: "/api/auth/providers",
  tags: ["accounts"],
  summary: "How one signs in and registers here (no session needed)",
  responses: { 200: jsonResponse(ProvidersSchema, "The ways in"), ...errors(400) },
});

const me = createRoute({
  method: "get",
  path: "/api/auth/me",
  tags: ["accounts"],
  summary: "The logged-in user",
  responses: { 200: jsonResponse(UserBody, "The user"), ...errors(401) },
});

const updateMe = createRoute({
  method: "patch",
  path: "/api/users/me",
  tags: ["accounts"],
  summary:
    "Change display name, theme, locale or time zone (also sets the theme and locale cookies)",
  request: jsonRequest(ProfileSchema),
  responses: {
    200: jsonResponse(UserBody, "The updated user", setCookie("`theme` and `locale`")),
    ...errors(400, 401, 403),
  },
});

/** The account routes. */
export function authRoutes(services: Services, options: { baseUrl: string | null }) {
  const maxAge = services.sessions.maxAgeSeconds;
  return apiApp()
    .openapi(register, async (c) => {
      const { user, cookie } = await services.accounts.register(
        c.req.valid("json"),
        clientAddress(c),
      );
      const secure = isHttps(c, options.baseUrl);
      setSessionCookie(c, cookie, { secure, maxAge });
      setPreferenceCookies(c, user, { secure });
      return c.json({ user }, 201);
    })
    .openapi(login, async (c) => {
      const { user, cookie } = await services.accounts.login(c.req.valid("json"), requestMeta(c));
      const secure = isHttps(c, options.baseUrl);
      setSessionCookie(c, cookie, { secure, maxAge });
      setPreferenceCookies(c, user, { secure });
      return c.json({ user }, 200);
    })
    .openapi(logout, async (c) => {
      const session = c.get("session")!;
      const endSessionUrl = await services.sso?.endSessionUrl(session.idHash) ?? null;
      await services.accounts.logout(
        { idHash: session.idHash, userId: session.user.id },
        requestMeta(c),
      );
      clearSessionCookie(c, { secure: isHttps(c, options.baseUrl) });
      return endSessionUrl === null ? c.body(null, 204) : c.json({ endSessionUrl }, 200);
    })
    .openapi(
      identities,
      async (c) => c.json({ items: await services.sso?.identities(actorOf(c)) ?? [] }, 200),
    )
    .openapi(unlink, async (c) => {
      const { identityId } = c.req.valid("param");
      if (!services.sso) throw new DomainError("not_found", "No such identity");
      await services.sso.unlink(actorOf(c), identityId, requestMeta(c));
      return c.body(null, 204);
    })
    .openapi(providers, (c) => c.json(services.providers(), 200))
    .openapi(me, async (c) => c.json({ user: await services.accounts.me(actorOf(c)) }, 200))
    .openapi(updateMe, async (c) => {
      const user = await services.accounts.updateMe(actorOf(c), c.req.valid("json"));
      setPreferenceCookies(c, user, { secure: isHttps(c, options.baseUrl) });
      return c.json({ user }, 200);
    });
}
