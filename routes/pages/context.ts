/**
 * What every page knows about its request: the user, language, theme, time zone, the clock's
 * now and the unread count.
 */
import type { Context } from "hono";
import type { Actor, PublicUser, Theme } from "../../domain/accounts/accounts.ts";
import type { Services } from "../../domain/services.ts";
import { DEFAULT_TIME_ZONE } from "../../domain/kernel/time_zones.ts";
import type { AppEnv } from "../api/openapi.ts";
import { preferenceCookies } from "../cookies.ts";
import { type Locale, type Translate, translator } from "../i18n/i18n.ts";

/** The request's page context. */
export interface PageCtx {
  user: PublicUser | null;
  actor: Actor | null;
  t: Translate;
  locale: Locale;
  theme: Theme;
  /** The viewer's IANA time zone (`UTC` for visitors and people who never chose one). */
  timeZone: string;
  /** True when the signed-in person never chose a zone: the page proposes the browser's. */
  proposeZone: boolean;
  /** The request's now by the services' clock (relative times count from it). */
  now: Date;
  /** The current path, for highlighting navigation. */
  path: string;
  unread: number;
}

/** Builds the page context: the user's theme and locale, else the cookies, else defaults. */
export async function pageCtx(c: Context<AppEnv>, services: Services): Promise<PageCtx> {
  const session = c.get("session");
  const viewer = session
    ? await services.accounts.viewer({ id: session.user.id, role: session.user.role })
    : null;
  const user = viewer?.user ?? null;
  const cookies = preferenceCookies(c);
  const locale = user?.locale ?? cookies.locale ?? "en";
  const actor = user ? { id: user.id, role: user.role } : null;
  return {
    user,
    actor,
    t: translator(locale),
    locale,
    theme: user?.theme ?? cookies.theme ?? "dark",
    timeZone: user?.timeZone ?? DEFAULT_TIME_ZONE,
    proposeZone: viewer !== null && !viewer.timeZoneChosen,
    now: services.clock.now(),
    path: c.req.path,
    unread: actor ? await services.notifications.unreadCount(actor) : 0,
  };
}

/**
 * `next` when it is a safe local path to return to after login, else `/`: it must start with a
 * single `/`, and hold no backslash, control character or space (browsers drop tabs and line
 * breaks from URLs, so `/\t/evil.example` would become `//evil.example`), and resolve to our own
 * origin.
 */
export function safeNext(next: string | undefined | null): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.includes("\\")) return "/";
  for (let i = 0; i < next.length; i++) {
    const code = next.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return "/";
  }
  const base = "http://local.invalid";
  const url = URL.canParse(next, base) ? new URL(next, base) : null;
  if (!url || url.origin !== base) return "/";
  return next;
}

/** `ja` when the request prefers Japanese to English, else `en`. */
function acceptedLocale(header: string | undefined): "en" | "ja" {
  let best: { locale: "en" | "ja"; q: number } | null = null;
  for (const part of (header ?? "").split(",")) {
    const [tag, ...params] = part.trim().toLowerCase().split(";");
    const q = Number(params.find((p) => p.trim().startsWith("q="))?.trim().slice(2) ?? 1);
    const locale = tag?.startsWith("ja") ? "ja" : tag?.startsWith("en") ? "en" : null;
    if (locale && Number.isFinite(q) && q > 0 && (best === null || q > best.q)) {
      best = { locale, q };
    }
  }
  return best?.locale ?? "en";
}

/** The page context of a visitor who may have no session: their language from the request. */
export async function visitorCtx(c: Context<AppEnv>, services: Services): Promise<PageCtx> {
  const ctx = await pageCtx(c, services);
  if (ctx.user || preferenceCookies(c).locale) return ctx;
  const locale = acceptedLocale(c.req.header("accept-language"));
  return { ...ctx, locale, t: translator(locale) };
}
