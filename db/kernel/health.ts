/** The readiness query. */
import type { Queries } from "./engine.ts";

/** Whether the database answers a trivial query (it rejects when it cannot be reached). */
export async function databaseAnswers(q: Queries): Promise<boolean> {
  return (await q.get<{ ok: number }>("SELECT 1 AS ok"))?.ok === 1;
}

/** Webhook work waiting: events not yet fanned out, and deliveries not yet sent. */
export async function pendingWebhooks(q: Queries): Promise<number> {
  const row = await q.get<{ n: number | string }>(
    `SELECT (SELECT count(*) FROM webhook_outbox)
       + (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS n`,
  );
  return Number(row?.n ?? 0);
}

/** Mails waiting to be sent. */
export async function pendingMail(q: Queries): Promise<number> {
  const row = await q.get<{ n: number | string }>(
    "SELECT count(*) AS n FROM mail_outbox WHERE status = 'pending'",
  );
  return Number(row?.n ?? 0);
}
