/** The cookies this server sets: the session, and the theme and locale preferences. */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Theme } from "../domain/accounts/accounts.ts";

/** The session cookie's name. */
export const SESSION_COOKIE = "session";

/** Whether the request reached us over https (directly or by the configured base URL). */
export function isHttps(c: Context, baseUrl: string | null): boolean {
  return (baseUrl ?? c.req.url).startsWith("https:");
}

/** Sets the signed session cookie: HttpOnly, SameSite=Lax, Secure over https. */
export function setSessionCookie(
  c: Context,
  value: string,
  options: { secure: boolean; maxAge: number },
): void {
  setCookie(c, SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: "Lax",
    path: "/",
    secure: options.secure,
    maxAge: options.maxAge,
  });
}

/** Clears the session cookie. */
export function clearSessionCookie(c: Context, options: { secure: boolean }): void {
  deleteCookie(c, SESSION_COOKIE, {
    path: "/",
    secure: options.secure,
    httpOnly: true,
    sameSite: "Lax",
  });
}

/** The session cookie's value. */
export function sessionCookie(c: Context): string | undefined {
  return getCookie(c, SESSION_COOKIE);
}

/** Remembers the theme and locale in cookies (read by pages before login, too). */
export function setPreferenceCookies(
  c: Context,
  prefs: { theme: string; locale: string },
  options: { secure: boolean },
): void {
  const base = { path: "/", sameSite: "Lax" as const, secure: options.secure, maxAge: 31_536_000 };
  setCookie(c, "theme", prefs.theme, base);
  setCookie(c, "locale", prefs.locale, base);
}

/** The theme and locale cookies, when valid. */
export function preferenceCookies(
  c: Context,
): { theme: Theme | null; locale: "en" | "ja" | null } {
  const theme = getCookie(c, "theme");
  const locale = getCookie(c, "locale");
  return {
    theme: theme === "dark" || theme === "light" || theme === "system" ? theme : null,
    locale: locale === "en" || locale === "ja" ? locale : null,
  };
}
