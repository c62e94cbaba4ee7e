/**
 * The server's configuration, parsed and validated from environment variables at start.
 * Every variable has a working default; a bad value stops start-up with a message that
 * names the variable, the value and what is expected.
 */
import { join } from "node:path";
import { type AllowList, parseAllowList } from "./integrations/webhook_targets.ts";
import { isMailbox } from "./mail/address.ts";

/** The validated configuration. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Where uploaded files are stored: `FILES_DIR`, or `files` in `dataDir`. */
  filesDir: string;
  /** Public base address without a trailing slash, or null to use the request's. */
  baseUrl: string | null;
  soapNamespace: string;
  /** Cookie signing key, or null to use the one generated and kept in `dataDir`. */
  sessionSecret: string | null;
  sessionTtlHours: number;
  maxUploadMb: number;
  sseHeartbeatMs: number;
  /** Event streams allowed in all, and per user. */
  sseMaxStreams: number;
  sseMaxStreamsPerUser: number;
  /** Registrations accepted from one client address within any hour. */
  registerLimitPerHour: number;
  /** Days a deleted item stays restorable in the trash (0: until the next sweep). */
  trashDays: number;
  /** Webhook targets allowed although private or loopback (hosts, addresses, ranges, `*`). */
  webhookAllowHosts: AllowList;
  /** The largest project archive accepted by an import, and its largest inflated total (MiB). */
  maxImportMb: number;
  /** `DATABASE_URL`: a PostgreSQL connection address, or null for SQLite in `dataDir`. */
  databaseUrl: string | null;
  /** `SMTP_URL`: where mail goes, or null when no mail is sent. */
  smtp: SmtpConfig | null;
  /** `MAIL_FROM`: the From of every mail; null only when neither it nor `BASE_URL` is set. */
  mailFrom: string | null;
  /** `MAIL_DELAY_SECONDS`: how long a notification stays unread before it is mailed. */
  mailDelaySeconds: number;
  /** `REGISTRATION`: who may register (the first account of an empty server always may). */
  registration: RegistrationMode;
  /** `REGISTRATION_DOMAINS`: with `open`, the email domains allowed (lower case); empty: any. */
  registrationDomains: string[];
  /** `METRICS_TOKEN`: the bearer token `GET /metrics` asks for; null: no `/metrics` (404). */
  metricsToken: string | null;
  /** `LOG_FORMAT`: today's text lines, or one JSON object per line. */
  logFormat: LogFormat;
  /** `AUDIT_DAYS`: days an audit log row is kept before the sweep removes it. */
  auditDays: number;
}

/** How log lines are written. */
export type LogFormat = "text" | "json";

/** Who may register: anyone, only with an invitation, or nobody (admins invite). */
export type RegistrationMode = "open" | "invite" | "closed";

const REGISTRATION_MODES: readonly RegistrationMode[] = ["open", "invite", "closed"];

/** A domain name as `REGISTRATION_DOMAINS` lists it: dot-separated labels of letters, digits, `-`. */
const DOMAIN_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** The SMTP server mail goes to, from `SMTP_URL`. */
export interface SmtpConfig {
  host: string;
  port: number;
  /** `smtps://`: TLS from the first byte; else plain, upgraded with STARTTLS. */
  secure: boolean;
  /** STARTTLS must succeed (every non-loopback `smtp://` server). */
  requireTls: boolean;
  user: string | null;
  password: string | null;
}

/** The configuration variables, their defaults and meanings (the README lists them). */
export const CONFIG_VARIABLES = [
  ["PORT", "8000", "listening port"],
  ["HOST", "0.0.0.0", "listening address"],
  ["DATA_DIR", "./data", "SQLite database and uploaded files"],
  [
    "DATABASE_URL",
    "unset",
    "`postgres://…` selects PostgreSQL instead of SQLite in DATA_DIR",
  ],
  [
    "FILES_DIR",
    "DATA_DIR/files",
    "where uploaded files are stored (a shared volume when several instances run)",
  ],
  ["BASE_URL", "from the request", "public base address, used in the WSDL's soap:address"],
  ["SOAP_NAMESPACE", "http://soap.example.com/", "the SOAP services' target namespace"],
  ["SESSION_SECRET", "generated once and kept in DATA_DIR", "cookie signing key"],
  ["SESSION_TTL_HOURS", "168", "session lifetime, checked on the server"],
  ["MAX_UPLOAD_MB", "25", "largest accepted upload, in MiB (mebibytes)"],
  ["SSE_HEARTBEAT_MS", "15000", "event-stream heartbeat interval"],
  ["SSE_MAX_STREAMS", "1000", "open event streams allowed in all (then 429)"],
  ["SSE_MAX_STREAMS_PER_USER", "10", "open event streams allowed per user (then 429)"],
  [
    "REGISTER_LIMIT_PER_HOUR",
    "20",
    "registrations accepted from one client address per hour (then 429)",
  ],
  ["TRASH_DAYS", "30", "days a deleted item stays restorable (0: until the next sweep)"],
  [
    "WEBHOOK_ALLOW_HOSTS",
    "empty",
    "private or loopback webhook targets allowed (hosts, addresses or CIDRs, * for all)",
  ],
  [
    "MAX_IMPORT_MB",
    "1024",
    "largest project archive, inflated or not, in MiB",
  ],
  [
    "SMTP_URL",
    "unset",
    "`smtp://[user:pass@]host[:port]` (STARTTLS required except to a loopback host) or " +
    "`smtps://…` (TLS from the start); unset: no mail is sent; needs BASE_URL",
  ],
  ["MAIL_FROM", "Collab <no-reply@HOST-OF-BASE_URL>", "the From address of every mail"],
  [
    "MAIL_DELAY_SECONDS",
    "120",
    "how long a notification stays unread before it is mailed",
  ],
  [
    "REGISTRATION",
    "open",
    "who may register: `open` (anyone), `invite` (only with an invitation link) or `closed` " +
    "(nobody; admins invite); the first account of an empty server always may",
  ],
  [
    "REGISTRATION_DOMAINS",
    "empty",
    "with REGISTRATION=open, comma-separated email domains allowed to register, matched " +
    "exactly and case-insensitively (`example.com` allows a@example.com, not " +
    "a@sub.example.com); empty: any",
  ],
  [
    "METRICS_TOKEN",
    "unset",
    "the bearer token `GET /metrics` (Prometheus text format) asks for; unset: /metrics is 404",
  ],
  ["LOG_FORMAT", "text", "`text` (one line per request) or `json` (one JSON object per line)"],
  ["AUDIT_DAYS", "365", "days an audit log row is kept"],
] as const;

/** Thrown when the environment holds invalid values; lists every problem. */
export class ConfigError extends Error {
  override name = "ConfigError";
  readonly problems: string[];

  constructor(problems: string[]) {
    // One problem is one line; several are listed one per line under the first.
    super(
      problems.length === 1
        ? `Cannot start: invalid configuration: ${problems[0]}`
        : `Cannot start: invalid configuration\n  ${problems.join("\n  ")}`,
    );
    this.problems = problems;
  }
}

/** Parses `env` (variable name to value) into a `Config`, or throws `ConfigError`. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const problems: string[] = [];
  const value = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      problems.push(
        `${name}=${JSON.stringify(raw)}: expected a whole number from ${min} to ${max}`,
      );
      return fallback;
    }
    return n;
  };

  const port = integer("PORT", 8000, 0, 65535);
  const host = value("HOST") ?? "0.0.0.0";
  const dataDir = value("DATA_DIR") ?? "./data";
  const filesDir = value("FILES_DIR") ?? join(dataDir, "files");

  let baseUrl: string | null = null;
  const rawBase = value("BASE_URL");
  if (rawBase !== undefined) {
    const url = URL.canParse(rawBase) ? new URL(rawBase) : null;
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash) {
      problems.push(
        `BASE_URL=${JSON.stringify(rawBase)}: expected an absolute http(s) address ` +
          `without query, like https://soap.example.org`,
      );
    } else {
      baseUrl = url.href.replace(/\/+$/, "");
    }
  }

  const soapNamespace = value("SOAP_NAMESPACE") ?? "http://soap.example.com/";
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:[^\s"'<>&{}]+$/.test(soapNamespace)) {
    problems.push(
      `SOAP_NAMESPACE=${JSON.stringify(soapNamespace)}: expected an absolute URI ` +
        `without spaces, quotes, braces, '<', '>' or '&'`,
    );
  }

  const sessionSecret = value("SESSION_SECRET") ?? null;
  if (sessionSecret !== null && sessionSecret.length < 32) {
    problems.push(`SESSION_SECRET: expected at least 32 characters (got ${sessionSecret.length})`);
  }

  const sessionTtlHours = integer("SESSION_TTL_HOURS", 168, 1, 24 * 365);
  const maxUploadMb = integer("MAX_UPLOAD_MB", 25, 1, 4096);
  const sseHeartbeatMs = integer("SSE_HEARTBEAT_MS", 15000, 10, 3_600_000);
  const sseMaxStreams = integer("SSE_MAX_STREAMS", 1000, 1, 100_000);
  const sseMaxStreamsPerUser = integer("SSE_MAX_STREAMS_PER_USER", 10, 1, 100_000);
  const registerLimitPerHour = integer("REGISTER_LIMIT_PER_HOUR", 20, 1, 1_000_000);
  const trashDays = integer("TRASH_DAYS", 30, 0, 36_500);

  let webhookAllowHosts: AllowList = parseAllowList("");
  try {
    webhookAllowHosts = parseAllowList(value("WEBHOOK_ALLOW_HOSTS") ?? "");
  } catch (error) {
    problems.push(
      `WEBHOOK_ALLOW_HOSTS: ${(error as Error).message}; expected comma-separated host ` +
        "names, addresses or CIDR ranges (like 127.0.0.1,10.0.0.0/8), or *",
    );
  }
  const maxImportMb = integer("MAX_IMPORT_MB", 1024, 1, 1_048_576);

  const databaseUrl = value("DATABASE_URL") ?? null;
  if (databaseUrl !== null) {
    const url = URL.canParse(databaseUrl) ? new URL(databaseUrl) : null;
    if (!url || (url.protocol !== "postgres:" && url.protocol !== "postgresql:")) {
      // The address may hold a password: never repeat it.
      problems.push(
        "DATABASE_URL: expected a PostgreSQL address like postgres://user:password@host:5432/db",
      );
    }
  }

  const smtp = parseSmtpUrl(value("SMTP_URL"), problems);
  if (smtp && baseUrl === null && rawBase === undefined) {
    problems.push("SMTP_URL is set but BASE_URL is not: links in mail must be absolute");
  }
  let mailFrom: string | null = baseUrl === null
    ? null
    : `Collab <no-reply@${new URL(baseUrl).hostname}>`;
  const rawFrom = value("MAIL_FROM");
  if (rawFrom !== undefined) {
    if (!isMailbox(rawFrom)) {
      problems.push(
        `MAIL_FROM=${JSON.stringify(rawFrom)}: expected an address like ` +
          "no-reply@example.org or Collab <no-reply@example.org>",
      );
    } else mailFrom = rawFrom;
  }
  const mailDelaySeconds = integer("MAIL_DELAY_SECONDS", 120, 0, 86_400);

  const rawRegistration = value("REGISTRATION");
  let registration: RegistrationMode = "open";
  if (rawRegistration !== undefined) {
    const mode = rawRegistration.toLowerCase() as RegistrationMode;
    if (REGISTRATION_MODES.includes(mode)) registration = mode;
    else {
      problems.push(
        `REGISTRATION=${JSON.stringify(rawRegistration)}: expected open, invite or closed`,
      );
    }
  }
  const rawDomains = value("REGISTRATION_DOMAINS");
  const registrationDomains: string[] = [];
  if (rawDomains !== undefined) {
    const listed = rawDomains.split(",").map((d) => d.trim().toLowerCase());
    const bad = listed.filter((d) => !DOMAIN_NAME.test(d));
    if (bad.length > 0) {
      problems.push(
        `REGISTRATION_DOMAINS=${JSON.stringify(rawDomains)}: ${
          bad.map((d) => JSON.stringify(d)).join(", ")
        } is not a domain name; expected comma-separated domains like example.com,example.org`,
      );
    } else if (registration !== "open") {
      problems.push(
        `REGISTRATION_DOMAINS is set but REGISTRATION=${registration}: the domains apply only ` +
          "to open registration (unset one of them)",
      );
    } else registrationDomains.push(...new Set(listed));
  }

  const metricsToken = value("METRICS_TOKEN") ?? null;
  if (metricsToken !== null && !/^[\x21-\x7e]{16,256}$/.test(metricsToken)) {
    problems.push(
      "METRICS_TOKEN: expected 16 to 256 visible ASCII characters (like the output of " +
        "`openssl rand -hex 32`)",
    );
  }
  const rawLogFormat = value("LOG_FORMAT");
  let logFormat: LogFormat = "text";
  if (rawLogFormat !== undefined) {
    if (rawLogFormat === "text" || rawLogFormat === "json") logFormat = rawLogFormat;
    else problems.push(`LOG_FORMAT=${JSON.stringify(rawLogFormat)}: expected text or json`);
  }
  const auditDays = integer("AUDIT_DAYS", 365, 1, 36_500);

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port,
    host,
    dataDir,
    filesDir,
    databaseUrl,
    baseUrl,
    soapNamespace,
    sessionSecret,
    sessionTtlHours,
    maxUploadMb,
    sseHeartbeatMs,
    sseMaxStreams,
    sseMaxStreamsPerUser,
    registerLimitPerHour,
    trashDays,
    webhookAllowHosts,
    maxImportMb,
    smtp,
    mailFrom,
    mailDelaySeconds,
    registration,
    registrationDomains,
    metricsToken,
    logFormat,
    auditDays,
  };
}

/** Whether `host` (a URL's hostname) is this machine. */
function isLoopback(host: string): boolean {
  return host === "localhost" || /^127\.\d+\.\d+\.\d+$/.test(host) || host === "[::1]";
}

/** Parses `SMTP_URL`; a bad one adds a problem that never repeats it (it may hold a password). */
function parseSmtpUrl(raw: string | undefined, problems: string[]): SmtpConfig | null {
  if (raw === undefined) return null;
  const url = URL.canParse(raw) ? new URL(raw) : null;
  const port = url?.port ? Number(url.port) : url?.protocol === "smtps:" ? 465 : 587;
  if (
    !url || (url.protocol !== "smtp:" && url.protocol !== "smtps:") || !url.hostname ||
    (url.pathname !== "" && url.pathname !== "/") || url.search || url.hash ||
    !Number.isInteger(port) || port < 1 || port > 65535
  ) {
    problems.push(
      "SMTP_URL: expected smtp://[user:password@]host[:port] or smtps://[user:password@]host[:port]",
    );
    return null;
  }
  const secure = url.protocol === "smtps:";
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port,
    secure,
    requireTls: !secure && !isLoopback(url.hostname),
    user: url.username ? decodeURIComponent(url.username) : null,
    password: url.password ? decodeURIComponent(url.password) : null,
  };
}
