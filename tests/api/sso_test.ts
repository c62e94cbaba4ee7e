/**
 * Single sign-on (OpenID Connect) against a real provider (npm oidc-provider, tests/helpers/
 * oidc.ts) driven with plain HTTP: the start (PKCE S256, state and nonce stored hashed or in
 * the database), provisioning (the first account is admin, display names, verified email),
 * linking by verified email only, the link-with-password page, admin groups granted and taken
 * away, a disabled account, allowed domains, auto-provisioning off, LOCAL_LOGIN, sign-out at
 * the provider, identities and unlinking, API tokens of SSO accounts; and bad input: forged and
 * replayed state, another browser, a wrong nonce, another issuer, a code of another client, an
 * expired ID token (injected clock), a provider down or answering garbage, an issuer that is
 * not OIDC_ISSUER exactly, and `next` pointing off-site.
 */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import { api, expectError, expectJson, PASSWORD, signUp } from "../helpers/api.ts";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  CookieJar,
  OTHER_CLIENT_ID,
  signInAt,
  startOidc,
  type TestOidc,
} from "../helpers/oidc.ts";

const BASE_URL = "https://collab.example.org";

/** An app whose single sign-on goes to `op`. */
async function ssoApp(op: { issuer: string }, env: Record<string, string> = {}) {
  return await testApp({
    now: new Date().toISOString(),
    env: {
      BASE_URL,
      OIDC_ISSUER: op.issuer,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
      OIDC_SCOPES: "openid email profile groups",
      ...env,
    },
  });
}

/** A browser: our cookies and the provider's. */
interface Browser {
  app: CookieJar;
  op: CookieJar;
}

const browser = (): Browser => ({ app: new CookieJar(), op: new CookieJar() });

/** A GET of our app in `b`, keeping its cookies. */
async function visit(t: TestApp, b: Browser, path: string): Promise<Response> {
  const res = await t.app.request(path, { headers: { cookie: b.app.header() } });
  b.app.take(res);
  return res;
}

/** Our app's clock follows real time (the ID token's times are the provider's), plus `skewMs`. */
function tick(t: TestApp, skewMs = 0) {
  t.clock.set(new Date(Date.now() + skewMs));
}

/** Starts a sign-in at our app; returns the provider's authorization address. */
async function start(t: TestApp, b: Browser, next = "/"): Promise<string> {
  tick(t);
  const res = await visit(t, b, `/auth/oidc/start?next=${encodeURIComponent(next)}`);
  await res.body?.cancel();
  assert.equal(res.status, 302, "the start goes to the provider");
  return res.headers.get("location")!;
}

/** Signs in at the provider as `login` from `authorizeUrl`; returns our callback's path. */
async function atProvider(b: Browser, authorizeUrl: string, login: string): Promise<string> {
  const back = await signInAt(b.op, authorizeUrl, login);
  assert.ok(back.startsWith(`${BASE_URL}/auth/oidc/callback?`), back);
  return back.slice(BASE_URL.length);
}

/** A whole sign-in as `login`: the callback's answer (its body read). */
async function ssoSignIn(
  t: TestApp,
  b: Browser,
  login: string,
  next = "/",
): Promise<{ status: number; location: string | null; text: string }> {
  const callback = await atProvider(b, await start(t, b, next), login);
  tick(t);
  const res = await visit(t, b, callback);
  const text = await res.text();
  const errors = t.logs.filter((line) => line.startsWith("error"));
  return { status: res.status, location: res.headers.get("location"), text: text + errors };
}

/** The signed-in user of `b`, or null. */
async function me(t: TestApp, b: Browser) {
  const res = await api(t, "GET", "/api/auth/me", { cookie: b.app.header() });
  return res.status === 200 ? res.json.user : null;
}

async function counts(t: TestApp) {
  return {
    users: await t.sql.count("users"),
    identities: await t.sql.count("sso_identities"),
    sessions: await t.sql.count("sessions"),
  };
}

/** Runs `fn` with a provider (sending people back to BASE_URL) and an app using it. */
async function withSso(
  fn: (t: TestApp, op: TestOidc) => Promise<void>,
  env: Record<string, string> = {},
) {
  const op = await startOidc({ baseUrl: BASE_URL });
  try {
    const t = await ssoApp(op, env);
    try {
      await fn(t, op);
    } finally {
      await t.close();
    }
  } finally {
    await op.close();
  }
}

Deno.test("providers names the SSO button; the start is PKCE S256 with fresh state and nonce kept hashed", async () => {
  await withSso(async (t) => {
    const providers = expectJson(await api(t, "GET", "/api/auth/providers"), 200);
    assert.deepEqual(providers.oidc, {
      buttonText: "Sign in with SSO",
      startUrl: "/auth/oidc/start",
    });
    assert.equal(providers.localLogin, true);
    const b = browser();
    const url = new URL(await start(t, b, "/projects"));
    const q = url.searchParams;
    assert.equal(q.get("response_type"), "code");
    assert.equal(q.get("code_challenge_method"), "S256");
    assert.equal(q.get("redirect_uri"), `${BASE_URL}/auth/oidc/callback`);
    assert.equal(q.get("scope"), "openid email profile groups");
    // 32 random bytes each (256 bits), base64url.
    assert.match(q.get("state")!, /^[A-Za-z0-9_-]{43}$/);
    assert.match(q.get("nonce")!, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(q.get("state"), q.get("nonce"));
    const row = await t.sql.get<Record<string, string>>("SELECT * FROM sso_logins");
    assert.ok(row);
    assert.notEqual(row.state_hash, q.get("state"), "the state is stored hashed");
    assert.equal(row.nonce, q.get("nonce"));
    assert.equal(row.next_path, "/projects");
    assert.equal(Date.parse(row.expires_at!) - Date.parse(row.created_at!), 10 * 60_000);
    assert.equal(b.app.get("sso_state"), q.get("state"), "the browser keeps its state");
    // The login page offers the button.
    const page = await (await visit(t, browser(), "/login")).text();
    assert.match(page, /href="\/auth\/oidc\/start\?next=%2F"/);
    assert.match(page, /Sign in with SSO/);
  });
});

Deno.test("a first sign-in makes an account (the first is admin), with the provider's name and verified email; the next finds it by identity", async () => {
  await withSso(async (t) => {
    const b = browser();
    const done = await ssoSignIn(t, b, "japanese", "/settings");
    assert.equal(done.status, 303, done.text);
    assert.equal(done.location, "/settings");
    const user = await me(t, b);
    assert.equal(user.email, "hanako@example.jp");
    assert.equal(user.displayName, "山田 花子");
    assert.equal(user.role, "admin", "the first account of an empty server");
    assert.equal(user.emailVerified, true);
    const identities = expectJson(
      await api(t, "GET", "/api/users/me/identities", { cookie: b.app.header() }),
      200,
    );
    assert.equal(identities.items.length, 1);
    assert.equal(identities.items[0].subject, "japanese");
    assert.equal(
      identities.items[0].issuer,
      (await t.sql.get<{ issuer: string }>(
        "SELECT issuer FROM sso_identities",
      ))!.issuer,
    );
    // The second account is a member, unverified as the provider says.
    const b2 = browser();
    assert.equal((await ssoSignIn(t, b2, "unverified")).status, 303);
    const bob = await me(t, b2);
    assert.equal(bob.role, "member");
    assert.equal(bob.emailVerified, false);
    // Again: the same account, no new one.
    const before = await counts(t);
    const b3 = browser();
    assert.equal((await ssoSignIn(t, b3, "japanese")).status, 303);
    assert.equal((await me(t, b3)).id, user.id);
    assert.equal((await counts(t)).users, before.users);
    // The stored sign-ins were used up.
    assert.equal(await t.sql.count("sso_logins"), 0);
  });
});

Deno.test("an existing account is linked by email only when both the provider and the account say verified", async () => {
  await withSso(async (t) => {
    await signUp(t, "root@example.org");
    await signUp(t, "ada@example.com", { displayName: "Ada" });
    // The account's email is not verified: the password is asked for.
    const b = browser();
    const first = await ssoSignIn(t, b, "verified");
    assert.equal(first.location, "/auth/oidc/link");
    assert.equal(await me(t, b), null, "not signed in yet");
    assert.equal(await t.sql.count("sso_identities"), 0);
    // Once verified, the same identity links at once.
    await t.sql.run("UPDATE users SET email_verified = 1 WHERE email = 'ada@example.com'");
    const b2 = browser();
    const second = await ssoSignIn(t, b2, "verified");
    assert.equal(second.status, 303);
    assert.equal(second.location, "/");
    assert.equal((await me(t, b2)).email, "ada@example.com");
    assert.equal(await t.sql.count("sso_identities"), 1);
  });
});

Deno.test("the link page asks for the account's password once, then links and signs in; a wrong password links nothing", async () => {
  await withSso(async (t) => {
    await signUp(t, "root@example.org");
    await signUp(t, "bob@example.com", { displayName: "Bob" });
    await t.sql.run("UPDATE users SET email_verified = 1 WHERE email = 'bob@example.com'");
    // The provider says unverified: a verified account is still not linked by email alone.
    const b = browser();
    const done = await ssoSignIn(t, b, "unverified", "/projects");
    assert.equal(done.location, "/auth/oidc/link");
    const page = await (await visit(t, b, "/auth/oidc/link")).text();
    assert.match(page, /bob@example\.com/);
    const post = async (password: string) => {
      const res = await t.app.request("/auth/oidc/link", {
        method: "POST",
        headers: {
          cookie: b.app.header(),
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ password }),
      });
      b.app.take(res);
      return { status: res.status, location: res.headers.get("location"), text: await res.text() };
    };
    const wrong = await post("not the password");
    assert.equal(wrong.status, 401);
    assert.match(wrong.text, /Wrong password/);
    assert.equal(await t.sql.count("sso_identities"), 0);
    assert.equal(await me(t, b), null);
    const right = await post(PASSWORD);
    assert.equal(right.status, 303, right.text);
    assert.equal(right.location, "/projects");
    assert.equal((await me(t, b)).email, "bob@example.com");
    assert.equal(await t.sql.count("sso_identities"), 1);
    assert.equal(await t.sql.count("sso_pending_links"), 0, "used once");
    // Next time the identity signs in directly.
    const again = browser();
    assert.equal((await ssoSignIn(t, again, "unverified")).location, "/");
  });
});

Deno.test("admin groups grant and take away admin at each sign-in; without OIDC_ADMIN_GROUPS roles never change", async () => {
  await withSso(async (t, op) => {
    await signUp(t, "first@example.org");
    const b = browser();
    await ssoSignIn(t, b, "admin");
    assert.equal((await me(t, b)).role, "admin");
    await ssoSignIn(t, browser(), "staff");
    assert.equal(
      (await t.sql.get<{ role: string }>("SELECT role FROM users WHERE email = ?", [
        "carol@example.com",
      ]))!.role,
      "member",
    );
    // Taken away at the next sign-in.
    op.accounts.admin!.groups = ["staff"];
    const b2 = browser();
    await ssoSignIn(t, b2, "admin");
    assert.equal((await me(t, b2)).role, "member");
  }, { OIDC_ADMIN_GROUPS: "collab-admins" });
  await withSso(async (t) => {
    await signUp(t, "first@example.org");
    const b = browser();
    await ssoSignIn(t, b, "admin");
    assert.equal((await me(t, b)).role, "member", "groups ignored without OIDC_ADMIN_GROUPS");
  });
});

Deno.test("a disabled account stays disabled; a domain not allowed and auto-provisioning off are refused with pages; nothing is created", async () => {
  await withSso(async (t) => {
    await signUp(t, "root@example.com");
    const root = browser();
    await ssoSignIn(t, root, "admin");
    const ada = browser();
    await ssoSignIn(t, ada, "verified");
    const adaId = (await me(t, ada)).id;
    await t.sql.run("UPDATE users SET status = 'disabled' WHERE id = ?", [adaId]);
    const before = await counts(t);
    const b = browser();
    const refused = await ssoSignIn(t, b, "verified");
    assert.equal(refused.status, 403);
    assert.match(refused.text, /This account is disabled/);
    assert.equal(await me(t, b), null);
    const other = await ssoSignIn(t, browser(), "otherDomain");
    assert.equal(other.status, 403);
    assert.match(other.text, /email domain may not sign in/);
    assert.deepEqual(await counts(t), before);
  }, { OIDC_ALLOWED_DOMAINS: "example.com" });
  await withSso(async (t) => {
    await signUp(t, "root@example.org");
    const b = browser();
    const refused = await ssoSignIn(t, b, "verified");
    assert.equal(refused.status, 403);
    assert.match(refused.text, /not created automatically/);
    assert.equal(await t.sql.count("users"), 1);
  }, { OIDC_AUTO_PROVISION: "false" });
});

Deno.test("an identity without email makes no account: a page says so", async () => {
  await withSso(async (t) => {
    const refused = await ssoSignIn(t, browser(), "noEmail");
    assert.equal(refused.status, 403);
    assert.match(refused.text, /gave no email address/);
    assert.equal(await t.sql.count("users"), 0);
  });
});

Deno.test("LOCAL_LOGIN=admins lets only admins use a password; off hides the form and refuses passwords", async () => {
  await withSso(async (t) => {
    await signUp(t, "root@example.org");
    await signUp(t, "member@example.org");
    expectError(
      await api(t, "POST", "/api/auth/login", {
        body: { email: "member@example.org", password: PASSWORD },
      }),
      403,
      "local_login_off",
    );
    expectJson(
      await api(t, "POST", "/api/auth/login", {
        body: { email: "root@example.org", password: PASSWORD },
      }),
      200,
    );
    const page = await (await visit(t, browser(), "/login")).text();
    assert.match(page, /administrators only/);
  }, { LOCAL_LOGIN: "admins" });
  await withSso(async (t) => {
    await signUp(t, "root@example.org");
    expectError(
      await api(t, "POST", "/api/auth/login", {
        body: { email: "root@example.org", password: PASSWORD },
      }),
      403,
      "local_login_off",
    );
    assert.equal(expectJson(await api(t, "GET", "/api/auth/providers"), 200).localLogin, false);
    const page = await (await visit(t, browser(), "/login")).text();
    assert.doesNotMatch(page, /type="password"/);
    assert.match(page, /Sign in with SSO/);
  }, { LOCAL_LOGIN: "off" });
});

Deno.test("signing out of an SSO session answers the provider's end-session address; a password session 204", async () => {
  await withSso(async (t, op) => {
    const b = browser();
    await ssoSignIn(t, b, "verified");
    const res = await api(t, "POST", "/api/auth/logout", { cookie: b.app.header() });
    const { endSessionUrl } = expectJson(res, 200);
    const url = new URL(endSessionUrl);
    assert.equal(url.origin, op.issuer);
    assert.equal(url.searchParams.get("post_logout_redirect_uri"), BASE_URL);
    assert.ok(url.searchParams.get("id_token_hint"));
    assert.equal(await me(t, b), null, "signed out here");
    // The provider signs out too and sends the browser back to BASE_URL.
    assert.equal(await signInAt(b.op, endSessionUrl, null), `${BASE_URL}/`);
    // So the next sign-in asks for the login again (the provider's session ended).
    const again = await start(t, b);
    await assert.rejects(signInAt(b.op, again, null), /asks for a login/);
    // A password session: 204 as before.
    await signUp(t, "pw@example.org");
    const cookie = (await api(t, "POST", "/api/auth/login", {
      body: { email: "pw@example.org", password: PASSWORD },
    })).headers.getSetCookie()[0]!.split(";")[0]!;
    assert.equal((await api(t, "POST", "/api/auth/logout", { cookie })).status, 204);
  });
});

Deno.test("identities: unlink is 409 last_sign_in for the only way in, 204 once a password works; API tokens work for SSO accounts", async () => {
  await withSso(async (t) => {
    const b = browser();
    await ssoSignIn(t, b, "verified");
    const cookie = b.app.header();
    const { items } = expectJson(
      await api(t, "GET", "/api/users/me/identities", { cookie }),
      200,
    );
    const path = `/api/users/me/identities/${items[0].id}`;
    expectError(await api(t, "DELETE", path, { cookie }), 409, "last_sign_in");
    expectError(
      await api(t, "DELETE", "/api/users/me/identities/999", { cookie }),
      404,
      "not_found",
    );
    // An API token of the SSO account works.
    const token = expectJson(
      await api(t, "POST", "/api/tokens", { cookie, body: { name: "ci", scope: "read" } }),
      201,
    );
    const viaToken = await api(t, "GET", "/api/auth/me", {
      headers: { authorization: `Bearer ${token.secret}` },
    });
    assert.equal(expectJson(viaToken, 200).user.email, "ada@example.com");
    // With a password, the identity can go.
    const hash = (await t.sql.get<{ password_hash: string }>(
      "SELECT password_hash FROM users WHERE email = 'root@example.org'",
    ))?.password_hash;
    assert.equal(hash, undefined);
    await signUp(t, "helper@example.org");
    const withPassword = (await t.sql.get<{ password_hash: string }>(
      "SELECT password_hash FROM users WHERE email = 'helper@example.org'",
    ))!.password_hash;
    await t.sql.run("UPDATE users SET password_hash = ? WHERE email = 'ada@example.com'", [
      withPassword,
    ]);
    assert.equal((await api(t, "DELETE", path, { cookie })).status, 204);
    assert.equal(await t.sql.count("sso_identities WHERE subject = 'verified'"), 0);
  });
});

Deno.test("a forged, replayed, expired or other browser's state is refused with a page; nothing is created or signed in", async () => {
  await withSso(async (t) => {
    const b = browser();
    const callback = await atProvider(b, await start(t, b), "verified");
    // Another browser (no state cookie) brings the callback: refused, and the state stays.
    const thief = browser();
    tick(t);
    const stolen = await visit(t, thief, callback);
    assert.equal(stolen.status, 400);
    assert.match(await stolen.text(), /not valid any more/);
    // A forged state.
    const forged = callback.replace(/state=[^&]+/, "state=forged");
    const f = browser();
    f.app.set("sso_state", "forged");
    const res = await visit(t, f, forged);
    assert.equal(res.status, 400);
    await res.body?.cancel();
    // The right browser signs in once; the same callback again is refused.
    const state = b.app.get("sso_state")!;
    const ok = await visit(t, b, callback);
    await ok.body?.cancel();
    assert.equal(ok.status, 303);
    b.app.set("sso_state", state);
    const replay = await visit(t, b, callback);
    assert.equal(replay.status, 400);
    await replay.body?.cancel();
    assert.equal(await t.sql.count("users"), 1);
    // An expired state (11 minutes on the injected clock).
    const late = browser();
    const lateCallback = await atProvider(late, await start(t, late), "japanese");
    tick(t, 11 * 60_000);
    const expired = await visit(t, late, lateCallback);
    assert.equal(expired.status, 400);
    await expired.body?.cancel();
    assert.equal(await t.sql.count("users"), 1);
    assert.equal(await me(t, late), null);
  });
});

Deno.test("a wrong nonce, an expired ID token, a code of another client and another issuer's answer are refused; nothing is created", async () => {
  await withSso(async (t, op) => {
    // Wrong nonce: login 1's authorization request carrying login 2's nonce.
    const b = browser();
    const first = new URL(await start(t, b));
    const state1 = first.searchParams.get("state")!;
    const second = new URL(await start(t, b));
    first.searchParams.set("nonce", second.searchParams.get("nonce")!);
    b.app.set("sso_state", state1);
    const callback = await atProvider(b, first.href, "verified");
    tick(t);
    const nonce = await visit(t, b, callback);
    const nonceText = await nonce.text();
    assert.equal(nonce.status, 400, nonceText);
    assert.match(nonceText, /failed a security check/);
    assert.match(nonceText, /nonce/);
    // An ID token expired by our (injected) clock: two hours ahead of the provider's.
    const late = browser();
    tick(t, 2 * 3_600_000);
    const lateStart = await visit(t, late, "/auth/oidc/start");
    await lateStart.body?.cancel();
    const lateCallback = await atProvider(late, lateStart.headers.get("location")!, "verified");
    tick(t, 2 * 3_600_000);
    const expired = await visit(t, late, lateCallback);
    const expiredText = await expired.text();
    assert.equal(expired.status, 400, expiredText);
    assert.match(expiredText, /exp|expired|timestamp/i);
    // Another issuer: the same request answered by a second provider.
    const other = await startOidc({ baseUrl: BASE_URL });
    try {
      const c = browser();
      const url = new URL(await start(t, c));
      const elsewhere = new URL(url.pathname + url.search, other.issuer);
      const otherCallback = await atProvider(c, elsewhere.href, "verified");
      tick(t);
      const res = await visit(t, c, otherCallback);
      const text = await res.text();
      assert.ok(res.status >= 400, text);
      assert.match(text, new RegExp(other.issuer.replaceAll(".", "\\.") + "|iss", "i"));
    } finally {
      await other.close();
    }
    // A code for another client id at the same provider.
    const d = browser();
    const url = new URL(await start(t, d));
    url.searchParams.set("client_id", "someone-else");
    const answer = await fetch(url, { redirect: "manual" });
    await answer.body?.cancel();
    assert.notEqual(answer.status, 302, "the provider refuses an unknown client");
    assert.equal(await t.sql.count("users"), 0);
    assert.equal(await t.sql.count("sessions"), 0);
    void op;
  });
});

Deno.test("a code issued to another application at the same provider (our redirect URI, our state) buys no token for us: refused, nothing created", async () => {
  await withSso(async (t) => {
    // Our sign-in's request, sent as the other application's: the provider gives a code for
    // that audience, and the browser brings it to our callback with our state.
    const b = browser();
    const url = new URL(await start(t, b));
    url.searchParams.set("client_id", OTHER_CLIENT_ID);
    const callback = await atProvider(b, url.href, "verified");
    tick(t);
    const res = await visit(t, b, callback);
    const text = await res.text();
    // We exchange it with our own credentials: the provider refuses (the code is another
    // client's), so no ID token of any audience reaches the checks.
    assert.equal(res.status, 502, text);
    assert.match(text, /invalid_grant/);
    assert.equal(await me(t, b), null);
    assert.deepEqual(await counts(t), { users: 0, identities: 0, sessions: 0 });
    assert.match(t.app.services.sso!.status().lastFailure!.reason, /invalid_grant/);
  });
});

Deno.test("a provider that is down or answers garbage is refused with its reason; discovery is tried again after a failure", async () => {
  // A free port with nothing on it yet.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const issuer = `http://127.0.0.1:${port}`;
  const t = await ssoApp({ issuer });
  try {
    const down = await visit(t, browser(), "/auth/oidc/start");
    const text = await down.text();
    assert.equal(down.status, 502);
    assert.match(text, /discovery document/);
    const status = t.app.services.sso!.status();
    assert.equal(status.discovered, false);
    assert.ok(status.lastFailure?.reason.includes("discovery"));
    // Garbage on that port.
    const garbage = Deno.serve(
      { hostname: "127.0.0.1", port, onListen: () => {} },
      () => new Response("<html>not json</html>", { headers: { "content-type": "text/html" } }),
    );
    try {
      const res = await visit(t, browser(), "/auth/oidc/start");
      assert.equal(res.status, 502);
      await res.body?.cancel();
    } finally {
      await garbage.shutdown();
    }
    // The provider comes up there: discovery is read again and the sign-in works.
    const op = await startOidc({ baseUrl: BASE_URL, port });
    try {
      const b = browser();
      const done = await ssoSignIn(t, b, "verified");
      assert.equal(done.status, 303, done.text);
      assert.equal(t.app.services.sso!.status().discovered, true);
      assert.equal(await t.sql.count("users"), 1);
    } finally {
      await op.close();
    }
    // Down in the middle of a sign-in: refused, nothing created, discovery read again later.
    const op2 = await startOidc({ baseUrl: BASE_URL, port });
    const b = browser();
    const callback = await atProvider(b, await start(t, b), "japanese");
    await op2.close();
    tick(t);
    const cut = await visit(t, b, callback);
    assert.equal(cut.status, 502);
    await cut.body?.cancel();
    assert.equal(t.app.services.sso!.status().discovered, false);
    assert.equal(await t.sql.count("users"), 1);
  } finally {
    await t.close();
  }
});

Deno.test("an issuer that is not OIDC_ISSUER exactly is refused with that reason", async () => {
  const op = await startOidc({ baseUrl: BASE_URL });
  try {
    const t = await ssoApp({ issuer: `${op.issuer}/` });
    try {
      const res = await visit(t, browser(), "/auth/oidc/start");
      const text = await res.text();
      assert.equal(res.status, 502);
      assert.match(text, /issuer/);
      assert.match(t.app.services.sso!.status().lastFailure!.reason, /issuer/);
    } finally {
      await t.close();
    }
  } finally {
    await op.close();
  }
});

Deno.test("next pointing off-site goes home instead", async () => {
  await withSso(async (t) => {
    for (const next of ["//evil.example/x", "https://evil.example/", "/\\evil.example", "x"]) {
      const b = browser();
      const done = await ssoSignIn(t, b, "verified", next);
      assert.equal(done.status, 303);
      assert.equal(done.location, "/", next);
    }
  });
});

Deno.test("client_secret_post when the provider offers only that", async () => {
  const op = await startOidc({
    baseUrl: BASE_URL,
    clientAuth: "client_secret_post",
    authMethods: ["client_secret_post"],
  });
  try {
    const t = await ssoApp(op);
    try {
      const done = await ssoSignIn(t, browser(), "verified");
      assert.equal(done.status, 303, done.text);
    } finally {
      await t.close();
    }
  } finally {
    await op.close();
  }
});

Deno.test("without OIDC_ISSUER there is no SSO: providers says null, the start is 404", async () => {
  const t = await testApp();
  try {
    assert.equal(expectJson(await api(t, "GET", "/api/auth/providers"), 200).oidc, null);
    const res = await t.app.request("/auth/oidc/start");
    await res.body?.cancel();
    assert.equal(res.status, 404);
  } finally {
    await t.close();
  }
});

Deno.test("audit: an SSO sign-in, a link through the password page and an unlink are one row each; a wrong link password and a refused unlink add no link row", async () => {
  await withSso(async (t, op) => {
    const rows = (action: string) =>
      t.sql.all<{ actor_id: number | null; actor_email: string | null; details: string }>(
        "SELECT actor_id, actor_email, details FROM audit_log WHERE action = ? ORDER BY id",
        [action],
      );
    // A first sign-in makes the account, links the identity and signs in: one row of each.
    const ada = browser();
    await ssoSignIn(t, ada, "verified");
    const adaUser = await me(t, ada);
    assert.deepEqual((await rows("sso.linked")).map((r) => r.actor_id), [adaUser.id]);
    const logins = await rows("auth.login");
    assert.equal(logins.length, 1);
    assert.equal(JSON.parse(logins[0]!.details).via, "sso");
    // The only way in cannot be unlinked: refused, no row.
    const cookie = ada.app.header();
    const { items } = expectJson(await api(t, "GET", "/api/users/me/identities", { cookie }), 200);
    const path = `/api/users/me/identities/${items[0].id}`;
    expectError(await api(t, "DELETE", path, { cookie }), 409, "last_sign_in");
    assert.equal((await rows("sso.unlinked")).length, 0);

    // Linking an unverified identity: a wrong password is a failed sign-in, never a link.
    await signUp(t, "bob@example.com", { displayName: "Bob" });
    const bob = browser();
    assert.equal((await ssoSignIn(t, bob, "unverified")).location, "/auth/oidc/link");
    const post = async (password: string) => {
      const res = await t.app.request("/auth/oidc/link", {
        method: "POST",
        headers: {
          cookie: bob.app.header(),
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ password }),
      });
      bob.app.take(res);
      await res.body?.cancel();
      return res.status;
    };
    assert.equal(await post("not the password"), 401);
    const failed = await rows("auth.login_failed");
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.actor_email, "bob@example.com");
    assert.ok(!failed[0]!.details.includes("not the password"), "never the password");
    assert.equal((await rows("sso.linked")).length, 1);
    assert.equal(await post(PASSWORD), 303);
    const bobUser = await me(t, bob);
    assert.deepEqual((await rows("sso.linked")).map((r) => r.actor_id), [adaUser.id, bobUser.id]);

    // Bob has a password: his identity can go, one row.
    const bobIdentities = expectJson(
      await api(t, "GET", "/api/users/me/identities", { cookie: bob.app.header() }),
      200,
    );
    const unlinked = await api(
      t,
      "DELETE",
      `/api/users/me/identities/${bobIdentities.items[0].id}`,
      { cookie: bob.app.header() },
    );
    assert.equal(unlinked.status, 204);
    const rowsUnlinked = await rows("sso.unlinked");
    assert.deepEqual(rowsUnlinked.map((r) => r.actor_id), [bobUser.id]);
    assert.equal(JSON.parse(rowsUnlinked[0]!.details).issuer, op.issuer);
  });
});
