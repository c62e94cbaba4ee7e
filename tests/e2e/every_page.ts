/**
 * A server filled so that every page has something on it (long names and Japanese titles being
 * the hard case for a narrow screen), and the list of those pages: for the browser tests that
 * visit every page. Single sign-on is on, toward a provider that is down, so the sign-in page
 * shows its button, the settings and admin pages their SSO parts, and a sign-in's start its
 * refusal page.
 */
import assert from "node:assert/strict";
import { type Json, PNG_BYTES } from "../helpers/api.ts";
import { type TestServer, testServer } from "../helpers/app.ts";
import { freePort } from "../helpers/smtp.ts";
import { newLinkToken } from "../../domain/accounts/link_tokens.ts";

/** Nothing listens on port 9: the provider is down, and the refusal page says why. */
const DOWN_ISSUER = "http://127.0.0.1:9";

/**
 * The server `seedEveryPage` fills: webhooks may post to 127.0.0.1, BASE_URL is its own
 * address, and single sign-on goes to a provider that is down.
 */
export async function everyPageServer(): Promise<TestServer> {
  const port = freePort();
  return await testServer({
    env: {
      WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
      BASE_URL: `http://127.0.0.1:${port}`,
      OIDC_ISSUER: DOWN_ISSUER,
      OIDC_CLIENT_ID: "collab",
      OIDC_CLIENT_SECRET: "collab-client-secret",
    },
  }, port);
}

/** What `seedEveryPage` made: the accounts' cookies, the project and every page's path. */
export interface EveryPage {
  /** `session=…` of the admin, who sees every page. */
  ann: string;
  /** The admin's email (a mention of it is the reader's own on the admin's pages). */
  annEmail: string;
  /** `session=…` of a member. */
  bo: string;
  projectId: number;
  /** A note, whose page has a Markdown box. */
  noteId: number;
  /** The pages a signed-in admin sees, each answering 200. */
  paths: string[];
  /** The pages for a visitor without a session (each 200, but those in `statuses`). */
  publicPaths: string[];
  /**
   * The public pages that answer another status than 200 with a page of their own: a link that
   * does not work (404), a single sign-on refused (400, 502).
   */
  statuses: Record<string, number>;
  /**
   * The single sign-on link page as a visitor with a waiting link sees it (200, the password
   * form): the path, and the cookie its browser holds (scoped to `/auth/oidc`).
   */
  ssoLink: { path: string; cookie: { name: string; value: string; path: string } };
  /** A new email verification link's page for the admin (opening it verifies, once). */
  verifyPath(): Promise<string>;
}

/** A JSON (or multipart) call to the server; answers the status, body and any new session. */
export async function callJson(
  baseUrl: string,
  method: string,
  path: string,
  cookie: string | null,
  body?: unknown,
): Promise<{ status: number; json: Json; cookie: string | null }> {
  const multipart = body instanceof FormData;
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(body === undefined || multipart ? {} : { "content-type": "application/json" }),
      ...(cookie ? { cookie } : {}),
      origin: baseUrl,
    },
    ...(body === undefined ? {} : { body: multipart ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  const set = res.headers.getSetCookie().find((c) => c.startsWith("session="));
  return {
    status: res.status,
    json: text ? JSON.parse(text) : {},
    cookie: set ? set.split(";")[0]! : null,
  };
}

/**
 * Registers an admin and a member and gives one project an entry in every area, a note in the
 * trash, a token, a webhook and notifications; the admin an SSO identity and the member a link
 * waiting for a password. The server is `everyPageServer()`'s.
 */
export async function seedEveryPage(t: TestServer): Promise<EveryPage> {
  const register = async (email: string, displayName: string) => {
    const res = await callJson(t.baseUrl, "POST", "/api/auth/register", null, {
      email,
      password: "correct horse battery",
      displayName,
    });
    assert.equal(res.status, 201);
    return { cookie: res.cookie!, id: res.json.user.id as number };
  };
  // The first account is the admin.
  const annEmail = "ann.with.a.rather.long.address@example.com";
  const ann = (await register(annEmail, "Ann Longname")).cookie;
  const bo = await register("bo@example.com", "ボー・ジャクソン");
  const ok = async (method: string, path: string, body?: unknown, cookie = ann) => {
    const res = await callJson(t.baseUrl, method, path, cookie, body);
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
    return res.json;
  };
  const { project } = await ok("POST", "/api/projects", {
    name: "四半期計画とマーケティング戦略の見直し",
    description: "A long description of the project that goes on for a while, with a " +
      "[link](https://example.com/a/rather/long/path/that/does/not/break) in it.",
  });
  const p = `/api/projects/${project.id}`;
  await ok("POST", `${p}/members`, { email: "bo@example.com", role: "member" });
  const { thread } = await ok("POST", `${p}/board/threads`, {
    title: "Kick-off for the quarterly planning review",
    body: "Agenda below, see [the notes](https://example.com).",
    category: "announcement",
  });
  await ok("POST", `${p}/board/threads/${thread.id}/comments`, { body: "Thanks" });
  const { note } = await ok("POST", `${p}/notes`, {
    title: "Plan",
    body: "# Plan\n\n- one\n- two",
    tags: ["plan"],
  });
  const { note: gone } = await ok("POST", `${p}/notes`, { title: "Old plan", body: "x" });
  await ok("DELETE", `${p}/notes/${gone.id}`);
  const { milestone } = await ok("POST", `${p}/milestones`, {
    title: "Beta release",
    dueDate: "2026-11-28",
  });
  const { item } = await ok("POST", `${p}/todos/items`, {
    title: "プレゼン資料の最終確認と印刷、会議室の予約",
    priority: "low",
    milestoneId: milestone.id,
    dueDate: "2026-11-26",
    tags: ["slides"],
  });
  await ok("POST", `${p}/todos/items`, { title: "Book room", priority: "high" });
  // A checklist, one entry done: the item page's forms and the card's count.
  const checklist = `${p}/todos/items/${item.id}/checklist`;
  const { entry: slides } = await ok("POST", checklist, { text: "Draft the slides" });
  await ok("POST", checklist, { text: "Rehearse" });
  await ok("PATCH", `${checklist}/${slides.id}`, { done: true });
  const upload = new FormData();
  upload.set("file", new File(["hello"], "a-file-with-a-long-name.txt", { type: "text/plain" }));
  await ok("POST", `${p}/files`, upload);
  // An image: its thumbnail on the files page and on the to-do it is attached to; the pickers
  // on the to-do, board and chat pages offer both files.
  const image = new FormData();
  image.set("file", new File([PNG_BYTES as BlobPart], "logo.png", { type: "image/png" }));
  const { file: png } = await ok("POST", `${p}/files`, image);
  await ok("POST", `${p}/todos/items/${item.id}/attachments`, { fileIds: [png.id] });
  const { event } = await ok("POST", `${p}/calendar/events`, {
    title: "Quarterly planning review with the whole team",
    startAt: "2026-11-24T10:00:00Z",
    endAt: "2026-11-24T11:00:00Z",
  });
  const { meeting } = await ok("POST", `${p}/meetings`, {
    title: "Weekly",
    startAt: "2026-11-25T10:00:00Z",
    endAt: "2026-11-25T11:00:00Z",
    inviteeIds: [bo.id],
  });
  await ok("POST", "/api/tokens", { name: "CI", scope: "read" });
  // Nothing listens on port 9: a delivery fails at once, which the page shows too.
  await ok("POST", `${p}/webhooks`, { url: "http://127.0.0.1:9/collab", events: ["*"] });
  await ok("POST", `${p}/chat/messages`, { text: "@bo@example.com hello, the plan is ready" });
  // Bo's mention of Ann puts a notification on Ann's list.
  await ok(
    "POST",
    `${p}/chat/messages`,
    { text: "@ann.with.a.rather.long.address@example.com" },
    bo.cookie,
  );

  // Invitations: a pending one to the project (its link's page, the project's list) and one
  // to the server (the admin's list).
  const invited = await ok("POST", `${p}/invitations`, {
    email: "a.newcomer.with.a.rather.long.address@example.com",
    role: "viewer",
  });
  await ok("POST", "/api/admin/invitations", { email: "next.admin@example.com", role: "admin" });
  const invite = new URL(invited.url).pathname;

  // Single sign-on: the admin's identity (the settings page lists it with its unlink button),
  // a sign-in that fails at the provider (the admin page shows the last failure), and a link
  // of the member's waiting for the password.
  const now = t.clock.now();
  await t.sql.run(
    `INSERT INTO sso_identities (user_id, issuer, subject, email, linked_at)
     VALUES (1, ?, 'ann-subject-0123456789', ?, ?)`,
    [DOWN_ISSUER, annEmail, now.toISOString()],
  );
  const start = await fetch(`${t.baseUrl}/auth/oidc/start`);
  assert.equal(start.status, 502);
  await start.body?.cancel();
  const link = newLinkToken();
  await t.sql.run(
    `INSERT INTO sso_pending_links (token_hash, user_id, issuer, subject, email, id_token,
       next_path, created_at, expires_at)
     VALUES (?, ?, ?, 'bo-subject', 'bo@example.com', 'not.a.token', '/', ?, ?)`,
    [
      link.hash,
      bo.id,
      DOWN_ISSUER,
      now.toISOString(),
      new Date(now.getTime() + 600_000).toISOString(),
    ],
  );

  // The loan console: customers (a long Japanese name, one blacklisted), decisions, and a flag
  // changed with a reason (the customer's history).
  const soap = async (body: string) => {
    const res = await fetch(`${t.baseUrl}/loan`, {
      method: "POST",
      headers: { "content-type": "text/xml; charset=utf-8", soapaction: '""' },
      body: `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ` +
        `xmlns:soap="http://soap.example.com/"><soapenv:Body>${body}</soapenv:Body>` +
        `</soapenv:Envelope>`,
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  };
  const customer = "株式会社ロングネーム・インターナショナル・ホールディングス 山田太郎";
  for (const [name, flag] of [[customer, false], ["Bad Actor", true]] as const) {
    await soap(
      `<soap:registerNewCustomer><arg0><customerName>${name}</customerName>` +
        `<blacklisted>${flag}</blacklisted></arg0></soap:registerNewCustomer>`,
    );
    await soap(
      `<soap:processLoanApplication><arg0><applicantName>${name}</applicantName>` +
        `<requestedAmount>250000</requestedAmount></arg0></soap:processLoanApplication>`,
    );
  }
  await ok("PATCH", `/api/loan/customers/${encodeURIComponent(customer)}`, {
    blacklisted: false,
    reason: "Confirmed identity at the branch; the earlier fraud report was about someone else",
  });

  const q = `/projects/${project.id}`;
  return {
    ann,
    annEmail,
    bo: bo.cookie,
    projectId: project.id,
    noteId: note.id,
    paths: [
      "/",
      "/projects",
      "/projects?archived=true",
      q,
      `${q}/board`,
      `${q}/board/${thread.id}`,
      `${q}/notes`,
      `${q}/notes/${note.id}`,
      `${q}/chat`,
      `${q}/todos`,
      `${q}/todos/${item.id}`,
      `${q}/files`,
      `${q}/calendar?month=2026-11`,
      `${q}/calendar?view=week&week=2026-11-23`,
      `${q}/calendar/events/${event.id}`,
      `${q}/milestones`,
      `${q}/meetings`,
      `${q}/meetings/${meeting.id}`,
      `${q}/activity`,
      `${q}/search?q=plan`,
      `${q}/trash`,
      `${q}/webhooks`,
      "/search?q=plan",
      "/notifications",
      "/settings",
      "/settings/tokens",
      "/settings/calendar",
      "/admin",
      `${q}/invitations`,
      "/admin/invitations",
      "/admin/audit",
      "/admin/audit?action=auth.login&from=2026-11-01&to=2026-11-30",
      "/loan-console",
      "/loan-console?q=Bad&blacklisted=true",
      `/loan-console/customers/${encodeURIComponent(customer)}`,
      "/loan-console/decisions",
      "/loan-console/decisions?approved=false&reason=blacklisted&from=2026-11-01",
      // Signed in with another email: the page says so.
      invite,
    ],
    // The unsubscribe page looks the same for any token, known or not.
    publicPaths: [
      "/login",
      "/register",
      "/unsubscribe/not-a-token",
      invite,
      "/invite/not-a-working-token",
      "/forgot-password",
      "/forgot-password?sent=1",
      "/login?reset=1",
      // An admin's reset link (the server has no mail): its page shows the new-password form.
      new URL((await ok("POST", `/api/admin/users/${bo.id}/password-reset`)).url).pathname,
      "/reset-password/not-a-token",
      "/verify-email/not-a-token",
      // Single sign-on: the start refused (the provider is down: its reason for the admin), a
      // callback with a state this browser never had, the link page without a waiting link.
      "/auth/oidc/start",
      "/auth/oidc/callback?code=forged&state=forged",
      "/auth/oidc/link",
    ],
    statuses: {
      "/invite/not-a-working-token": 404,
      "/reset-password/not-a-token": 404,
      "/verify-email/not-a-token": 404,
      "/auth/oidc/start": 502,
      "/auth/oidc/callback?code=forged&state=forged": 400,
      "/auth/oidc/link": 404,
    },
    ssoLink: {
      path: "/auth/oidc/link",
      cookie: { name: "sso_link", value: link.token, path: "/auth/oidc" },
    },
    // Without mail no verification mail goes: the link is stored as the mailer would store it.
    verifyPath: async () => {
      const { token, hash } = newLinkToken();
      const now = t.clock.now().getTime();
      await t.sql.run(
        `INSERT INTO account_links (token_hash, user_id, kind, mailed, created_at, expires_at)
         VALUES (?, 1, 'verify', 1, ?, ?)`,
        [hash, new Date(now).toISOString(), new Date(now + 3_600_000).toISOString()],
      );
      return `/verify-email/${token}`;
    },
  };
}
