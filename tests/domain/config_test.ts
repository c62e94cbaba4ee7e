/** The configuration: parsing limits, and the README's table kept in step with the code. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CONFIG_VARIABLES, ConfigError, parseConfig } from "../../domain/config.ts";

const README = join(import.meta.dirname!, "..", "..", "README.md");

Deno.test("CONFIG_VARIABLES names exactly the variables parseConfig reads (main.ts reads no others)", async () => {
  const read = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get: (_, name) => {
      if (typeof name === "string") read.add(name);
      return undefined;
    },
  });
  const config = parseConfig(env);
  assert.deepEqual([...read].sort(), CONFIG_VARIABLES.map(([name]) => name).sort());
  // The stated numeric and textual defaults are the ones parseConfig applies.
  const stated = new Map<string, string>(
    CONFIG_VARIABLES.map(([name, fallback]) => [name, fallback]),
  );
  assert.equal(String(config.port), stated.get("PORT"));
  assert.equal(config.host, stated.get("HOST"));
  assert.equal(config.dataDir, stated.get("DATA_DIR"));
  assert.equal(config.filesDir, join("./data", "files")); // "DATA_DIR/files"
  assert.equal(config.soapNamespace, stated.get("SOAP_NAMESPACE"));
  assert.equal(String(config.sessionTtlHours), stated.get("SESSION_TTL_HOURS"));
  assert.equal(String(config.maxUploadMb), stated.get("MAX_UPLOAD_MB"));
  assert.equal(String(config.sseHeartbeatMs), stated.get("SSE_HEARTBEAT_MS"));
  assert.equal(String(config.sseMaxStreams), stated.get("SSE_MAX_STREAMS"));
  assert.equal(String(config.sseMaxStreamsPerUser), stated.get("SSE_MAX_STREAMS_PER_USER"));
  assert.equal(String(config.registerLimitPerHour), stated.get("REGISTER_LIMIT_PER_HOUR"));
  assert.equal(String(config.trashDays), stated.get("TRASH_DAYS"));
  assert.equal(String(config.maxImportMb), stated.get("MAX_IMPORT_MB"));
  assert.equal(config.baseUrl, null);
  assert.equal(config.sessionSecret, null);
  assert.equal(String(config.mailDelaySeconds), stated.get("MAIL_DELAY_SECONDS"));
  assert.equal(config.smtp, null);
  // main.ts hands parseConfig the environment and reads nothing else from it.
  const main = await Deno.readTextFile(join(import.meta.dirname!, "..", "..", "main.ts"));
  assert.deepEqual([...main.matchAll(/Deno\.env\.\w+/g)].map((m) => m[0]), ["Deno.env.toObject"]);
});

Deno.test("the README's configuration table lists exactly CONFIG_VARIABLES, with their defaults", async () => {
  const text = await Deno.readTextFile(README);
  const rows = new Map<string, string>();
  for (const match of text.matchAll(/^\| `([A-Z][A-Z0-9_]+)` *\| ([^|]+?) *\|/gm)) {
    rows.set(match[1]!, match[2]!);
  }
  assert.deepEqual([...rows.keys()].sort(), CONFIG_VARIABLES.map(([name]) => name).sort());
  for (const [name, fallback] of CONFIG_VARIABLES) {
    const shown = rows.get(name)!.replaceAll("`", "");
    assert.ok(shown.startsWith(fallback), `${name}: README says ${shown}, code says ${fallback}`);
  }
});

Deno.test("FILES_DIR is where files go, by default files in DATA_DIR", () => {
  assert.equal(parseConfig({ DATA_DIR: "/srv/collab" }).filesDir, "/srv/collab/files");
  assert.equal(
    parseConfig({ DATA_DIR: "/srv/collab", FILES_DIR: "/mnt/shared/files" }).filesDir,
    "/mnt/shared/files",
  );
  assert.equal(parseConfig({ FILES_DIR: "" }).filesDir, join("./data", "files"), "empty: unset");
});

Deno.test("the stream limits are read from the environment and checked", () => {
  const config = parseConfig({ SSE_MAX_STREAMS: "5000", SSE_MAX_STREAMS_PER_USER: "500" });
  assert.equal(config.sseMaxStreams, 5000);
  assert.equal(config.sseMaxStreamsPerUser, 500);
  const defaults = parseConfig({});
  assert.equal(defaults.sseMaxStreams, 1000);
  assert.equal(defaults.sseMaxStreamsPerUser, 10);
  assert.throws(
    () => parseConfig({ SSE_MAX_STREAMS: "0", SSE_MAX_STREAMS_PER_USER: "ten" }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.problems.length, 2);
      assert.match(error.problems[0]!, /SSE_MAX_STREAMS="0"/);
      assert.match(error.problems[1]!, /SSE_MAX_STREAMS_PER_USER="ten"/);
      return true;
    },
  );
});

Deno.test("REGISTER_LIMIT_PER_HOUR defaults to 20, is read from the environment and checked", () => {
  assert.equal(parseConfig({}).registerLimitPerHour, 20);
  assert.equal(parseConfig({ REGISTER_LIMIT_PER_HOUR: "500" }).registerLimitPerHour, 500);
  for (const bad of ["0", "-1", "ten", "2.5"]) {
    assert.throws(
      () => parseConfig({ REGISTER_LIMIT_PER_HOUR: bad }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.length === 1 &&
        error.problems[0]!.startsWith(`REGISTER_LIMIT_PER_HOUR=${JSON.stringify(bad)}`),
      bad,
    );
  }
});

Deno.test("TRASH_DAYS defaults to 30, takes 0 (purge at the next sweep) and refuses the rest", () => {
  assert.equal(parseConfig({}).trashDays, 30);
  assert.equal(parseConfig({ TRASH_DAYS: "0" }).trashDays, 0);
  assert.equal(parseConfig({ TRASH_DAYS: "7" }).trashDays, 7);
  for (const bad of ["-1", "seven", "1.5", "36501"]) {
    assert.throws(
      () => parseConfig({ TRASH_DAYS: bad }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.length === 1 &&
        error.problems[0]!.startsWith(`TRASH_DAYS=${JSON.stringify(bad)}`),
    );
  }
});

Deno.test("MAX_IMPORT_MB defaults to 1024, is read from the environment and checked", () => {
  assert.equal(parseConfig({}).maxImportMb, 1024);
  assert.equal(parseConfig({ MAX_IMPORT_MB: "2" }).maxImportMb, 2);
  for (const bad of ["0", "-1", "lots", "1.5"]) {
    assert.throws(
      () => parseConfig({ MAX_IMPORT_MB: bad }),
      (error: unknown) =>
        error instanceof ConfigError && error.problems[0]!.startsWith(`MAX_IMPORT_MB=`),
    );
  }
});

Deno.test("DATABASE_URL selects PostgreSQL; unset means SQLite; another scheme is refused without echoing it", () => {
  assert.equal(parseConfig({}).databaseUrl, null);
  assert.equal(parseConfig({ DATABASE_URL: "" }).databaseUrl, null, "empty: unset");
  const url = "postgres://collab:pw@db.internal:5432/collab";
  assert.equal(parseConfig({ DATABASE_URL: url }).databaseUrl, url);
  assert.equal(
    parseConfig({ DATABASE_URL: "postgresql://db/collab" }).databaseUrl,
    "postgresql://db/collab",
  );
  for (const bad of ["mysql://root:hunter2@db/collab", "hunter2", "file:///data/collab.db"]) {
    assert.throws(
      () => parseConfig({ DATABASE_URL: bad }),
      (error: unknown) =>
        error instanceof ConfigError && error.problems.length === 1 &&
        error.problems[0]!.startsWith("DATABASE_URL: expected a PostgreSQL address") &&
        !error.message.includes("hunter2"),
      bad,
    );
  }
});

Deno.test("SMTP_URL: smtp:// requires STARTTLS except to a loopback host, smtps:// is TLS, unset sends no mail", () => {
  const base = { BASE_URL: "https://collab.example.org:8443" };
  assert.equal(parseConfig({}).smtp, null);
  assert.deepEqual(
    parseConfig({ ...base, SMTP_URL: "smtp://mailer:s%40cret@smtp.example.org" }).smtp,
    {
      host: "smtp.example.org",
      port: 587,
      secure: false,
      requireTls: true,
      user: "mailer",
      password: "s@cret",
    },
  );
  assert.deepEqual(parseConfig({ ...base, SMTP_URL: "smtps://smtp.example.org" }).smtp, {
    host: "smtp.example.org",
    port: 465,
    secure: true,
    requireTls: false,
    user: null,
    password: null,
  });
  for (const loopback of ["127.0.0.1:2525", "localhost", "[::1]:25"]) {
    const smtp = parseConfig({ ...base, SMTP_URL: `smtp://${loopback}` }).smtp!;
    assert.equal(smtp.requireTls, false, loopback);
    assert.equal(smtp.secure, false, loopback);
  }
  assert.equal(parseConfig({ ...base, SMTP_URL: "smtp://[::1]:25" }).smtp!.host, "::1");
});

Deno.test("an invalid SMTP_URL stops start-up with one line naming it, never echoing the password", () => {
  for (
    const bad of [
      "http://u:hunter2@h",
      "smtp://u:hunter2@",
      "smtp://u:hunter2@h/path",
      "smtp://u:hunter2@h:0",
      "nonsense hunter2",
    ]
  ) {
    try {
      parseConfig({ BASE_URL: "https://a.example", SMTP_URL: bad });
    } catch (e) {
      const problems = (e as ConfigError).problems;
      assert.equal(problems.length, 1, bad);
      assert.match(problems[0]!, /^SMTP_URL: /);
      assert.ok(!problems[0]!.includes("\n"));
      assert.ok(!(e as Error).message.includes("hunter2"), bad);
    }
  }
});

Deno.test("SMTP_URL without BASE_URL: start-up refuses with one line naming both", () => {
  try {
    parseConfig({ SMTP_URL: "smtp://127.0.0.1:2525" });
    assert.fail("accepted");
  } catch (e) {
    assert.ok(e instanceof ConfigError);
    assert.equal(e.problems.length, 1);
    assert.match(e.problems[0]!, /SMTP_URL.*BASE_URL/);
  }
  // Without SMTP_URL, BASE_URL stays optional.
  assert.equal(parseConfig({}).baseUrl, null);
});

Deno.test("MAIL_FROM defaults to no-reply at BASE_URL's host (no port) and refuses header injection", () => {
  assert.equal(
    parseConfig({ BASE_URL: "https://collab.example.org:8443/app" }).mailFrom,
    "Collab <no-reply@collab.example.org>",
  );
  assert.equal(parseConfig({}).mailFrom, null);
  assert.equal(
    parseConfig({ MAIL_FROM: "Team Collab <team@example.org>" }).mailFrom,
    "Team Collab <team@example.org>",
  );
  assert.equal(parseConfig({ MAIL_FROM: "team@example.org" }).mailFrom, "team@example.org");
  for (
    const bad of [
      "a@b\r\nBcc: x@y",
      "Name <a@b>\nBcc: x@y",
      "no at sign",
      "<a@b>",
      "Na\u0000me <a@b>",
    ]
  ) {
    assert.throws(() => parseConfig({ MAIL_FROM: bad }), ConfigError, JSON.stringify(bad));
  }
});

Deno.test("MAIL_DELAY_SECONDS defaults to 120, is read from the environment and checked", () => {
  assert.equal(parseConfig({}).mailDelaySeconds, 120);
  assert.equal(parseConfig({ MAIL_DELAY_SECONDS: "0" }).mailDelaySeconds, 0);
  assert.equal(parseConfig({ MAIL_DELAY_SECONDS: "600" }).mailDelaySeconds, 600);
  assert.throws(() => parseConfig({ MAIL_DELAY_SECONDS: "-1" }), ConfigError);
  assert.throws(() => parseConfig({ MAIL_DELAY_SECONDS: "2m" }), ConfigError);
});

Deno.test("OIDC_ISSUER must be https; plain http only for a loopback host, else one line naming it", () => {
  const sso = {
    BASE_URL: "https://collab.example.org",
    OIDC_CLIENT_ID: "collab",
    OIDC_CLIENT_SECRET: "secret",
  };
  for (
    const issuer of [
      "https://id.example.org/realms/main",
      "https://10.0.0.5:8443",
      "http://127.0.0.1:9000",
      "http://127.1.2.3",
      "http://localhost:8080/realms/main",
      "http://LOCALHOST",
      "http://[::1]:9000",
    ]
  ) {
    assert.equal(parseConfig({ ...sso, OIDC_ISSUER: issuer }).oidc?.issuer, issuer, issuer);
  }
  for (
    const issuer of [
      "http://id.example.org",
      "http://10.0.0.5:8080",
      "http://192.168.1.2",
      "http://[::2]",
      "http://127.0.0.1.example.org",
      "http://localhost.example.org",
      "http://0.0.0.0",
    ]
  ) {
    try {
      parseConfig({ ...sso, OIDC_ISSUER: issuer });
      assert.fail(`accepted ${issuer}`);
    } catch (e) {
      assert.ok(e instanceof ConfigError, issuer);
      assert.equal(e.problems.length, 1, issuer);
      assert.ok(!e.message.includes("\n"), issuer);
      assert.match(e.message, /^Cannot start: invalid configuration: OIDC_ISSUER=/, issuer);
      assert.match(e.problems[0]!, /expected https/, issuer);
    }
  }
});

Deno.test("WORKERS is a whole number from 1 to 256, by default the number of cores", () => {
  assert.equal(parseConfig({ WORKERS: "1" }).workers, 1);
  assert.equal(parseConfig({ WORKERS: "256" }).workers, 256);
  assert.ok(navigator.hardwareConcurrency >= 1);
  assert.equal(parseConfig({}).workers, Math.min(navigator.hardwareConcurrency, 256));
  for (const bad of ["0", "257", "2.5", "two"]) {
    assert.throws(
      () => parseConfig({ WORKERS: bad }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.includes(
          `WORKERS=${JSON.stringify(bad)}: expected a whole number from 1 to 256`,
        ),
    );
  }
});
