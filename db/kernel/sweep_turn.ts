/**
 * Whose turn it is to sweep: with several instances on one PostgreSQL database, a sweep (the
 * trash's, the webhook deliveries' pruning) runs on one of them at a time. Each of its batch
 * transactions first takes a transaction-level advisory lock of the sweep's own; an instance
 * that does not get it ends its sweep, as another is sweeping. The lock goes with the
 * transaction (no connection is held between batches, none is left locked by an instance that
 * dies), so two instances may take turns between batches: each batch sees what the ones before
 * it committed, and every row is purged, and counted, once. SQLite has one instance: always
 * its turn.
 */
import type { Queries } from "./engine.ts";

/** The sweeps, and their advisory lock keys (constants of this application). */
const SWEEP_KEYS = {
  trash: 7_301_001,
  webhookDeliveries: 7_301_002,
  audit: 7_301_003,
} as const;

/** A sweep that runs on one instance at a time. */
export type Sweep = keyof typeof SWEEP_KEYS;

/**
 * Whether this transaction may sweep `sweep` (held until it ends); false when another
 * instance's transaction holds it. Call first inside the batch's transaction.
 */
export async function takeSweepTurn(tx: Queries, sweep: Sweep): Promise<boolean> {
  if (tx.kind === "sqlite") return true;
  const row = await tx.get<{ got: boolean }>(
    `SELECT pg_try_advisory_xact_lock(${SWEEP_KEYS[sweep]}) AS got`,
  );
  return row?.got === true;
}
