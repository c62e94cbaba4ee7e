/** Accounts and sessions: register, login, logout, me, and the caller's profile. */
import { createRoute, z } from "@hono/zod-openapi";
import type { Services } from "../../domain/services.ts";
import { clientAddress, requestMeta } from "../client_address.ts";
import { clearSessionCookie, isHttps, setPreferenceCookies, setSessionCookie } from "../cookies.ts";
import {
  actorOf,
  apiApp,
  errorCodes,
  errors,
  jsonRequest,
  jsonResponse,
  setCookie,
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
  summary: "Log in with a new session id",
  request: jsonRequest(LoginSchema),
  responses: {
    200: jsonResponse(UserBody, "Logged in", SIGNED_IN),
    ...errors(400, 401, 403, 429),
  },
});

const logout = createRoute({
  method: "post",
  path: "/api/auth/logout",
  tags: ["accounts"],
  summary: "Revoke the session",
  responses: {
    204: { description: "Logged out", headers: setCookie("`session`, cleared") },
    ...errors(401, 403),
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
      await services.accounts.logout(
        { idHash: session.idHash, userId: session.user.id },
        requestMeta(c),
      );
      clearSessionCookie(c, { secure: isHttps(c, options.baseUrl) });
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
