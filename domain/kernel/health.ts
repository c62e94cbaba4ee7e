/** Readiness: whether the database answers, for `/healthz` (a load balancer's probe). */
import type { Engine } from "../../db/kernel/engine.ts";
import { databaseAnswers } from "../../db/kernel/health.ts";

/** How long `/healthz` waits for the database before calling it unreachable. */
export const HEALTH_TIMEOUT_MS = 2_000;

/** The readiness check over `db`. */
export function createHealth(db: Engine, timeoutMs = HEALTH_TIMEOUT_MS) {
  return {
    /** True when the database answered a trivial query within the time allowed. */
    async databaseReachable(): Promise<boolean> {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<false>((resolve) =>
        timer = setTimeout(() => resolve(false), timeoutMs)
      );
      try {
        return await Promise.race([databaseAnswers(db).catch(() => false), late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
