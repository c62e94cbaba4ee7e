/** At a phone's width (390 px) no page scrolls sideways, in English and Japanese. */
import assert from "node:assert/strict";
import { testServer } from "../helpers/app.ts";
import type { Json } from "../helpers/api.ts";
import { browserTest, launch } from "./browser.ts";

async function call(
  baseUrl: string,
  method: string,
  path: string,
  cookie: string | null,
  body?: unknown,
): Promise<{ status: number; json: Json; cookie: string | null }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(cookie ? { cookie } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const set = res.headers.getSetCookie().find((c) => c.startsWith("session="));
  return {
    status: res.status,
    json: text ? JSON.parse(text) : {},
    cookie: set ? set.split(";")[0]! : null,
  };
}

browserTest("no page is wider than a 390 px phone screen, in English and Japanese", async () => {
  const t = await testServer();
  const browser = await launch();
  try {
    const register = (email: string, displayName: string) =>
      call(t.baseUrl, "POST", "/api/auth/register", null, {
        email,
        password: "correct horse battery",
        displayName,
      });
    // The first account is the admin; the long names and titles are the hard case.
    const ann = (await register("ann.with.a.rather.long.address@example.com", "Ann Longname"))
      .cookie!;
    await register("bo@example.com", "ボー・ジャクソン");
    const { json: { project } } = await call(t.baseUrl, "POST", "/api/projects", ann, {
      name: "四半期計画とマーケティング戦略の見直し",
      description: "A long description of the project that goes on for a while.",
    });
    const p = `/api/projects/${project.id}`;
    await call(t.baseUrl, "POST", `${p}/members`, ann, { email: "bo@example.com", role: "member" });
    const { json: { item } } = await call(t.baseUrl, "POST", `${p}/todos/items`, ann, {
      title: "プレゼン資料の最終確認と印刷、会議室の予約",
    });
    await call(t.baseUrl, "POST", `${p}/calendar/events`, ann, {
      title: "Quarterly planning review with the whole team",
      startAt: "2026-11-24T10:00:00+09:00",
      endAt: "2026-11-24T11:00:00+09:00",
    });
    await call(t.baseUrl, "POST", `${p}/milestones`, ann, {
      title: "Beta release",
      dueDate: "2026-11-28",
    });
    await call(t.baseUrl, "POST", `${p}/chat/messages`, ann, { text: "@bo@example.com hello" });

    const paths = [
      "/",
      "/projects",
      `/projects/${project.id}`,
      `/projects/${project.id}/board`,
      `/projects/${project.id}/notes`,
      `/projects/${project.id}/chat`,
      `/projects/${project.id}/todos`,
      `/projects/${project.id}/todos/${item.id}`,
      `/projects/${project.id}/files`,
      `/projects/${project.id}/calendar?month=2026-11`,
      `/projects/${project.id}/milestones`,
      `/projects/${project.id}/meetings`,
      `/projects/${project.id}/activity`,
      "/notifications",
      `/projects/${project.id}/search?q=plan`,
      "/settings",
      "/admin",
    ];
    const wide: string[] = [];
    for (const locale of ["en", "ja"]) {
      const changed = await call(t.baseUrl, "PATCH", "/api/users/me", ann, { locale });
      assert.equal(changed.status, 200);
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const [name, value] = ann.split("=") as [string, string];
      await context.addCookies([{ name, value, url: t.baseUrl }]);
      const page = await context.newPage();
      for (const path of paths) {
        const res = await page.goto(`${t.baseUrl}${path}`);
        assert.equal(res?.status(), 200, `${locale} ${path}`);
        assert.equal(await page.getAttribute("html", "lang"), locale);
        const [scroll, inner] = await page.evaluate(
          "[document.documentElement.scrollWidth, innerWidth]",
        ) as [number, number];
        if (scroll > inner) {
          const culprits = await page.evaluate(
            `[...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > innerWidth + 1).slice(0, 8).map((e) => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right)).join(" | ")`,
          );
          wide.push(`${locale} ${path}: ${scroll} px (${culprits})`);
        }
      }
      await context.close();
    }
    assert.deepEqual(wide, []);
  } finally {
    await browser.close();
    await t.close();
  }
});
