/**
 * A real OpenID Connect provider for tests: npm `oidc-provider`, served on 127.0.0.1 (or another
 * loopback address) and a free port (or a given one), with fixture accounts and its development
 * login pages (any password signs in as the login typed), RP-initiated logout on. `signInAt`
 * drives its pages with plain HTTP as a browser would: follows redirects, keeps the provider's
 * cookies, posts its login, consent and sign-out forms.
 */
import { createServer, type Server } from "node:http";
import Provider from "oidc-provider";

/** A fixture account (its key is the login and the subject): the claims the provider gives. */
export interface OidcAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

/** The fixture accounts every test provider has. */
export const ACCOUNTS: Record<string, OidcAccount> = {
  verified: {
    email: "ada@example.com",
    email_verified: true,
    name: "Ada Lovelace",
  },
  unverified: {
    email: "bob@example.com",
    email_verified: false,
    name: "Bob",
  },
  noEmail: { name: "Nobody" },
  japanese: {
    email: "hanako@example.jp",
    email_verified: true,
    name: "山田 花子",
  },
  admin: {
    email: "root@example.com",
    email_verified: true,
    name: "Root",
    groups: ["collab-admins", "staff"],
  },
  staff: {
    email: "carol@example.com",
    email_verified: true,
    name: "Carol",
    groups: ["staff"],
  },
  otherDomain: {
    email: "eve@elsewhere.org",
    email_verified: true,
    name: "Eve",
  },
};

/** The client registered at the test provider. */
export const CLIENT_ID = "collab";
export const CLIENT_SECRET = "collab-client-secret-0123456789";
/**
 * Another application registered at the same provider, with our redirect URI too (a provider
 * misconfigured, or one application's URI reused): its codes, and the ID tokens they buy, are
 * for its audience, not ours.
 */
export const OTHER_CLIENT_ID = "other-app";

/** A running test provider. */
export interface TestOidc {
  issuer: string;
  port: number;
  /** The accounts' groups can change between sign-ins (an admin group taken away). */
  accounts: Record<string, OidcAccount>;
  close(): Promise<void>;
}

/** Options of `startOidc`. */
export interface OidcOptions {
  /** Our BASE_URL: the redirect URI is BASE_URL/auth/oidc/callback, sign-out returns to it. */
  baseUrl: string;
  port?: number;
  /**
   * The loopback address it listens on (default 127.0.0.1). A browser test gives it another
   * (127.0.0.2), so that it is another site than our app, as a real provider is: cookies do not
   * tell ports apart.
   */
  host?: string;
  /** The token endpoint's client authentication (default client_secret_basic). */
  clientAuth?: "client_secret_basic" | "client_secret_post";
  /** Which methods the discovery document lists (default both). */
  authMethods?: string[];
}

/** Starts a provider; `close()` stops it. */
export async function startOidc(options: OidcOptions): Promise<TestOidc> {
  const host = options.host ?? "127.0.0.1";
  let handler: Parameters<typeof createServer>[1] = (_req, res) => res.end();
  const server: Server = createServer((req, res) => handler!(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const issuer = `http://${host}:${port}`;
  const accounts: Record<string, OidcAccount> = structuredClone(ACCOUNTS);
  const byLogin = (id: string) => Object.entries(accounts).find(([key]) => key === id)?.[1];
  const provider = new Provider(issuer, {
    clients: [{
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uris: [`${options.baseUrl}/auth/oidc/callback`],
      post_logout_redirect_uris: [options.baseUrl],
      token_endpoint_auth_method: options.clientAuth ?? "client_secret_basic",
    }, {
      client_id: OTHER_CLIENT_ID,
      client_secret: "other-app-client-secret-0123456789",
      redirect_uris: [`${options.baseUrl}/auth/oidc/callback`],
      token_endpoint_auth_method: options.clientAuth ?? "client_secret_basic",
    }],
    ...(options.authMethods
      ? { clientAuthMethods: options.authMethods as ["client_secret_basic"] }
      : {}),
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name"],
      groups: ["groups"],
    },
    // The claims the scopes ask for go into the ID token too (not only userinfo).
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ["test-cookie-key-0123456789abcdef"] },
    findAccount(_ctx: unknown, id: string) {
      const account = byLogin(id);
      if (!account) return undefined;
      // The development login page signs in as the login typed: that is the subject.
      return { accountId: id, claims: () => ({ ...account, sub: id }) };
    },
  });
  // The provider's own warnings about its development defaults are expected here.
  provider.on("server_error", (_ctx: unknown, err: Error) => console.error("OP", err));
  handler = provider.callback();
  return {
    issuer,
    port,
    accounts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A browser's cookies for one host, as plain HTTP keeps them. */
export class CookieJar {
  readonly #cookies = new Map<string, string>();

  /** Takes the `Set-Cookie` headers of `res`. */
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = /max-age=0|expires=thu, 01 jan 1970/i.test(line);
      if (expired || value === "") this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  /** The `Cookie` header. */
  header(): string {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  get(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  set(name: string, value: string): void {
    this.#cookies.set(name, value);
  }

  delete(name: string): void {
    this.#cookies.delete(name);
  }
}

/** The first form of an HTML page: its action and its fields (hidden inputs, named buttons). */
function formOf(html: string, base: string): { action: string; fields: URLSearchParams } | null {
  const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return null;
  const fields = new URLSearchParams();
  for (const input of form[2]!.matchAll(/<(?:input|button)[^>]*>/gi)) {
    const name = /name="([^"]*)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1] ?? "";
    if (name && !/type="(?:text|password)"/.test(input[0])) fields.set(name, value);
  }
  return { action: new URL(form[1]!.replaceAll("&amp;", "&"), base).href, fields };
}

/**
 * Drives the provider as a browser would from `url` (its authorization or sign-out address):
 * follows its redirects, signs in as `login` on its login page, consents, confirms a sign-out,
 * and stops at the first address outside the provider (ours), which it returns.
 */
export async function signInAt(
  jar: CookieJar,
  url: string,
  login: string | null,
): Promise<string> {
  const origin = new URL(url).origin;
  let next: { url: string; body?: URLSearchParams } = { url };
  for (let step = 0; step < 20; step++) {
    if (new URL(next.url).origin !== origin) return next.url;
    const res = await fetch(next.url, {
      method: next.body ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: jar.header(),
        ...(next.body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(next.body ? { body: next.body } : {}),
    });
    jar.take(res);
    const location = res.headers.get("location");
    if (location) {
      await res.body?.cancel();
      next = { url: new URL(location, next.url).href };
      continue;
    }
    const html = await res.text();
    const form = formOf(html, next.url);
    if (!form) throw new Error(`The provider answered ${res.status} without a form: ${html}`);
    if (form.fields.get("prompt") === "login") {
      if (login === null) throw new Error("The provider asks for a login and none was given");
      form.fields.set("login", login);
      form.fields.set("password", "any password");
    }
    // The sign-out page's "yes" button stands outside its form (form="op.logoutForm").
    if (/name="logout"/.test(html)) form.fields.set("logout", "yes");
    next = { url: form.action, body: form.fields };
  }
  throw new Error("The provider kept redirecting");
}
