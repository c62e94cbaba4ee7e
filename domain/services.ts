/** Wires every domain service from the app's dependencies; nothing global. */
import type { Database } from "../db/sqlite.ts";
import { createAccounts } from "./accounts.ts";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import { createLoanService, type CreditScoreLookup, fixedCreditScore } from "./loan.ts";
import { createNotifications } from "./notifications.ts";
import { type PasswordHasher, scryptHasher } from "./passwords.ts";
import { createProjects } from "./projects.ts";
import { Sessions } from "./sessions.ts";
import { LoginThrottle } from "./throttle.ts";

/** What the services are built from. */
export interface ServiceDeps {
  db: Database;
  clock: Clock;
  config: Config;
  sessionSecret: string;
  hasher?: PasswordHasher;
  creditScore?: CreditScoreLookup;
}

/** Builds the services. */
export function createServices(deps: ServiceDeps) {
  const { db, clock, config } = deps;
  const sessions = new Sessions(db, clock, {
    secret: deps.sessionSecret,
    ttlHours: config.sessionTtlHours,
  });
  const hooks = { sessionsEnded: new Set<(userId: number) => void>() };
  return {
    db,
    clock,
    sessions,
    hooks,
    accounts: createAccounts({
      db,
      clock,
      hasher: deps.hasher ?? scryptHasher(),
      throttle: new LoginThrottle(clock),
      sessions,
      onSessionsEnded: (userId) => hooks.sessionsEnded.forEach((fn) => fn(userId)),
    }),
    projects: createProjects({ db, clock }),
    notifications: createNotifications({ db, clock }),
    loan: createLoanService(db, { clock, creditScore: deps.creditScore ?? fixedCreditScore }),
  };
}

/** The services' type. */
export type Services = ReturnType<typeof createServices>;
