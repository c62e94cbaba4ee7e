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
  /**
   * `WORKERS`: how many isolates serve HTTP on the port, by default one per core (1: one, as
   * before; more: the primary and workers beside it, main.ts).
   */
  workers: number;
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
  /** `OIDC_*`: the single sign-on provider, or null when `OIDC_ISSUER` is unset. */
  oidc: OidcConfig | null;
  /** `LOCAL_LOGIN`: who may sign in with a password. */
  localLogin: LocalLogin;
  /** `METRICS_TOKEN`: the bearer token `GET /metrics` asks for; null: no `/metrics` (404). */
  metricsToken: string | null;
  /** `LOG_FORMAT`: today's text lines, or one JSON object per line. */
  logFormat: LogFormat;
  /** `AUDIT_DAYS`: days an audit log row is kept before the sweep removes it. */
  auditDays: number;
}

/** Who may sign in with email and password: everyone, only admins, or nobody. */
export type LocalLogin = "on" | "admins" | "off";

/** The OpenID Connect provider single sign-on goes through (`OIDC_*`). */
export interface OidcConfig {
  /** The issuer, exactly as given (the discovery document's `issuer` must equal it). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The scopes asked for, space-separated. */
  scopes: string;
  buttonText: string;
  /** Whether a first sign-in creates an account. */
  autoProvision: boolean;
  /** The email domains allowed (lower case); empty: any. */
  allowedDomains: string[];
  /** The claim listing the person's groups. */
  groupsClaim: string;
  /** Groups whose members are admins; empty: single sign-on never changes a role. */
  adminGroups: string[];
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
  [
    "WORKERS",
    "the number of cores",
    "isolates serving HTTP on the port, 1 to 256 (background work runs once)",
  ],
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
  ["OIDC_ISSUER", "unset", "the OpenID Connect provider's issuer URL; unset: no single sign-on"],
  ["OIDC_CLIENT_ID", "unset", "the client registered at the provider (needed with OIDC_ISSUER)"],
  ["OIDC_CLIENT_SECRET", "unset", "its secret (needed with OIDC_ISSUER)"],
  ["OIDC_SCOPES", "openid email profile", "the scopes asked for"],
  ["OIDC_BUTTON_TEXT", "Sign in with SSO", "the sign-in button's label"],
  ["OIDC_AUTO_PROVISION", "true", "create an account at a first sign-in"],
  [
    "OIDC_ALLOWED_DOMAINS",
    "empty",
    "comma-separated email domains allowed to sign in by SSO, matched exactly; empty: any",
  ],
  ["OIDC_GROUPS_CLAIM", "groups", "the claim (ID token or userinfo) listing the person's groups"],
  [
    "OIDC_ADMIN_GROUPS",
    "empty",
    "comma-separated groups whose members are admins, granted and taken away at each SSO " +
    "sign-in; empty: SSO never changes a role",
  ],
  [
    "LOCAL_LOGIN",
    "on",
    "password sign-in: `on`, `admins` (admins only) or `off` (refused at start-up while no " +
    "admin has an SSO identity)",
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
  // Every core by default (docs/decisions/0011-workers.md).
  const workers = integer("WORKERS", Math.min(navigator.hardwareConcurrency || 1, 256), 1, 256);
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

  const oidc = parseOidc(
    {
      OIDC_ISSUER: value("OIDC_ISSUER"),
      OIDC_CLIENT_ID: value("OIDC_CLIENT_ID"),
      OIDC_CLIENT_SECRET: value("OIDC_CLIENT_SECRET"),
      OIDC_SCOPES: value("OIDC_SCOPES"),
      OIDC_BUTTON_TEXT: value("OIDC_BUTTON_TEXT"),
      OIDC_AUTO_PROVISION: value("OIDC_AUTO_PROVISION"),
      OIDC_ALLOWED_DOMAINS: value("OIDC_ALLOWED_DOMAINS"),
      OIDC_GROUPS_CLAIM: value("OIDC_GROUPS_CLAIM"),
      OIDC_ADMIN_GROUPS: value("OIDC_ADMIN_GROUPS"),
    },
    baseUrl,
    rawBase,
    problems,
  );
  const rawLocal = value("LOCAL_LOGIN");
  let localLogin: LocalLogin = "on";
  if (rawLocal !== undefined) {
    const mode = rawLocal.toLowerCase();
    if (mode === "on" || mode === "admins" || mode === "off") localLogin = mode;
    else problems.push(`LOCAL_LOGIN=${JSON.stringify(rawLocal)}: expected on, admins or off`);
  }
  if (localLogin !== "on" && oidc === null) {
    problems.push(
      `LOCAL_LOGIN=${localLogin} needs OIDC_ISSUER: without single sign-on nobody could sign in`,
    );
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
    oidc,
    localLogin,
    port,
    workers,
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

/** Parses the `OIDC_*` variables (null without `OIDC_ISSUER`); adds what is wrong to `problems`. */
function parseOidc(
  env: Record<string, string | undefined>,
  baseUrl: string | null,
  rawBase: string | undefined,
  problems: string[],
): OidcConfig | null {
  const issuer = env.OIDC_ISSUER;
  if (issuer === undefined) return null;
  const url = URL.canParse(issuer) ? new URL(issuer) : null;
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.search || url.hash) {
    problems.push(
      `OIDC_ISSUER=${JSON.stringify(issuer)}: expected the provider's issuer URL, like ` +
        "https://id.example.org/realms/main",
    );
  } else if (url.protocol === "http:" && !isLoopback(url.hostname)) {
    // Plain http would let anyone on the way read the codes and tokens: only this machine's.
    problems.push(
      `OIDC_ISSUER=${JSON.stringify(issuer)}: expected https (plain http only for a loopback ` +
        "host: 127.0.0.0/8, ::1, localhost)",
    );
  }
  if (baseUrl === null && rawBase === undefined) {
    problems.push(
      "OIDC_ISSUER is set but BASE_URL is not: the provider sends people back to " +
        "BASE_URL/auth/oidc/callback",
    );
  }
  const clientId = env.OIDC_CLIENT_ID;
  const clientSecret = env.OIDC_CLIENT_SECRET;
  if (clientId === undefined || clientSecret === undefined) {
    problems.push(
      "OIDC_ISSUER is set but OIDC_CLIENT_ID or OIDC_CLIENT_SECRET is not: both name the " +
        "client registered at the provider",
    );
  }
  const rawProvision = env.OIDC_AUTO_PROVISION?.toLowerCase() ?? "true";
  if (rawProvision !== "true" && rawProvision !== "false") {
    problems.push(
      `OIDC_AUTO_PROVISION=${JSON.stringify(env.OIDC_AUTO_PROVISION)}: expected true or false`,
    );
  }
  const list = (
    raw: string | undefined,
  ) => [...new Set((raw ?? "").split(",").map((d) => d.trim()).filter((d) => d !== ""))];
  const allowedDomains = list(env.OIDC_ALLOWED_DOMAINS?.toLowerCase());
  const bad = allowedDomains.filter((d) => !DOMAIN_NAME.test(d));
  if (bad.length > 0) {
    problems.push(
      `OIDC_ALLOWED_DOMAINS: ${bad.map((d) => JSON.stringify(d)).join(", ")} is not a domain ` +
        "name; expected comma-separated domains like example.com,example.org",
    );
  }
  return {
    issuer,
    clientId: clientId ?? "",
    clientSecret: clientSecret ?? "",
    scopes: env.OIDC_SCOPES ?? "openid email profile",
    buttonText: env.OIDC_BUTTON_TEXT ?? "Sign in with SSO",
    autoProvision: rawProvision !== "false",
    allowedDomains,
    groupsClaim: env.OIDC_GROUPS_CLAIM ?? "groups",
    adminGroups: list(env.OIDC_ADMIN_GROUPS),
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
