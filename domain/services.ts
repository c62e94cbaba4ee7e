/** Wires every domain service from the app's dependencies; nothing global. */
import { FileStore } from "../db/kernel/file_store.ts";
import { listProjectsOfUser } from "../db/projects/projects.ts";
import type { Database } from "../db/sqlite/sqlite.ts";
import type { Engine } from "../db/kernel/engine.ts";
import type { Metrics } from "./kernel/metrics.ts";
import { shareMetrics } from "./kernel/process_metrics.ts";
import { createAccounts } from "./accounts/accounts.ts";
import { createApiTokens, tokenStreamKey } from "./accounts/api_tokens.ts";
import type { DomainContext } from "./projects/actions.ts";
import { createActivity } from "./projects/activity.ts";
import { createAdmin } from "./accounts/admin.ts";
import { createAuditLog } from "./accounts/audit.ts";
import { createAttachments } from "./content/attachments.ts";
import { createBackups } from "./archives/backup.ts";
import { createBoard } from "./content/board.ts";
import { createCalendar } from "./planning/calendar.ts";
import { createCalendarFeeds } from "./integrations/calendar_feeds.ts";
import { createChat } from "./content/chat.ts";
import { createChecklists } from "./planning/checklists.ts";
import { createDashboards } from "./overview/dashboards.ts";
import { EventHub } from "./projects/event_hub.ts";
import { createEventRelay, type EventRelay } from "./projects/event_relay.ts";
import { pendingMail, pendingWebhooks } from "../db/kernel/health.ts";
import { createPresence } from "./kernel/presence.ts";
import type { BusMessage, IsolateBus } from "./kernel/isolate_bus.ts";
import { createFilePreviews } from "./content/file_previews.ts";
import { createFiles } from "./content/files.ts";
import { createHealth } from "./kernel/health.ts";
import { createMeetings } from "./planning/meetings.ts";
import { createMilestones } from "./planning/milestones.ts";
import { createNotes } from "./content/notes.ts";
import type { Clock } from "./kernel/clock.ts";
import type { Config } from "./config.ts";
import { createLoanService, type CreditScoreLookup, fixedCreditScore } from "./loan/loan.ts";
import { createLoanConsole } from "./loan/console.ts";
import { createNotifications } from "./projects/notifications.ts";
import { createPasswordChange } from "./accounts/password_change.ts";
import { type PasswordHasher, scryptHasher } from "./accounts/passwords.ts";
import { createProjectExport } from "./archives/project_export.ts";
import { createProjectImport, type ImportOptions } from "./archives/project_import.ts";
import { createProjects } from "./projects/projects.ts";
import { createSearch } from "./content/search.ts";
import { createStreams } from "./projects/stream.ts";
import { createTodos } from "./planning/todos.ts";
import { createTrash } from "./projects/trash.ts";
import { Sessions } from "./accounts/sessions.ts";
import { InvitationThrottle, LoginThrottle, RegistrationThrottle } from "./accounts/throttle.ts";
import { createInvitations } from "./identity/invitations.ts";
import { createWebhooks } from "./integrations/webhooks.ts";
import { WebhookSender, type WebhookSenderOptions } from "./integrations/webhook_sender.ts";
import { createMail } from "./mail/mail.ts";
import { MailSender, type MailSenderOptions } from "./mail/sender.ts";
import { createNotifier } from "./mail/notifier.ts";
import { dnsResolver } from "./integrations/webhook_targets.ts";
import type { LinkMail } from "./identity/links.ts";
import { createPasswordReset } from "./identity/password_reset.ts";
import { createEmailVerification } from "./identity/verify_email.ts";
import { createSso } from "./identity/sso.ts";

/** What the services are built from. */
export interface ServiceDeps {
  /** The storage every service reads and writes through (SQLite's or PostgreSQL's). */
  engine: Engine;
  /**
   * The SQLite database under `engine`, when the server runs on SQLite: what only SQLite has
   * (the full-disk notice, the server's own backups) comes from it.
   */
  db?: Database;
  clock: Clock;
  config: Config;
  /** The session-cookie signing key. */
  sessionSecret: string;
  /** Password hashing (default: scrypt with production parameters). */
  hasher?: PasswordHasher;
  /** The loan service's credit-score lookup (default: every applicant scores 700). */
  creditScore?: CreditScoreLookup;
  /** The webhook sender's tuning (tests shorten its timeout, or resolve names their way). */
  webhooks?: WebhookSenderOptions;
  /** The mail sender's tuning (tests trust a throwaway certificate, shorten timeouts). */
  mail?: MailSenderOptions;
  /** How project imports run their batches (tests hold an import between two). */
  imports?: ImportOptions;
  /** Where background work reports what went wrong (the app's error log). */
  reportError?: (error: unknown) => void;
  /** Where transactions, events, webhook attempts and mail are counted (the app's metrics). */
  metrics?: Metrics;
  /**
   * The other isolates of this process (`WORKERS` above 1): committed events, queued deliveries
   * and mail, and streams to end are told to them, and theirs heard here.
   */
  bus?: IsolateBus;
}

/** `engine`, with each transaction's time observed by `metrics`. */
function timedEngine(engine: Engine, metrics: Metrics): Engine {
  const timed: Engine = Object.create(engine);
  timed.transaction = async (fn) => {
    const started = performance.now();
    try {
      return await engine.transaction(fn);
    } finally {
      metrics.transaction((performance.now() - started) / 1000);
    }
  };
  return timed;
}

/** `relay`, with the events it is handed after their commit counted by `metrics`. */
function countedRelay(relay: EventRelay, metrics: Metrics | undefined): EventRelay {
  if (!metrics) return relay;
  const counted: EventRelay = Object.create(relay);
  counted.committed = (events, userEvents) => {
    metrics.eventsPublished(events.length + userEvents.length);
    relay.committed(events, userEvents);
  };
  return counted;
}

/** Builds the services. */
export function createServices(deps: ServiceDeps) {
  const { clock, config, metrics } = deps;
  // Every service below reads and writes through the engine.
  const db = metrics ? timedEngine(deps.engine, metrics) : deps.engine;
  const sessions = new Sessions(db, clock, {
    secret: deps.sessionSecret,
    ttlHours: config.sessionTtlHours,
  });
  const hub = new EventHub({
    heartbeatMs: config.sseHeartbeatMs,
    now: () => clock.now().getTime(),
    maxTotal: config.sseMaxStreams,
    maxPerUser: config.sseMaxStreamsPerUser,
  });
  const presence = createPresence(db);
  const webhookSender = new WebhookSender(
    { db, clock, presence, allow: config.webhookAllowHosts },
    {
      ...(metrics ? { onOutcome: (status: string) => metrics.webhookDelivery(status) } : {}),
      ...deps.webhooks,
    },
  );
  // Notification mail needs absolute links: it is composed only when BASE_URL is set (which
  // SMTP_URL requires), by the mail sender's ticks.
  const notifier = config.baseUrl === null ? null : createNotifier({
    db,
    clock,
    baseUrl: config.baseUrl.replace(/\/+$/, ""),
    host: new URL(config.baseUrl).hostname,
    delaySeconds: config.mailDelaySeconds,
  });
  const mailSender = new MailSender(
    {
      db,
      clock,
      presence,
      smtp: config.smtp,
      from: config.mailFrom,
      ...(notifier ? { compose: notifier.runOnce } : {}),
    },
    {
      ...(deps.reportError ? { onError: deps.reportError } : {}),
      ...(metrics ? { onOutcome: (status: string) => metrics.mailSent(status) } : {}),
      ...deps.mail,
    },
  );
  const relay = countedRelay(
    createEventRelay({
      db,
      hub,
      onError: deps.reportError ?? (() => {}),
      ...(deps.bus ? { bus: deps.bus } : {}),
    }),
    metrics,
  );
  // What ends streams and wakes the senders here is told to the other isolates too, and what
  // they tell is done here (the senders run on the primary only: elsewhere a wake does nothing).
  const bus = deps.bus;
  const ends = {
    /** Ends a user's streams, or only those of projects not in `keep`. */
    user(userId: number, keep?: Set<number>) {
      hub.closeUser(userId, keep && ((projectId) => !keep.has(projectId)));
      bus?.post({ kind: "closeUser", userId, ...(keep ? { keepProjects: [...keep] } : {}) });
    },
    session(idHash: string) {
      hub.closeSession(idHash);
      bus?.post({ kind: "closeSession", idHash });
    },
    project(projectId: number) {
      hub.closeProject(projectId);
      bus?.post({ kind: "closeProject", projectId });
    },
  };
  const queued = (what: "webhooks" | "mail") => {
    if (what === "webhooks") webhookSender.wake();
    else mailSender.wake();
    bus?.post({ kind: "queued", what });
  };
  if (bus && metrics) shareMetrics(bus, metrics);
  bus?.listen((message: BusMessage) => {
    switch (message.kind) {
      case "closeUser": {
        const keep = message.keepProjects && new Set(message.keepProjects);
        hub.closeUser(message.userId, keep && ((projectId) => !keep.has(projectId)));
        break;
      }
      case "closeSession":
        hub.closeSession(message.idHash);
        break;
      case "closeProject":
        hub.closeProject(message.projectId, message.userId);
        break;
      case "queued":
        if (message.what === "webhooks") webhookSender.wake();
        else mailSender.wake();
        break;
    }
  });
  metrics?.setSources({
    streamsOpen: () => hub.size,
    webhookPending: () => pendingWebhooks(db),
    mailPending: () => pendingMail(db),
  });
  const ctx: DomainContext = {
    db,
    clock,
    hub,
    relay,
    presence,
    files: new FileStore(config.filesDir),
    maxUploadBytes: config.maxUploadMb * 1024 * 1024,
    onDeliveriesQueued: () => queued("webhooks"),
  };
  const hasher = deps.hasher ?? scryptHasher();
  // Reset and verification links go by mail only while mail is on (which needs BASE_URL).
  const linkMail: LinkMail | null = mailSender.enabled && config.baseUrl !== null
    ? {
      baseUrl: config.baseUrl.replace(/\/+$/, ""),
      host: new URL(config.baseUrl).hostname,
      onQueued: () => queued("mail"),
    }
    : null;
  const files = createFiles(ctx);
  // A former admin keeps only the streams of projects they are a member of.
  const onAdminRightsLost = async (userId: number) => {
    const memberOf = new Set(
      (await listProjectsOfUser(db, userId, true)).map((project) => project.id),
    );
    ends.user(userId, memberOf);
  };
  // One login throttle for password sign-ins and the SSO link page: the same counts (kept in
  // the database) for an account, however the password is typed.
  const loginThrottle = new LoginThrottle(db, clock);
  // Single sign-on, when OIDC_ISSUER is set (BASE_URL is then set too: the config requires it).
  const sso = config.oidc && config.baseUrl !== null
    ? createSso({
      db,
      clock,
      config: config.oidc,
      baseUrl: config.baseUrl.replace(/\/+$/, ""),
      localLogin: config.localLogin,
      hasher,
      sessions,
      throttle: loginThrottle,
      onAdminRightsLost,
    })
    : null;
  const auditLog = createAuditLog(db, { auditDays: config.auditDays, now: () => clock.now() });
  const attachments = createAttachments(ctx, files);
  // Routes get operations, never the database or the domain context.
  return {
    clock,
    sessions,
    hub,
    /** Committed events to the streams; `main.ts` starts and stops it (PostgreSQL listens). */
    relay,
    /**
     * This instance's number among several (PostgreSQL); `main.ts` starts it before the
     * webhook sender and imports run, and stops it last.
     */
    presence,
    streams: createStreams(ctx),
    /** Where uploads are spooled while a request is read (an `UploadSpool`). */
    fileStore: ctx.files,
    /** The largest upload, in bytes. */
    maxUploadBytes: ctx.maxUploadBytes,
    /** The largest project archive an import takes (`MAX_IMPORT_MB`), in bytes. */
    maxImportBytes: config.maxImportMb * 1024 * 1024,
    /**
     * Records that a write failed on a full disk; true the first time since writes last
     * succeeded (so the cause is logged once, not per failed request). SQLite's file and the
     * uploaded bytes share the data directory's disk; on PostgreSQL the database is elsewhere,
     * and the bytes are what meets this host's full disk.
     */
    noteStorageFull: () => deps.db?.noteStorageFull() ?? ctx.files.noteFull(),
    activity: createActivity(db),
    /** Readiness: whether the database answers (`/healthz`). */
    health: createHealth(db),
    search: createSearch(db),
    admin: createAdmin(db),
    files,
    /** Files opened for the pages' inline image previews. */
    filePreviews: createFilePreviews(ctx),
    attachments,
    board: createBoard(ctx, attachments),
    notes: createNotes(ctx),
    chat: createChat(ctx, attachments),
    todos: createTodos(ctx, attachments),
    checklists: createChecklists(ctx),
    milestones: createMilestones(ctx),
    calendar: createCalendar(ctx),
    meetings: createMeetings(ctx),
    dashboards: createDashboards(ctx, attachments),
    trash: createTrash(ctx, { trashDays: config.trashDays, alsoSweep: auditLog.sweep }),
    /** The audit log (admins read it; the trash's hourly sweep removes old rows). */
    auditLog,
    accounts: createAccounts({
      db,
      clock,
      hasher,
      throttle: loginThrottle,
      registrations: new RegistrationThrottle(db, clock, config.registerLimitPerHour),
      sessions,
      registration: config.registration,
      registrationDomains: config.registrationDomains,
      localLogin: config.localLogin,
      // Event streams end with the sessions they were opened with.
      onSessionsEnded: (userId) => ends.user(userId),
      onSessionEnded: (idHash) => ends.session(idHash),
      onAdminRightsLost,
    }),
    /** Single sign-on (OpenID Connect), or null when OIDC_ISSUER is unset. */
    sso,
    /** Who may sign in with a password (`LOCAL_LOGIN`). */
    localLogin: config.localLogin,
    projects: createProjects(ctx, {
      // A deleted project's streams end with it. A removed member's end with their
      // `member.removed`, on every instance, as it is published (EventHub.publish): ended here
      // at the commit, they would miss that event on PostgreSQL, where it comes a moment later.
      onAccessLost: (projectId, userId) => {
        if (userId === undefined) ends.project(projectId);
      },
    }),
    notifications: createNotifications({ db, clock, relay }),
    webhooks: createWebhooks({
      db,
      clock,
      allow: config.webhookAllowHosts,
      resolve: deps.webhooks?.resolve ?? dnsResolver,
      onQueued: () => queued("webhooks"),
    }),
    /** Sends queued webhook deliveries; `main.ts` starts and stops it. */
    webhookSender,
    /** Sends queued mail; `main.ts` starts and stops it (it never starts when mail is off). */
    mailSender,
    /**
     * The notification mailer (null without BASE_URL): the sender runs it; the unsubscribe
     * link uses it.
     */
    notifier,
    mail: createMail({
      db,
      clock,
      enabled: mailSender.enabled,
      host: config.baseUrl === null ? null : new URL(config.baseUrl).hostname,
      onQueued: () => queued("mail"),
    }),
    invitations: createInvitations({
      db,
      clock,
      hasher,
      sessions,
      throttle: new InvitationThrottle(db, clock),
      actions: ctx,
      baseUrl: config.baseUrl === null ? null : config.baseUrl.replace(/\/+$/, ""),
      mail: {
        enabled: mailSender.enabled,
        host: config.baseUrl === null ? null : new URL(config.baseUrl).hostname,
      },
      onMailQueued: () => queued("mail"),
    }),
    /** What the sign-in and register pages offer (`GET /api/auth/providers`). */
    providers: () => ({
      registration: config.registration,
      localLogin: config.localLogin !== "off",
      oidc: sso && config.oidc
        ? { buttonText: config.oidc.buttonText, startUrl: "/auth/oidc/start" }
        : null,
      passwordReset: mailSender.enabled,
    }),
    apiTokens: createApiTokens({
      db,
      clock,
      // Event streams end with the token they were opened with.
      onRevoked: (ids) => ids.forEach((id) => ends.session(tokenStreamKey(id))),
    }),
    calendarFeeds: createCalendarFeeds({ db, clock, secret: deps.sessionSecret }),
    passwordChange: createPasswordChange({
      db,
      clock,
      hasher,
      throttle: new LoginThrottle(db, clock, "password"),
      onChanged: ({ tokenIds, sessionIdHashes }) => {
        for (const id of tokenIds) ends.session(tokenStreamKey(id));
        for (const idHash of sessionIdHashes) ends.session(idHash);
      },
    }),
    /** Password reset links: asked for by mail, or made by an admin. */
    passwordReset: createPasswordReset({
      db,
      clock,
      hasher,
      mail: linkMail,
      onReset: ({ tokenIds, sessionIdHashes }) => {
        for (const id of tokenIds) ends.session(tokenStreamKey(id));
        for (const idHash of sessionIdHashes) ends.session(idHash);
      },
    }),
    /** Email verification links. */
    emailVerification: createEmailVerification({ db, clock, mail: linkMail }),
    /** Whether mail is on (the sign-in page offers "Forgot password?" then). */
    mailEnabled: linkMail !== null,
    projectExport: createProjectExport(ctx),
    projectImport: createProjectImport(ctx, {
      maxImportBytes: config.maxImportMb * 1024 * 1024,
      ...deps.imports,
    }),
    loan: createLoanService(db, { clock, creditScore: deps.creditScore ?? fixedCreditScore }),
    /** The loan operations console (admins and loan officers). */
    loanConsole: createLoanConsole({ db, clock }),
    backups: createBackups({
      dataDir: config.dataDir,
      filesDir: config.filesDir,
      clock,
      engine: db.kind,
      db,
    }),
  };
}

/** The services' type. */
export type Services = ReturnType<typeof createServices>;
