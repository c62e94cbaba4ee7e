/**
 * Who may join: `REGISTRATION` (open, invite, closed) and `REGISTRATION_DOMAINS`, the first
 * account of an empty server, the refusals' codes (nothing is created), the configuration's
 * problems, and `GET /api/auth/providers`.
 */
import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "../../domain/config.ts";
import { testApp } from "../helpers/app.ts";
import { api, expectError, expectJson, PASSWORD, signUp } from "../helpers/api.ts";

function registerBody(email: string) {
  return { body: { email, password: PASSWORD, displayName: email.split("@")[0] } };
}

for (const mode of ["invite", "closed"]) {
  Deno.test(`REGISTRATION=${mode}: the first account registers (admin), later ones are 403 registration_closed and nothing is made`, async () => {
    const t = await testApp({ env: { REGISTRATION: mode } });
    try {
      const first = await signUp(t, "root@example.com");
      assert.equal(first.user.role, "admin");
      const res = await api(t, "POST", "/api/auth/register", registerBody("late@example.com"));
      expectError(res, 403, "registration_closed");
      assert.equal(res.cookies.length, 0);
      assert.equal(await t.sql.count("users"), 1);
      assert.deepEqual(expectJson(await api(t, "GET", "/api/auth/providers"), 200), {
        registration: mode,
        localLogin: true,
        oidc: null,
        passwordReset: false,
      });
    } finally {
      await t.close();
    }
  });
}

Deno.test("REGISTRATION_DOMAINS: exact domains, case-insensitive; a subdomain or another domain is 403 registration_domain; the first account of any domain", async () => {
  const t = await testApp({ env: { REGISTRATION_DOMAINS: "Example.com, example.org" } });
  try {
    await signUp(t, "root@elsewhere.net");
    await signUp(t, "Ada@EXAMPLE.COM");
    await signUp(t, "bob@example.org");
    for (const email of ["c@sub.example.com", "d@example.com.evil.net", "e@other.net"]) {
      expectError(
        await api(t, "POST", "/api/auth/register", registerBody(email)),
        403,
        "registration_domain",
      );
    }
    assert.equal(await t.sql.count("users"), 3);
  } finally {
    await t.close();
  }
});

Deno.test("by default registration is open to any domain; providers say so without a session, and passwordReset follows mail", async () => {
  const t = await testApp();
  const mail = await testApp({
    env: { BASE_URL: "https://collab.example.org", SMTP_URL: "smtp://127.0.0.1:1" },
  });
  try {
    await signUp(t, "root@example.com");
    await signUp(t, "x@anything.example");
    assert.deepEqual(expectJson(await api(t, "GET", "/api/auth/providers"), 200), {
      registration: "open",
      localLogin: true,
      oidc: null,
      passwordReset: false,
    });
    assert.equal(
      expectJson(await api(mail, "GET", "/api/auth/providers"), 200).passwordReset,
      true,
    );
  } finally {
    await t.close();
    await mail.close();
  }
});

Deno.test("bad REGISTRATION and REGISTRATION_DOMAINS values stop start-up with a line naming the variable", () => {
  const problems = (env: Record<string, string>) => {
    try {
      parseConfig(env);
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.problems;
    }
    return [];
  };
  assert.deepEqual(problems({ REGISTRATION: "invite-only" }), [
    'REGISTRATION="invite-only": expected open, invite or closed',
  ]);
  assert.match(
    problems({ REGISTRATION_DOMAINS: "example.com,,@x" })[0] ?? "",
    /^REGISTRATION_DOMAINS=.*"@x" is not a domain name/,
  );
  assert.match(
    problems({ REGISTRATION_DOMAINS: "example.com", REGISTRATION: "closed" })[0] ?? "",
    /^REGISTRATION_DOMAINS is set but REGISTRATION=closed/,
  );
  assert.deepEqual(parseConfig({ REGISTRATION: "Invite" }).registration, "invite");
  assert.deepEqual(
    parseConfig({ REGISTRATION_DOMAINS: " A.example ,b.example" }).registrationDomains,
    [
      "a.example",
      "b.example",
    ],
  );
  assert.deepEqual(parseConfig({}).registration, "open");
  assert.deepEqual(parseConfig({}).registrationDomains, []);
});
